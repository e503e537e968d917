import Foundation
import ReplanTestSupport

@testable import Planning

/// The plans of the worked examples (docs/planning.md §9 and §11.9), one function each, shared
/// by the tests of the rules (`PostponerWorkedExampleTests`, `PostponerVersion3ExampleTests`)
/// and of the notes that tell the student about them (`MorningNoteTests`).
enum WorkedExamples {
    /// §9.1: "Math [1/4]" … "[4/4]" Wed 1/1 … Sat 1/4, no windows; run Thu 1/2 03:00.
    static func example1() -> UserPlan {
        Fx.plan(
            [
                Fx.task("A", "Math [1/4]", "2025-01-01T09:00", "2025-01-01T10:00"),
                Fx.task("B", "Math [2/4]", "2025-01-02T09:00", "2025-01-02T10:00"),
                Fx.task("C", "Math [3/4]", "2025-01-03T09:00", "2025-01-03T10:00"),
                Fx.task("D", "Math [4/4]", "2025-01-04T09:00", "2025-01-04T10:00"),
            ], settings: Fx.settings(enabled: false))
    }

    /// §9.2 and §9.3: "English reading" Mon 1/6 … Fri 1/10 10:00–11:00, windows Mon–Fri
    /// 09:00–17:00; run Tue 1/7 (Mon missed) or Wed 1/8 (Mon and Tue missed) 03:00.
    static func englishWeek() -> UserPlan {
        Fx.plan(
            (6...10).map { day in
                Fx.task(
                    "E\(day)", "English reading", "2025-01-\(day < 10 ? "0" : "")\(day)T10:00",
                    "2025-01-\(day < 10 ? "0" : "")\(day)T11:00", category: "English")
            })
    }

    /// §9.4: a mixed week; run Tue 1/7 03:00.
    static func example4() -> UserPlan {
        Fx.plan([
            Fx.task("phy-mon", "Physics", "2025-01-06T14:00", "2025-01-06T15:00", category: "Physics"),
            Fx.task("phy-tue", "Physics", "2025-01-07T14:00", "2025-01-07T15:00", category: "Physics"),
            Fx.task("phy-thu", "Physics", "2025-01-09T14:00", "2025-01-09T15:00", category: "Physics"),
            Fx.task("phy-fri", "Physics", "2025-01-10T14:00", "2025-01-10T15:00", category: "Physics"),
            Fx.task("club", "Club", "2025-01-08T14:00", "2025-01-08T16:00", category: "社團"),
            Fx.task("report", "Write report", "2025-01-04T15:00", "2025-01-04T17:00", category: "作業"),
            Fx.task("old", "Old reading", "2024-12-28T10:00", "2024-12-28T11:00", category: "Reading"),
        ])
    }

    /// §9.5's daily course series "Vocab" 1/1–1/31, 1/1–1/5 completed; run Tue 1/7 03:00.
    static let vocab = Fx.task(
        "vocab", "Vocab", "2025-01-01T20:00", "2025-01-01T20:30", category: "English",
        repeat: RepeatRule(every: .daily, until: date("2025-01-31")))

    static func example5() -> UserPlan {
        Fx.plan([vocab], overrides: (1...5).map { Fx.completed("vocab", "2025-01-0\($0)") })
    }

    /// §9.6: "Linear algebra [1/5]" … "[5/5]" Sun 1/5 … Thu 1/9, no windows; run Tue 1/7 23:30.
    static func example6() -> UserPlan {
        Fx.plan(
            (1...5).map { part in
                let day = "2025-01-\(String(format: "%02d", 4 + part))"
                return Fx.task(
                    "LA\(part)", "Linear algebra [\(part)/5]", "\(day)T10:00", "\(day)T11:00", category: "Math")
            }, settings: Fx.settings(enabled: false))
    }

