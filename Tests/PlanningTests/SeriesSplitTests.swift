import Foundation
import Planning
import Testing

/// "This and following" (issue 13, item 3): a series split at a date keeps every session
/// where it was; the past stays with the old series, the rest continues as a new one.
@Suite struct SeriesSplitTests {
    static let mei = try! User(id: "mei", zone: try! UserZone(identifier: "Asia/Taipei"))

    static func series(_ every: RepeatRule.Frequency, _ start: String, _ end: String, until: String? = nil) -> StudyTask
    {
        StudyTask(
            id: "s", userID: "mei", title: "Old", category: "English", start: CivilDateTime(start)!,
            end: CivilDateTime(end)!,
            repeatRule: RepeatRule(every: every, until: until.map { CivilDate($0)! }))
    }

    static func places(_ plan: UserPlan, _ from: String, _ through: String) -> [String] {
        plan.occurrences(from: CivilDate(from)!, through: CivilDate(through)!).map {
            "\($0.start)–\($0.end) \($0.state) \($0.title)"
        }
    }

    @Test func aDailySeriesWithOverridesAndSlidesKeepsEverySessionInPlace() {
        let task = Self.series(.daily, "2025-01-01T20:00", "2025-01-01T20:30", until: "2025-01-20")
        let plan = UserPlan(
            user: Self.mei, tasks: [task],
            overrides: [
                OccurrenceOverride(taskID: "s", originalDate: CivilDate("2025-01-03")!, state: .completed),
                OccurrenceOverride(
                    taskID: "s", originalDate: CivilDate("2025-01-09")!, state: .open,
                    start: CivilDateTime("2025-01-09T08:00")!, end: CivilDateTime("2025-01-09T08:30")!),
            ], slides: [SeriesSlide(taskID: "s", from: CivilDate("2025-01-02")!, days: 1)])
        var split = plan
        #expect(split.splitDate(ofSeries: "s", from: CivilDate("2025-01-07")!) == CivilDate("2025-01-07"))
        let new = split.splitSeries("s", at: CivilDate("2025-01-07")!, newID: "n", now: Date(timeIntervalSince1970: 0))
        #expect(new?.repeatRule?.until == CivilDate("2025-01-20"))
        #expect(split.tasks["s"]?.repeatRule?.until == CivilDate("2025-01-06"))
        let before = Self.places(plan, "2024-12-30", "2025-01-25")
        let after = Self.places(split, "2024-12-30", "2025-01-25")
        #expect(after == before, "same places and states")
        #expect(split.occurrence(OccurrenceID("n@2025-01-09")!)?.start == CivilDateTime("2025-01-09T08:00"))
        #expect(split.occurrence(OccurrenceID("s@2025-01-03")!)?.state == .completed)
    }

    /// docs/planning.md §4: a habit (daily, no end) that is split keeps skipping its missed days in
    /// the part that now ends, instead of turning into a course by its new end date.
    @Test func thePartThatEndsKeepsItsMissedPolicy() {
        var plan = UserPlan(user: Self.mei, tasks: [Self.series(.daily, "2025-01-01T07:00", "2025-01-01T07:15")])
        #expect(plan.tasks["s"]?.repeatRule?.effectiveMissed == .skip)
        plan.splitSeries("s", at: CivilDate("2025-01-07")!, newID: "n", now: Date(timeIntervalSince1970: 0))
        #expect(plan.tasks["s"]?.repeatRule?.effectiveMissed == .skip)
        #expect(plan.tasks["n"]?.repeatRule?.effectiveMissed == .skip)
    }

    @Test func aMonthlySeriesOnThe31stContinuesFromADateOnItsAnchorDay() {
        let task = Self.series(.monthly, "2025-01-31T09:00", "2025-01-31T10:00")
        var plan = UserPlan(user: Self.mei, tasks: [task])
        // From Feb 10 the next session is Feb 28 (clamped); the new series starts Mar 31.
        let from = plan.splitDate(ofSeries: "s", from: CivilDate("2025-02-10")!)
        #expect(from == CivilDate("2025-03-31"))
        let before = Self.places(plan, "2025-01-01", "2025-08-31")
        plan.splitSeries("s", at: from!, newID: "n", now: Date(timeIntervalSince1970: 0))
        #expect(Self.places(plan, "2025-01-01", "2025-08-31") == before)
    }

    @Test func nothingIsSplitAtTheFirstSessionOrOffTheSeries() {
        var plan = UserPlan(user: Self.mei, tasks: [Self.series(.weekly, "2025-01-06T10:00", "2025-01-06T11:00")])
        #expect(plan.splitSeries("s", at: CivilDate("2025-01-06")!, newID: "n", now: Date()) == nil)
        #expect(
            plan.splitSeries("s", at: CivilDate("2025-01-08")!, newID: "n", now: Date()) == nil, "not a recurrence date"
        )
        #expect(plan.tasks.count == 1)
    }
}
