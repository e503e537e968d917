import Foundation
import Nightly
import Planning
import ReplanTestSupport
import Store
import Testing

/// The guarantees of docs/planning.md §3 through the whole nightly job, not only the rules: each
/// generated student (every adversarial family of `StudentGenerator`) is stored in a database
/// of their own, two nights are run with `NightlyRunner` (the first reads the whole plan, the
/// second only the window around its day), and after each the plan read back from the
/// database, the changeset's listed edits and its summary go through `GuaranteeChecker`. What
/// the loader leaves out, the differ misses or the commit writes differently shows up here.
@Suite struct NightGuaranteeTests {
    static let studentCount = Int(ProcessInfo.processInfo.environment["NIGHTLY_PROPERTY_USERS"] ?? "") ?? 60

    @Test(arguments: EngineUnderTest.engines) func twoNightsThroughTheDatabaseKeepTheGuarantees(
        _ engine: DatabaseEngine
    ) throws {
        var failures: [String] = []
        var changed = 0
        for seed in 0..<UInt64(Self.studentCount) {
            var generator = StudentGenerator(seed: 50_000 + seed)
            let (family, plan, now) = generator.makeStudent()
            let f = try NightlyFixture(engine: engine)
            let db = try f.connect()
            try UserRepository(db).add(plan.user, now: now.addingTimeInterval(-86_400 * 60))
            _ = try UserRepository(db).saveSettings(plan.settings, for: plan.user.id)
            let changes = PlanDiff.changes(
                from: UserPlan(user: plan.user, tasks: []), to: plan,
                now: now.addingTimeInterval(-86_400 * 60)
            ) { _, _ in "import" }
            _ = try ChangesetStore(db).commit(
                NewChangeset(
                    userID: plan.user.id, origin: .import, planDate: nil,
                    createdAt: now.addingTimeInterval(-86_400 * 60), changes: changes))
            for night in 0..<2 {
                let at = now.addingTimeInterval(Double(night) * 86_400)
                let before = try PlanRepository(db).loadPlan(userID: plan.user.id, window: nil)
                var options = RunOptions(now: at)
                options.force = true
                options.concurrency = 1
                let report = try NightlyRunner(
                    databasePath: f.path, pipeline: UserPipeline(reviewer: nil), options: options
                ).run()
                let after = try PlanRepository(db).loadPlan(userID: plan.user.id, window: nil)
                var edits: [PlanEdit] = []
                var summary = PlanSummary()
                if report.changed > 0 {
                    changed += 1
                    let id = try #require(
                        try db.queryFirst(
                            "SELECT id FROM changesets WHERE origin = 'nightly' ORDER BY created_at DESC, \(engine == .sqlite ? "rowid" : "seq") DESC",
                            []
                        ) { $0.text(0) })
                    let record = try ChangesetStore(db).changeset(ChangesetID(id))
                    edits = (record.report["edits"]?.arrayValue ?? []).compactMap(EditReport.edit(from:))
                    let s = record.report["summary"]
                    summary = PlanSummary(
                        dropped: s?["dropped"]?.intValue ?? 0, skipped: s?["skipped"]?.intValue ?? 0,
                        rescheduled: s?["rescheduled"]?.intValue ?? 0, chained: s?["chained"]?.intValue ?? 0)
                }
                let breaches = GuaranteeChecker(now: at).check(
                    before: before, after: after, edits: edits, summary: summary)
                if report.failed > 0 || !breaches.isEmpty {
                    failures.append(
                        "seed \(50_000 + seed) \(family) night \(night + 1): failed \(report.failed); "
                            + breaches.prefix(4).map(\.description).joined(separator: "; "))
                }
            }
        }
        #expect(failures.isEmpty, "\(failures.count) nights:\n\(failures.prefix(8).joined(separator: "\n"))")
        #expect(changed > Self.studentCount / 2, "the population must give the nights something to do")
    }
}
