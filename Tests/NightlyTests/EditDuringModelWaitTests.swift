import Foundation
import Nightly
import Planning
import ReplanTestSupport
import Store
import Testing

/// Issue 13, item 2: a night reads the plan, then waits on the model for seconds or minutes;
/// what the student does meanwhile (an undo, a new edit) must never be overwritten by the
/// night's after-images, which were built from what it read.
@Suite struct EditDuringModelWaitTests {
    /// A model stage that, while "thinking", lets the student act on the database.
    struct StudentActsDuringReview: ModelReviewer {
        let act: @Sendable () -> Void
        func review(_ working: UserPlan, local: PostponementResult, now: Date) -> ModelReview {
            act()
            return ModelReview(plan: working, ending: .endConversation, requests: 1, turns: 1)
        }
    }

    /// The student's manual edit of one task's note (the title stays, so the night still
    /// moves the task with its course), committed as `task edit` does.
    static func annotate(_ path: String, _ taskID: String, _ note: String) throws -> ChangesetID {
        let db = try StoreLocation(path).open()
        let before = try PlanRepository(db).loadPlan(userID: "s0", window: nil)
        var after = before
        var task = try #require(before.tasks[taskID])
        task.note = note
        after.put(task)
        let changes = PlanDiff.changes(from: before, to: after, now: NightlyFixture.now) { _, _ in "manual" }
        return try ChangesetStore(db).commit(
            NewChangeset(
                userID: "s0", origin: .manual, planDate: nil,
                createdAt: NightlyFixture.now, changes: changes))
    }

    static func note(_ path: String, _ taskID: String) throws -> String? {
        try PlanRepository(try StoreLocation(path).open()).task(id: taskID)?.note
    }

    @Test(arguments: EngineUnderTest.engines) func anUndoAndANewEditDuringTheModelExchangeSurviveTheNight(
        _ engine: DatabaseEngine
    ) throws {
        let f = try NightlyFixture(engine: engine)
        try f.addStudents(1, instruction: "two hours of English every weekday")
        // Edit A before the night: the night reads the task as A left it.
        let a = try Self.annotate(f.path, "s0-eng-2", "A")
        let path = f.path
        let reviewer = StudentActsDuringReview {
            // Meanwhile the student undoes A and edits the task again.
            guard let db = try? StoreLocation(path).open() else { return }
            _ = try? ChangesetStore(db).undo(changesetID: a, now: NightlyFixture.now)
            _ = try? Self.annotate(path, "s0-eng-2", "USER-EDIT")
        }
        let report = try NightlyRunner(
            databasePath: f.path, pipeline: UserPipeline(reviewer: reviewer),
            options: RunOptions(now: NightlyFixture.now)
        ).run()
        #expect(try Self.note(f.path, "s0-eng-2") == "USER-EDIT", "the student's edit is kept")
        #expect(
            report.failed == 1 && report.changed == 0, "the night is refused as a conflict and retried later: \(report)"
        )
    }

    @Test(arguments: EngineUnderTest.engines) func anUndoAloneDuringTheModelExchangeIsNotBroughtBack(
        _ engine: DatabaseEngine
    ) throws {
        let f = try NightlyFixture(engine: engine)
        try f.addStudents(1, instruction: "two hours of English every weekday")
        let a = try Self.annotate(f.path, "s0-eng-2", "A")
        let path = f.path
        let reviewer = StudentActsDuringReview {
            guard let db = try? StoreLocation(path).open() else { return }
            _ = try? ChangesetStore(db).undo(changesetID: a, now: NightlyFixture.now)
        }
        _ = try NightlyRunner(
            databasePath: f.path, pipeline: UserPipeline(reviewer: reviewer),
            options: RunOptions(now: NightlyFixture.now)
        ).run()
        #expect(try Self.note(f.path, "s0-eng-2") == "", "the undone note stays undone")
    }

    /// Issue 21: the app's backend writes a student's edit with plain SQL on its own connection
    /// (no version of its own: the database's trigger stamps one) while the night waits on the
    /// model. The night must refuse to overwrite it, say so in its record, and the next run
    /// plans the student from the edited row.
    @Test(.enabled(if: EngineUnderTest.engines.contains(.postgresql)))
    func aBackendsPlainSQLEditDuringTheModelExchangeIsNeverOverwritten() throws {
        let f = try NightlyFixture(engine: .postgresql)
        try f.addStudents(1, instruction: "two hours of English every weekday")
        let path = f.path
        let versionBefore = try #require(
            try f.connect().queryFirst("SELECT version FROM tasks WHERE id = 's0-eng-2'", []) { $0.int(0) })
        let reviewer = StudentActsDuringReview {
            guard let backend = try? PostgresConnection.connect(path) else { return }
            _ = try? backend.execute("UPDATE tasks SET note = 'BACKEND' WHERE id = 's0-eng-2'", [])
        }
        let first = try NightlyRunner(
            databasePath: path, pipeline: UserPipeline(reviewer: reviewer), options: RunOptions(now: NightlyFixture.now)
        ).run()
        let db = try f.connect()
        let stamped = try #require(
            try db.queryFirst("SELECT version FROM tasks WHERE id = 's0-eng-2'", []) { $0.int(0) })
        #expect(stamped > versionBefore, "the trigger gave the backend's write a new version")
        #expect(try Self.note(path, "s0-eng-2") == "BACKEND")
        #expect(first.failed == 1 && first.changed == 0, "\(first)")
        let error = try db.queryFirst("SELECT error FROM user_runs WHERE user_id = 's0'", []) { $0.optionalText(0) }
        #expect(
            (error ?? nil)?.contains("s0-eng-2") == true,
            "the night's record names the row: \(String(describing: error))")
        // The next run reads the edited row and plans the student; the edit survives.
        let second = try NightlyRunner(
            databasePath: path, pipeline: UserPipeline(reviewer: StudentActsDuringReview {}),
            options: RunOptions(now: NightlyFixture.now)
        ).run()
        #expect(second.changed == 1, "\(second)")
        #expect(try Self.note(path, "s0-eng-2") == "BACKEND")
    }
}
