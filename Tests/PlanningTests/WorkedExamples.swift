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
}
