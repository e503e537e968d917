import Planning
import ReplanTestSupport
import Testing

/// docs/model.md §1: a `could-not-fit` flag asks the model only when it has an option the rules
/// lack, a gap before the course's next session shorter than the session.
@Suite("What a could-not-fit flag leaves the model")
struct FlagRoomTests {
    static let now = at("2025-01-08T20:00")

    /// A weekly Piano lesson on Mondays 18:00–19:00, missed on Mon 6 Jan; the next is Mon 13 Jan.
    static func plan(saturday: [String], busy: [StudyTask] = []) throws -> UserPlan {
        var settings = UserSettings()
        var windows: [Weekday: [String]] = [.mon: ["18:00-19:00"]]
        if !saturday.isEmpty { windows[.sat] = saturday }
        settings.windows = try WeeklyWindows(text: windows)
        return Fx.plan(
            [Fx.series("piano", "Piano", "2025-01-06T18:00", "2025-01-06T19:00", .weekly, category: "Piano")] + busy,
            settings: settings)
    }

    static func missed(_ plan: UserPlan) throws -> Occurrence { try #require(plan.occurrence(id("piano@2025-01-06"))) }

    @Test("a 45-minute Saturday window before the next lesson is an option; the rules flag the lesson")
    func aShorterGapIsAnOption() throws {
        let plan = try Self.plan(saturday: ["10:00-10:45"])
        let local = Postponer(localNow: Self.now, zone: plan.zone).postpone(plan)
        #expect(local.flags.contains { $0.id == id("piano@2025-01-06") && $0.kind == .couldNotFit })
        let room = FlagRoom.shortened(
            for: try Self.missed(local.plan), in: local.plan, now: Self.now, through: date("2025-01-22"))
        #expect(room == TimeRange(start: at("2025-01-11T10:00"), end: at("2025-01-11T10:45")))
    }

    @Test("no gap before the next lesson, or one too short or taken: nothing to ask the model")
    func noGapNoOption() throws {
        for plan in [
            try Self.plan(saturday: []),
            try Self.plan(saturday: ["10:00-10:10"]),
            try Self.plan(
                saturday: ["10:00-10:45"],
                busy: [Fx.task("choir", "Choir", "2025-01-11T10:00", "2025-01-11T10:45", category: "Music")]),
        ] {
            #expect(
                FlagRoom.shortened(for: try Self.missed(plan), in: plan, now: Self.now, through: date("2025-01-22"))
                    == nil)
        }
    }

    @Test("the days after the course's next session are no option (G2)")
    func notAfterTheNextLesson() throws {
        // Only Tuesdays have room: 7 Jan is past, 14 Jan is after the next lesson (13 Jan).
        var settings = UserSettings()
        settings.windows = try WeeklyWindows(text: [.mon: ["18:00-19:00"], .tue: ["10:00-10:45"]])
        let plan = Fx.plan(
            [Fx.series("piano", "Piano", "2025-01-06T18:00", "2025-01-06T19:00", .weekly, category: "Piano")],
            settings: settings)
        #expect(
            FlagRoom.shortened(for: try Self.missed(plan), in: plan, now: Self.now, through: date("2025-01-22")) == nil)
    }
}
