import Foundation
import JSON
import Nightly
import Planning
import ReplanTestSupport
import Store
import Testing

/// Issue 21's property: the same population on SQLite and on PostgreSQL, taken through two
/// nights with students' edits between them, an undo and a redo, ends byte for byte the same:
/// every `export` document and every changeset (its id aside) with its edits' images.
@Suite(.enabled(if: EngineUnderTest.engines.contains(.postgresql)))
struct EngineEquivalenceTests {
    static let studentCount = Int(ProcessInfo.processInfo.environment["ENGINE_PROPERTY_USERS"] ?? "") ?? 16

    /// Everything a person or a consumer could read back, in a stable order.
    struct Observed: Equatable {
        var exports: [String]
        var changesets: [String]
        var outbox: [String]
    }

    static func scenario(_ engine: DatabaseEngine, plans: [(UserPlan, Date)], role: Int) throws -> Observed {
        let f = try NightlyFixture(engine: engine)
        let db = try f.connect()
        let imported = plans.map(\.1).min() ?? NightlyFixture.now
        let start = imported.addingTimeInterval(-86_400 * 60)
        for (plan, _) in plans {
            try UserRepository(db).add(plan.user, now: start)
            _ = try UserRepository(db).saveSettings(plan.settings, for: plan.user.id)
            let changes = PlanDiff.changes(from: UserPlan(user: plan.user, tasks: []), to: plan, now: start) { _, _ in
                "import"
            }
            _ = try ChangesetStore(db).commit(
                NewChangeset(userID: plan.user.id, origin: .import, planDate: nil, createdAt: start, changes: changes))
        }
        let now = plans.map(\.1).max() ?? NightlyFixture.now
        func night(_ at: Date) throws {
            var options = RunOptions(now: at)
            options.force = true
            options.concurrency = 1
            _ = try NightlyRunner(databasePath: f.path, pipeline: UserPipeline(reviewer: nil), options: options).run()
        }
        try night(now)
        // Between the nights every third student completes the first open session of the plan.
        let database = try f.database()
        for (plan, _) in plans where role % 3 == 0 {
            let editor = ManualEditor(database: database, userID: plan.user.id, now: now.addingTimeInterval(3_600))
            let original = try editor.loadPlan()
            guard let task = original.sortedTasks.first(where: { $0.repeatRule == nil && !$0.completed }) else {
                continue
            }
            let working = try editor.completing(OccurrenceID(taskID: task.id), in: original)
            _ = try editor.commit(original: original, working: working)
        }
        try night(now.addingTimeInterval(86_400))
        // Every fourth student's second night is undone; every eighth is redone after that.
        let later = now.addingTimeInterval(86_400 + 3_600)
        for (plan, _) in plans where role % 4 == 0 {
            let ids = try db.query(
                "SELECT id FROM changesets WHERE user_id = ? AND origin = 'nightly' ORDER BY created_at DESC",
                [
                    .text(plan.user.id)
                ]
            ) { ChangesetID($0.text(0)) }
            guard let last = ids.first else { continue }
            let undo = ChangesetReversal(database: database, direction: .undo, retentionDays: nil)
            _ = try undo.perform(undo.load(last), force: false, now: later)
            if role % 8 == 0 {
                let redo = ChangesetReversal(database: database, direction: .redo, retentionDays: nil)
                _ = try redo.perform(redo.load(last), force: false, now: later)
            }
        }
        let exporter = Exporter(database: database)
        return Observed(
            exports: try plans.map { try exporter.document(userID: $0.0.user.id).prettyText },
            changesets: try db.query(
                """
                SELECT c.user_id, c.origin, c.state, c.plan_date, c.created_at, c.summary, c.report,
                       e.seq, e.entity, e.entity_key, e.before, e.after, e.reason
                FROM changesets c JOIN changeset_edits e ON e.changeset_id = c.id
                ORDER BY c.user_id, c.created_at, c.origin, e.seq
                """, []
            ) { s in (0..<13).map { s.optionalText($0) ?? "null" }.joined(separator: "|") },
            outbox: try db.query(
                "SELECT user_id, occurrence_id, fire_at, action, created_at FROM notification_outbox ORDER BY id", []
            ) { s in (0..<5).map { s.text($0) }.joined(separator: "|") })
    }

    @Test func twoNightsEditsAnUndoAndARedoEndTheSameOnBothEngines() throws {
        // Generated students share one id, so each lives in a database pair of their own; the
        // index of a student in the population decides their edits, undo and redo.
        var edits = 0
        var differing: [String] = []
        for seed in 0..<UInt64(Self.studentCount) {
            var generator = StudentGenerator(seed: 70_000 + seed)
            let (family, plan, now) = generator.makeStudent()
            let role = Int(seed)
            let sqlite = try Self.scenario(.sqlite, plans: [(plan, now)], role: role)
            let postgres = try Self.scenario(.postgresql, plans: [(plan, now)], role: role)
            edits += sqlite.changesets.count
            if sqlite != postgres {
                let edit = zip(sqlite.changesets, postgres.changesets).first { $0 != $1 }
                differing.append(
                    "seed \(70_000 + seed) \(family): exports \(sqlite.exports == postgres.exports ? "same" : "differ"), "
                        + "edits \(sqlite.changesets.count)/\(postgres.changesets.count), outbox "
                        + "\(sqlite.outbox == postgres.outbox ? "same" : "differs")"
                        + (edit.map { "\n  SQLite     \($0.0.prefix(300))\n  PostgreSQL \($0.1.prefix(300))" } ?? ""))
            }
        }
        #expect(edits > 2 * Self.studentCount, "the scenario must give the nights something to do")
        #expect(differing.isEmpty, "\(differing.count) students:\n\(differing.prefix(4).joined(separator: "\n"))")
    }
}
