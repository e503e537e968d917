import Foundation
import ReplanTestSupport
import Testing

@testable import Planning

/// docs/planning.md §9, one test per worked example. 2025-01-01 is a Wednesday; runs are at 03:00
/// local time in Asia/Taipei unless the example says otherwise. Each test checks every edit
/// (operation, occurrence, before, after, reason), the summary counts, the guarantees (the
/// checker runs G1–G9, a second run changing nothing among them).
@Suite struct PostponerWorkedExampleTests {
    typealias E = PlanEdit

    private func expectGuarantees(_ before: UserPlan, _ result: PostponementResult, at now: String) {
        let checker = GuaranteeChecker(now: before.zone.instant(at(now)))
        let breaches = checker.check(before: before, after: result.plan, edits: result.edits, summary: result.summary)
        #expect(breaches.isEmpty, "\(breaches)")
    }

    /// docs/planning.md §9.1.
    @Test func example1_noWindows_missedDailyMathShiftsByOneDay() {
        let plan = WorkedExamples.example1()
        let result = Fx.postpone(plan, at: "2025-01-02T03:00")
        #expect(
            result.edits == [
                move(
                    "A", "Math [1/4]", ("2025-01-01T09:00", "2025-01-01T10:00"),
                    ("2025-01-02T09:00", "2025-01-02T10:00"), .makeUp),
                move(
                    "B", "Math [2/4]", ("2025-01-02T09:00", "2025-01-02T10:00"),
                    ("2025-01-03T09:00", "2025-01-03T10:00"), .chainShift),
                move(
                    "C", "Math [3/4]", ("2025-01-03T09:00", "2025-01-03T10:00"),
                    ("2025-01-04T09:00", "2025-01-04T10:00"), .chainShift),
                move(
                    "D", "Math [4/4]", ("2025-01-04T09:00", "2025-01-04T10:00"),
                    ("2025-01-05T09:00", "2025-01-05T10:00"), .chainShift),
            ])
        #expect(result.summary == PlanSummary(dropped: 0, rescheduled: 4, chained: 4))
        #expect(result.flags.isEmpty)
        expectGuarantees(plan, result, at: "2025-01-02T03:00")
    }

    /// docs/planning.md §9.2.
    @Test func example2_weekdayWindows_fridayMemberSkipsTheWeekend() {
        let result = Fx.postpone(WorkedExamples.englishWeek(), at: "2025-01-07T03:00")
        #expect(
            result.edits == [
                move(
                    "E6", "English reading", ("2025-01-06T10:00", "2025-01-06T11:00"),
                    ("2025-01-07T10:00", "2025-01-07T11:00"), .makeUp),
                move(
                    "E7", "English reading", ("2025-01-07T10:00", "2025-01-07T11:00"),
                    ("2025-01-08T10:00", "2025-01-08T11:00"), .chainShift),
                move(
                    "E8", "English reading", ("2025-01-08T10:00", "2025-01-08T11:00"),
                    ("2025-01-09T10:00", "2025-01-09T11:00"), .chainShift),
                move(
                    "E9", "English reading", ("2025-01-09T10:00", "2025-01-09T11:00"),
                    ("2025-01-10T10:00", "2025-01-10T11:00"), .chainShift),
                move(
                    "E10", "English reading", ("2025-01-10T10:00", "2025-01-10T11:00"),
                    ("2025-01-13T10:00", "2025-01-13T11:00"), .chainShift),
            ])
        #expect(result.summary == PlanSummary(dropped: 0, rescheduled: 5, chained: 5))
        expectGuarantees(WorkedExamples.englishWeek(), result, at: "2025-01-07T03:00")
    }

    /// docs/planning.md §9.3.
    @Test func example3_twoMissedDays_shiftByTwoAndContinueAfterTheWeekend() {
        let result = Fx.postpone(WorkedExamples.englishWeek(), at: "2025-01-08T03:00")
        #expect(
            result.edits == [
                move(
                    "E6", "English reading", ("2025-01-06T10:00", "2025-01-06T11:00"),
                    ("2025-01-08T10:00", "2025-01-08T11:00"), .makeUp),
                move(
                    "E7", "English reading", ("2025-01-07T10:00", "2025-01-07T11:00"),
                    ("2025-01-09T10:00", "2025-01-09T11:00"), .chainShift),
                move(
                    "E8", "English reading", ("2025-01-08T10:00", "2025-01-08T11:00"),
                    ("2025-01-10T10:00", "2025-01-10T11:00"), .chainShift),
                move(
                    "E9", "English reading", ("2025-01-09T10:00", "2025-01-09T11:00"),
                    ("2025-01-13T10:00", "2025-01-13T11:00"), .chainShift),
                move(
                    "E10", "English reading", ("2025-01-10T10:00", "2025-01-10T11:00"),
                    ("2025-01-14T10:00", "2025-01-14T11:00"), .chainShift),
            ])
        #expect(result.summary == PlanSummary(dropped: 0, rescheduled: 5, chained: 5))
        expectGuarantees(WorkedExamples.englishWeek(), result, at: "2025-01-08T03:00")
    }

    /// docs/planning.md §9.4.
    @Test func example4_mixedWeek_dropRescheduleAndChainAroundTheClub() {
        let plan = WorkedExamples.example4()
        let result = Fx.postpone(plan, at: "2025-01-07T03:00")
        #expect(
            result.edits == [
                PlanEdit(
                    op: .delete, id: id("old"), title: "Old reading",
                    before: range("2024-12-28T10:00", "2024-12-28T11:00"), after: nil, reason: .droppedStale),
                move(
                    "report", "Write report", ("2025-01-04T15:00", "2025-01-04T17:00"),
                    ("2025-01-07T15:00", "2025-01-07T17:00"), .rescheduled),
                move(
                    "phy-mon", "Physics", ("2025-01-06T14:00", "2025-01-06T15:00"),
                    ("2025-01-07T14:00", "2025-01-07T15:00"), .makeUp),
                move(
                    "phy-tue", "Physics", ("2025-01-07T14:00", "2025-01-07T15:00"),
                    ("2025-01-08T13:00", "2025-01-08T14:00"), .chainShift),
            ])
        #expect(result.summary == PlanSummary(dropped: 1, rescheduled: 3, chained: 2))
        #expect(result.plan.tasks["old"] == nil)
        #expect(result.place("phy-thu") == range("2025-01-09T14:00", "2025-01-09T15:00"))
        #expect(result.place("phy-fri") == range("2025-01-10T14:00", "2025-01-10T15:00"))
        #expect(result.place("club") == range("2025-01-08T14:00", "2025-01-08T16:00"))
        expectGuarantees(plan, result, at: "2025-01-07T03:00")
    }

    /// docs/planning.md §9.5.
    @Test func example5_courseSeries_theMissedSessionIsAppendedAfterTheEnd() {
        let vocab = WorkedExamples.vocab
        #expect(vocab.repeatRule?.effectiveMissed == .shift)
        let plan = WorkedExamples.example5()
        let result = Fx.postpone(plan, at: "2025-01-07T03:00")
        #expect(
            result.edits == [
                move(
                    "vocab@2025-01-06", "Vocab", ("2025-01-06T20:00", "2025-01-06T20:30"),
                    ("2025-02-01T20:00", "2025-02-01T20:30"),
                    .seriesShift)
            ])
        #expect(result.summary == PlanSummary(dropped: 0, rescheduled: 1, chained: 1))
        #expect(result.plan.allSlides.isEmpty)
        #expect(result.plan.tasks["vocab"] == vocab)
        #expect(result.place("vocab@2025-01-07") == range("2025-01-07T20:00", "2025-01-07T20:30"))
        #expect(result.place("vocab@2025-01-31") == range("2025-01-31T20:00", "2025-01-31T20:30"))
        for day in 1...5 {
            let o = result.plan.occurrence(id("vocab@2025-01-0\(day)"))!
            #expect(o.state == .completed)
            #expect(TimeRange(o) == range("2025-01-0\(day)T20:00", "2025-01-0\(day)T20:30"))
        }
        expectGuarantees(plan, result, at: "2025-01-07T03:00")
    }

    /// docs/planning.md §9.6.
    @Test func example6_lateRun_todaysSlotHasPassedSoTheCourseStartsTomorrow() {
        let plan = WorkedExamples.example6()
        let result = Fx.postpone(plan, at: "2025-01-07T23:30")
        #expect(
            result.edits
                == (1...5).map { part in
                    let from = date("2025-01-05").adding(days: part - 1)
                    let to = date("2025-01-08").adding(days: part - 1)
                    return move(
                        "LA\(part)", "Linear algebra [\(part)/5]", ("\(from)T10:00", "\(from)T11:00"),
                        ("\(to)T10:00", "\(to)T11:00"),
                        part == 1 ? .makeUp : .chainShift)
                })
        #expect(result.summary == PlanSummary(dropped: 0, rescheduled: 5, chained: 5))
        expectGuarantees(plan, result, at: "2025-01-07T23:30")
    }

    /// docs/planning.md §9.7.
    @Test func example7_cascade_theNextRunAfterAFreeDayIsPushedAlong() {
        let plan = WorkedExamples.example7()
        let result = Fx.postpone(plan, at: "2025-01-08T03:00")
        #expect(
            result.edits == [
                move(
                    "R06", "Reading", ("2025-01-06T18:00", "2025-01-06T19:00"),
                    ("2025-01-08T18:00", "2025-01-08T19:00"), .makeUp),
                move(
                    "R07", "Reading", ("2025-01-07T18:00", "2025-01-07T19:00"),
                    ("2025-01-09T18:00", "2025-01-09T19:00"), .chainShift),
                move(
                    "R08", "Reading", ("2025-01-08T18:00", "2025-01-08T19:00"),
                    ("2025-01-10T18:00", "2025-01-10T19:00"), .chainShift),
                move(
                    "R10", "Reading", ("2025-01-10T18:00", "2025-01-10T19:00"),
                    ("2025-01-11T18:00", "2025-01-11T19:00"), .chainShift),
            ])
        #expect(result.summary == PlanSummary(dropped: 0, rescheduled: 4, chained: 4))
        expectGuarantees(plan, result, at: "2025-01-08T03:00")
    }

    /// docs/planning.md §9.8.
    @Test func example8_habit_aMissedDayIsSkipped() {
        #expect(WorkedExamples.stretch.repeatRule?.effectiveMissed == .skip)
        let plan = WorkedExamples.example8()
        let result = Fx.postpone(plan, at: "2025-01-07T03:00")
        #expect(
            result.edits == [
                PlanEdit(
                    op: .skip, id: id("stretch@2025-01-06"), title: "Stretch",
                    before: range("2025-01-06T07:00", "2025-01-06T07:15"), after: nil, reason: .missed)
            ])
        #expect(result.summary == PlanSummary(skipped: 1))
        #expect(result.plan.occurrence(id("stretch@2025-01-06"))?.state == .skipped)
        expectGuarantees(plan, result, at: "2025-01-07T03:00")
    }

    /// docs/planning.md §9.9.
    @Test func example9_weeklyLesson_madeUpBeforeTheNextOne() {
        #expect(WorkedExamples.piano.repeatRule?.effectiveMissed == .makeUp)
        let plan = WorkedExamples.example9()
        let result = Fx.postpone(plan, at: "2025-01-08T03:00")
        #expect(
            result.edits == [
                move(
                    "piano@2025-01-07", "Piano lesson", ("2025-01-07T18:00", "2025-01-07T19:00"),
                    ("2025-01-08T18:00", "2025-01-08T19:00"),
                    .rescheduled)
            ])
        #expect(result.summary == PlanSummary(dropped: 0, rescheduled: 1, chained: 0))
        expectGuarantees(plan, result, at: "2025-01-08T03:00")
    }
}
