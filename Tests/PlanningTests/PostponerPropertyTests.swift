import Foundation
import ReplanTestSupport
import Testing

@testable import Planning

/// The guarantees of docs/planning.md §3 (G1–G8), checked by `GuaranteeChecker` on a seeded
/// population of adversarial students: every family of `StudentFamily` in turn, runs at 03:00,
/// noon, 23:30 and at random minutes, DST nights in six zones. A failure names the seed and the
/// family, so it can be replayed alone with `PLANNING_PROPERTY_FIRST_SEED` and
/// `PLANNING_PROPERTY_USERS=1`.
@Suite struct PostponerPropertyTests {
    /// 480 students (40 of each family) keep the suite at a few seconds in debug builds; set
    /// `PLANNING_PROPERTY_USERS` for the slower, deeper run (e.g. 20000).
    static let userCount = Int(ProcessInfo.processInfo.environment["PLANNING_PROPERTY_USERS"] ?? "") ?? 480
    static let firstSeed = UInt64(ProcessInfo.processInfo.environment["PLANNING_PROPERTY_FIRST_SEED"] ?? "") ?? 0

    @Test func everyNightKeepsTheGuarantees() {
        var failures: [String] = []
        var totals: [String: Int] = [:]
        for seed in Self.firstSeed..<(Self.firstSeed + UInt64(Self.userCount)) {
            var generator = StudentGenerator(seed: seed)
            let (family, plan, now) = generator.makeStudent()
            let result = Postponer(now: now).postpone(plan)
            let breaches = GuaranteeChecker(now: now).check(
                before: plan, after: result.plan, edits: result.edits,
                summary: result.summary)
            if !breaches.isEmpty {
                if ProcessInfo.processInfo.environment["PLANNING_PROPERTY_VERBOSE"] != nil {
                    print("seed \(seed) \(family) now \(result.now)")
                    for t in plan.sortedTasks {
                        print(
                            "  task \(t.id) [\(t.category)] '\(t.title)' \(t.start)–\(t.end) \(t.completed ? "done" : "")",
                            t.repeatRule.map {
                                "\($0.every) until \($0.until?.description ?? "-") \($0.effectiveMissed)"
                            } ?? "")
                    }
                    for o in plan.allOverrides {
                        print("  mark \(o.occurrenceID) \(o.state) \(o.start?.description ?? "")")
                    }
                    for e in result.edits {
                        print(
                            "  edit \(e.op) \(e.id) \(e.reason) \(String(describing: e.before)) → \(String(describing: e.after))"
                        )
                    }
                    for f in result.flags { print("  flag \(f.id) \(f.kind)") }
                }
                failures.append(
                    "seed \(seed) \(family) (\(plan.zone), now \(result.now)):\n  "
                        + breaches.prefix(6).map(\.description).joined(separator: "\n  "))
            }
            totals["students", default: 0] += 1
            totals["edits", default: 0] += result.edits.count
            totals["dropped", default: 0] += result.summary.dropped
            totals["skipped", default: 0] += result.summary.skipped
            totals["chained", default: 0] += result.summary.chained
            totals["series-shift", default: 0] += result.edits.filter { $0.reason == .seriesShift }.count
            totals["flags", default: 0] += result.flags.count
            totals["splits", default: 0] += result.edits.filter { $0.op == .create }.count
        }
        #expect(
            failures.isEmpty,
            "\(failures.count) students breach a guarantee:\n\(failures.prefix(8).joined(separator: "\n"))")
        // The population must exercise what it claims to: a generator that stopped making
        // missed sessions would pass every check above.
        guard Self.userCount >= 480 else { return }
        let scale = Self.userCount / 480
        #expect(totals["chained", default: 0] > 200 * scale, "\(totals)")
        #expect(totals["dropped", default: 0] > 50 * scale, "\(totals)")
        #expect(totals["skipped", default: 0] > 20 * scale, "\(totals)")
        #expect(totals["series-shift", default: 0] > 20 * scale, "\(totals)")
        #expect(totals["flags", default: 0] > 10 * scale, "\(totals)")
        #expect(totals["splits", default: 0] > 5 * scale, "\(totals)")
    }

    /// The checker itself: a night that breaks a guarantee is caught (a checker that finds
    /// nothing would make the test above pass for nothing).
    @Test func theCheckerCatchesEachKindOfBreach() {
        let plan = Fx.plan(
            [
                Fx.task("a", "Math [1/2]", "2025-01-06T10:00", "2025-01-06T11:00"),
                Fx.task("b", "Math [2/2]", "2025-01-08T10:00", "2025-01-08T11:00"),
                Fx.task("c", "Club", "2025-01-09T10:00", "2025-01-09T11:00", category: "Club"),
                Fx.task("d", "Done", "2025-01-05T10:00", "2025-01-05T11:00", completed: true),
            ], settings: Fx.settings(enabled: false))
        let now = Fx.taipei.instant(at("2025-01-07T03:00"))
        let checker = GuaranteeChecker(now: now)
        func breaches(_ edit: (inout UserPlan) -> Void, edits: [PlanEdit]) -> Set<String> {
            var after = plan
            edit(&after)
            return Set(
                checker.check(
                    before: plan, after: after, edits: edits, summary: PlanSummary(edits: edits),
                    checkIdempotence: false
                ).map(\.guarantee))
        }
        let move = { (id: String, from: TimeRange, to: TimeRange) in
            PlanEdit(op: .move, id: ReplanTestSupport.id(id), title: "", before: from, after: to, reason: .rescheduled)
        }
        // a onto the club: G1.
        #expect(
            breaches(
                { $0.move(id("a"), start: at("2025-01-09T10:30"), end: at("2025-01-09T11:30")) },
                edits: [
                    move(
                        "a", range("2025-01-06T10:00", "2025-01-06T11:00"),
                        range("2025-01-09T10:30", "2025-01-09T11:30"))
                ]
            ).contains("G1"))
        // a after b: G2.
        #expect(
            breaches(
                { $0.move(id("a"), start: at("2025-01-10T10:00"), end: at("2025-01-10T11:00")) },
                edits: [
                    move(
                        "a", range("2025-01-06T10:00", "2025-01-06T11:00"),
                        range("2025-01-10T10:00", "2025-01-10T11:00"))
                ]
            ).contains("G2"))
        // a moved without an edit: G5; into the past: G7.
        #expect(
            breaches(
                { $0.move(id("a"), start: at("2025-01-07T01:00"), end: at("2025-01-07T02:00")) },
                edits: []) == ["G5"])
        #expect(
            breaches(
                { $0.move(id("a"), start: at("2025-01-07T01:00"), end: at("2025-01-07T02:00")) },
                edits: [
                    move(
                        "a", range("2025-01-06T10:00", "2025-01-06T11:00"),
                        range("2025-01-07T01:00", "2025-01-07T02:00"))
                ]
            ).contains("G7"))
        // the completed one moved: G3; a deleted: G4.
        #expect(
            breaches(
                { $0.move(id("d"), start: at("2025-01-07T12:00"), end: at("2025-01-07T13:00")) },
                edits: [
                    move(
                        "d", range("2025-01-05T10:00", "2025-01-05T11:00"),
                        range("2025-01-07T12:00", "2025-01-07T13:00"))
                ]
            ).contains("G3"))
        #expect(
            breaches(
                { $0.deleteTask("a") },
                edits: [
                    PlanEdit(
                        op: .delete, id: id("a"), title: "", before: nil, after: nil,
                        reason: .rescheduled)
                ]
            ).contains("G4"))
        // G6: the windows on, a placement at 23:00.
        let windowed = Fx.plan([Fx.task("a", "Essay", "2025-01-06T10:00", "2025-01-06T11:00")])
        var late = windowed
        late.move(id("a"), start: at("2025-01-07T23:00"), end: at("2025-01-08T00:00"))
        let lateEdits = [
            move(
                "a", range("2025-01-06T10:00", "2025-01-06T11:00"), range("2025-01-07T23:00", "2025-01-08T00:00"))
        ]
        #expect(
            checker.check(
                before: windowed, after: late, edits: lateEdits, summary: PlanSummary(edits: lateEdits),
                checkIdempotence: false
            ).map(\.guarantee) == ["G6"])
        // G8: a result the rules would change again.
        #expect(
            checker.check(before: plan, after: plan, edits: [], summary: PlanSummary()).map(\.guarantee).contains("G8"))
    }
}
