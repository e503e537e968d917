import Testing
@testable import Planning

/// planning.md §7, one test per worked example. 2025-01-01 is a Wednesday; every run is at
/// 03:00 local time in Asia/Taipei. Each test checks every edit (operation, occurrence,
/// before, after, reason), the summary counts, and that a second run changes nothing.
@Suite struct PostponerWorkedExampleTests {
    typealias E = PlanEdit

    private func move(_ id: String, _ title: String, _ before: (String, String), _ after: (String, String),
                      _ reason: PlanEdit.Reason) -> PlanEdit {
        PlanEdit(op: .move, id: Fx.id(id), title: title, before: Fx.range(before.0, before.1),
                 after: Fx.range(after.0, after.1), reason: reason)
    }

    private func expectIdempotent(_ result: PostponementResult, at now: String) {
        let again = Fx.postpone(result.plan, at: now)
        #expect(again.edits.isEmpty, "second run changed: \(again.edits)")
    }

    @Test func example1_noWindows_missedDailyMathShiftsByOneDay() {
        let settings = Fx.settings(enabled: false)
        let plan = Fx.plan([
            Fx.task("A", "Math", "2025-01-01T09:00", "2025-01-01T10:00"),
            Fx.task("B", "Math", "2025-01-02T09:00", "2025-01-02T10:00"),
            Fx.task("C", "Math", "2025-01-03T09:00", "2025-01-03T10:00"),
            Fx.task("D", "Math", "2025-01-04T09:00", "2025-01-04T10:00"),
        ], settings: settings)
        let result = Fx.postpone(plan, at: "2025-01-02T03:00")
        #expect(result.edits == [
            move("A", "Math", ("2025-01-01T09:00", "2025-01-01T10:00"), ("2025-01-02T09:00", "2025-01-02T10:00"), .makeUp),
            move("B", "Math", ("2025-01-02T09:00", "2025-01-02T10:00"), ("2025-01-03T09:00", "2025-01-03T10:00"), .chainShift),
            move("C", "Math", ("2025-01-03T09:00", "2025-01-03T10:00"), ("2025-01-04T09:00", "2025-01-04T10:00"), .chainShift),
            move("D", "Math", ("2025-01-04T09:00", "2025-01-04T10:00"), ("2025-01-05T09:00", "2025-01-05T10:00"), .chainShift),
        ])
        #expect(result.summary == PlanSummary(dropped: 0, rescheduled: 4, chained: 4))
        #expect(result.flags.isEmpty)
        expectIdempotent(result, at: "2025-01-02T03:00")
    }

    private func englishWeek() -> UserPlan {
        Fx.plan((6...10).map { day in
            Fx.task("E\(day)", "English reading", "2025-01-\(day < 10 ? "0" : "")\(day)T10:00",
                    "2025-01-\(day < 10 ? "0" : "")\(day)T11:00", category: "English")
        })
    }

    @Test func example2_weekdayWindows_fridayMemberSkipsTheWeekend() {
        let result = Fx.postpone(englishWeek(), at: "2025-01-07T03:00")
        #expect(result.edits == [
            move("E6", "English reading", ("2025-01-06T10:00", "2025-01-06T11:00"), ("2025-01-07T10:00", "2025-01-07T11:00"), .makeUp),
            move("E7", "English reading", ("2025-01-07T10:00", "2025-01-07T11:00"), ("2025-01-08T10:00", "2025-01-08T11:00"), .chainShift),
            move("E8", "English reading", ("2025-01-08T10:00", "2025-01-08T11:00"), ("2025-01-09T10:00", "2025-01-09T11:00"), .chainShift),
            move("E9", "English reading", ("2025-01-09T10:00", "2025-01-09T11:00"), ("2025-01-10T10:00", "2025-01-10T11:00"), .chainShift),
            move("E10", "English reading", ("2025-01-10T10:00", "2025-01-10T11:00"), ("2025-01-13T10:00", "2025-01-13T11:00"), .chainShift),
        ])
        #expect(result.summary == PlanSummary(dropped: 0, rescheduled: 5, chained: 5))
        expectIdempotent(result, at: "2025-01-07T03:00")
    }

    @Test func example3_twoMissedDays_shiftByTwoAndContinueAfterTheWeekend() {
        let result = Fx.postpone(englishWeek(), at: "2025-01-08T03:00")
        #expect(result.edits == [
            move("E6", "English reading", ("2025-01-06T10:00", "2025-01-06T11:00"), ("2025-01-08T10:00", "2025-01-08T11:00"), .makeUp),
            move("E7", "English reading", ("2025-01-07T10:00", "2025-01-07T11:00"), ("2025-01-09T10:00", "2025-01-09T11:00"), .chainShift),
            move("E8", "English reading", ("2025-01-08T10:00", "2025-01-08T11:00"), ("2025-01-10T10:00", "2025-01-10T11:00"), .chainShift),
            move("E9", "English reading", ("2025-01-09T10:00", "2025-01-09T11:00"), ("2025-01-13T10:00", "2025-01-13T11:00"), .chainShift),
            move("E10", "English reading", ("2025-01-10T10:00", "2025-01-10T11:00"), ("2025-01-14T10:00", "2025-01-14T11:00"), .chainShift),
        ])
        #expect(result.summary == PlanSummary(dropped: 0, rescheduled: 5, chained: 5))
        expectIdempotent(result, at: "2025-01-08T03:00")
    }

    @Test func example4_mixedWeek_dropRescheduleAndChainAroundTheClub() {
        let plan = Fx.plan([
            Fx.task("phy-mon", "Physics", "2025-01-06T14:00", "2025-01-06T15:00", category: "Physics"),
            Fx.task("phy-tue", "Physics", "2025-01-07T14:00", "2025-01-07T15:00", category: "Physics"),
            Fx.task("phy-thu", "Physics", "2025-01-09T14:00", "2025-01-09T15:00", category: "Physics"),
            Fx.task("phy-fri", "Physics", "2025-01-10T14:00", "2025-01-10T15:00", category: "Physics"),
            Fx.task("club", "Club", "2025-01-08T14:00", "2025-01-08T16:00", category: "社團"),
            Fx.task("report", "Write report", "2025-01-04T15:00", "2025-01-04T17:00", category: "作業"),
            Fx.task("old", "Old reading", "2024-12-28T10:00", "2024-12-28T11:00", category: "Reading"),
        ])
        let result = Fx.postpone(plan, at: "2025-01-07T03:00")
        #expect(result.edits == [
            PlanEdit(op: .delete, id: Fx.id("old"), title: "Old reading",
                     before: Fx.range("2024-12-28T10:00", "2024-12-28T11:00"), after: nil, reason: .droppedStale),
            move("report", "Write report", ("2025-01-04T15:00", "2025-01-04T17:00"), ("2025-01-07T15:00", "2025-01-07T17:00"), .rescheduled),
            move("phy-mon", "Physics", ("2025-01-06T14:00", "2025-01-06T15:00"), ("2025-01-07T14:00", "2025-01-07T15:00"), .makeUp),
            move("phy-tue", "Physics", ("2025-01-07T14:00", "2025-01-07T15:00"), ("2025-01-08T13:00", "2025-01-08T14:00"), .chainShift),
        ])
        #expect(result.summary == PlanSummary(dropped: 1, rescheduled: 3, chained: 2))
        #expect(result.plan.tasks["old"] == nil)
        #expect(result.place("phy-thu") == Fx.range("2025-01-09T14:00", "2025-01-09T15:00"))
        #expect(result.place("phy-fri") == Fx.range("2025-01-10T14:00", "2025-01-10T15:00"))
        #expect(result.place("club") == Fx.range("2025-01-08T14:00", "2025-01-08T16:00"))
        expectIdempotent(result, at: "2025-01-07T03:00")
    }

    @Test func example5_seriesChain_oneSlideKeepsHistoryAndRunsPastTheEnd() {
        let vocab = Fx.task("vocab", "Vocab", "2025-01-01T20:00", "2025-01-01T20:30", category: "English",
                            repeat: RepeatRule(every: .daily, until: Fx.d("2025-01-31")))
        let history = (1...5).map { Fx.completed("vocab", "2025-01-0\($0)") }
        let plan = Fx.plan([vocab], overrides: history)
        let result = Fx.postpone(plan, at: "2025-01-07T03:00")

        // One slide on the series, no row per occurrence; the history rows are untouched.
        #expect(result.plan.allSlides == [SeriesSlide(taskID: "vocab", from: Fx.d("2025-01-06"), days: 1, version: 0)])
        #expect(result.plan.allOverrides == history)
        #expect(result.plan.tasks["vocab"] == vocab)

        let expected = (6...31).map { day -> PlanEdit in
            let from = Fx.d("2025-01-06").adding(days: day - 6)
            let to = from.adding(days: 1)
            return move("vocab@\(from)", "Vocab", ("\(from)T20:00", "\(from)T20:30"), ("\(to)T20:00", "\(to)T20:30"),
                        day == 6 ? .makeUp : .chainShift)
        }
        #expect(result.edits == expected)
        #expect(result.summary == PlanSummary(dropped: 0, rescheduled: 26, chained: 26))
        #expect(result.place("vocab@2025-01-06") == Fx.range("2025-01-07T20:00", "2025-01-07T20:30"))
        #expect(result.place("vocab@2025-01-11") == Fx.range("2025-01-12T20:00", "2025-01-12T20:30")) // a Sunday
        #expect(result.place("vocab@2025-01-31") == Fx.range("2025-02-01T20:00", "2025-02-01T20:30"))
        for day in 1...5 {
            let o = result.plan.occurrence(Fx.id("vocab@2025-01-0\(day)"))!
            #expect(o.state == .completed)
            #expect(TimeRange(o) == Fx.range("2025-01-0\(day)T20:00", "2025-01-0\(day)T20:30"))
        }
        expectIdempotent(result, at: "2025-01-07T03:00")
    }
}