    /// §9.7: "Reading" Mon, Tue, Wed and Fri, no windows; run Wed 1/8 03:00.
    static func example7() -> UserPlan {
        let days = ["2025-01-06", "2025-01-07", "2025-01-08", "2025-01-10"]
        return Fx.plan(
            days.map { Fx.task("R\($0.suffix(2))", "Reading", "\($0)T18:00", "\($0)T19:00", category: "English") },
            settings: Fx.settings(enabled: false))
    }

    /// §9.8's habit "Stretch" from 1/1, 1/1–1/5 completed; run Tue 1/7 03:00.
    static let stretch = Fx.task(
        "stretch", "Stretch", "2025-01-01T07:00", "2025-01-01T07:15", category: "Health",
        repeat: RepeatRule(every: .daily))

    static func example8() -> UserPlan {
        Fx.plan([stretch], overrides: (1...5).map { Fx.completed("stretch", "2025-01-0\($0)") })
    }

    /// §9.9's weekly "Piano lesson" from Tue 1/7; run Wed 1/8 03:00.
    static let piano = Fx.task(
        "piano", "Piano lesson", "2025-01-07T18:00", "2025-01-07T19:00", category: "Music",
        repeat: RepeatRule(every: .weekly, until: date("2025-03-25")))

    static func example9() -> UserPlan { Fx.plan([piano], settings: Fx.settings(enabled: false)) }

    /// §11.9 example 11: "Lab [1/3]" … "[3/3]" and "Linear algebra", no windows; run Tue 1/7 03:00.
    static func example11() -> UserPlan {
        Fx.plan(
            [
                Fx.task("l1", "Lab [1/3]", "2025-01-06T14:15", "2025-01-06T15:15"),
                Fx.task("l2", "Lab [2/3]", "2025-01-07T14:15", "2025-01-07T15:15"),
                Fx.task("l3", "Lab [3/3]", "2025-01-08T14:15", "2025-01-08T15:15"),
                Fx.task("la", "Linear algebra", "2025-01-07T14:30", "2025-01-07T15:30"),
            ], settings: Fx.settings(enabled: false))
    }

    /// §11.9 examples 10 and 13: "Essay [1/3]" Mon 1/6, "[2/3]" Wed 1/8, "[3/3]" Fri 1/10,
    /// windows Mon–Fri 09:00–17:00; run Tue 1/7 03:00.
    static func essay() -> UserPlan {
        Fx.plan([
            Fx.task("e1", "Essay [1/3]", "2025-01-06T16:00", "2025-01-06T17:00"),
            Fx.task("e2", "Essay [2/3]", "2025-01-08T16:00", "2025-01-08T17:00"),
            Fx.task("e3", "Essay [3/3]", "2025-01-10T16:00", "2025-01-10T17:00"),
        ])
    }

    /// §11.9 example 12: the daily habit "Geography quiz" (1/1–1/6 completed) and a one-off
    /// "Geography quiz" Mon 1/6 15:00–15:30, no windows; run Tue 1/7 03:00.
    static func example12() -> UserPlan {
        let habit = Fx.task(
            "quiz", "Geography quiz", "2025-01-01T19:00", "2025-01-01T19:30", category: "Geography",
            repeat: RepeatRule(every: .daily))
        let extra = Fx.task(
            "extra", "Geography quiz", "2025-01-06T15:00", "2025-01-06T15:30", category: "Geography")
        return Fx.plan(
            [habit, extra], settings: Fx.settings(enabled: false),
            overrides: (1...6).map { Fx.completed("quiz", "2025-01-0\($0)") })
    }

    /// §11.9 example 13: example 10's night, then [1/3] completed on Tue; the plan the night of
    /// Wed 1/8 03:00 reads.
    static func example13() -> UserPlan {
        var tuesday = Fx.postpone(essay(), at: "2025-01-07T03:00").plan
        var done = tuesday.tasks["e1"]!
        done.completed = true
        tuesday.put(done)
        return tuesday
    }
}
