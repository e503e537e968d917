import Foundation
import ReplanTestSupport
import Testing

@testable import Planning

/// The worked examples of the rules' version 3 (§11 examples 10–13), next to the nine of §9.
/// Runs are at 03:00 in Asia/Taipei; 2025-01-06 is a Monday. Each test checks every edit, the
/// summary and the guarantees (G1–G10; G10 where a night follows).
@Suite struct PostponerVersion3ExampleTests {
    private func expectGuarantees(_ before: UserPlan, _ result: PostponementResult, at now: String) {
        let checker = GuaranteeChecker(now: before.zone.instant(at(now)))
        let breaches = checker.check(before: before, after: result.plan, edits: result.edits, summary: result.summary)
        #expect(breaches.isEmpty, "\(breaches)")
    }

    @Test("§11 example 10: push, never pull — later parts after free days stay")
    func example10_pushNeverPull() {
        let plan = WorkedExamples.essay()
        let result = Fx.postpone(plan, at: "2025-01-07T03:00")
        #expect(
            result.edits == [
                move(
                    "e1", "Essay [1/3]", ("2025-01-06T16:00", "2025-01-06T17:00"),
                    ("2025-01-07T16:00", "2025-01-07T17:00"), .makeUp)
            ])
        #expect(result.summary == PlanSummary(rescheduled: 1, chained: 1))
        #expect(result.flags.isEmpty)
        expectGuarantees(plan, result, at: "2025-01-07T03:00")
    }

    @Test("§11 example 11: the nearest free time of the day, not a second day of shift")
    func example11_nearestFreeTimeOfTheDay() {
        let plan = WorkedExamples.example11()
        let result = Fx.postpone(plan, at: "2025-01-07T03:00")
        #expect(
            result.edits == [
                move(
                    "l1", "Lab [1/3]", ("2025-01-06T14:15", "2025-01-06T15:15"),
                    ("2025-01-07T13:30", "2025-01-07T14:30"), .makeUp),
                move(
                    "l2", "Lab [2/3]", ("2025-01-07T14:15", "2025-01-07T15:15"),
                    ("2025-01-08T14:15", "2025-01-08T15:15"), .chainShift),
                move(
                    "l3", "Lab [3/3]", ("2025-01-08T14:15", "2025-01-08T15:15"),
                    ("2025-01-09T14:15", "2025-01-09T15:15"), .chainShift),
            ])
        #expect(result.summary == PlanSummary(rescheduled: 3, chained: 3))
        expectGuarantees(plan, result, at: "2025-01-07T03:00")
    }

    @Test("§11 example 12: a habit does not block an extra session of the same name")
    func example12_habitDoesNotBlockAnExtra() {
        let plan = WorkedExamples.example12()
        let result = Fx.postpone(plan, at: "2025-01-07T03:00")
        #expect(
            result.edits == [
                move(
                    "extra", "Geography quiz", ("2025-01-06T15:00", "2025-01-06T15:30"),
                    ("2025-01-07T15:00", "2025-01-07T15:30"), .rescheduled)
            ])
        #expect(result.summary == PlanSummary(rescheduled: 1))
        #expect(result.flags.isEmpty)
        expectGuarantees(plan, result, at: "2025-01-07T03:00")
    }

    @Test("§11 example 13: the plan stays put the next night")
    func example13_thePlanStaysPut() {
        let first = Fx.postpone(WorkedExamples.essay(), at: "2025-01-07T03:00")
        var tuesday = first.plan
        tuesday.put(
            {
                var t = tuesday.tasks["e1"]!
                t.completed = true
                return t
            }())
        let second = Fx.postpone(tuesday, at: "2025-01-08T03:00")
        #expect(second.edits.isEmpty)
        #expect(second.flags.isEmpty)
        expectGuarantees(tuesday, second, at: "2025-01-08T03:00")
        let breaches = GuaranteeChecker.stability(
            dayBetween: tuesday, night: second.plan, edits: second.edits,
            now: tuesday.zone.instant(at("2025-01-08T03:00")))
        #expect(breaches.isEmpty, "\(breaches)")
    }
}
