import Foundation
import Nightly
import Planning
import ReplanTestSupport
import Store
import Testing

/// Issue 21, faults: a night whose connections the server drops (a restart, a failover) commits
/// nothing half-done for the student in flight, and the next run picks up the rest.
@Suite(.enabled(if: EngineUnderTest.engines.contains(.postgresql)))
struct PostgresFaultTests {
    /// A model stage that, for one student, has the server drop every other connection of the
    /// database, as a restart does.
    struct ServerDropsConnections: ModelReviewer {
        let url: String
        let victim: String
        func review(_ working: UserPlan, local: PostponementResult, now: Date) -> ModelReview {
            if working.user.id == victim, let admin = try? PostgresConnection.connect(url) {
                _ = try? admin.execute(
                    """
                    SELECT pg_terminate_backend(pid) FROM pg_stat_activity
                    WHERE datname = current_database() AND pid <> pg_backend_pid()
                    """, [])
            }
            return ModelReview(plan: working, ending: .endConversation, requests: 1, turns: 1)
        }
    }

    @Test func aLostConnectionMidNightLeavesWholeStudentsAndTheNextRunFinishes() throws {
        let f = try NightlyFixture(engine: .postgresql)
        try f.addStudents(6, instruction: "two hours of English every weekday")
        var options = RunOptions(now: NightlyFixture.now)
        options.concurrency = 1
        let first = Result {
            try NightlyRunner(
                databasePath: f.path,
                pipeline: UserPipeline(reviewer: ServerDropsConnections(url: f.path, victim: "s3")),
                options: options
            ).run()
        }
        // Whatever the run reported, every student is whole: moved with a changeset and a user
        // run, or untouched.
        let db = try f.connect()
        for i in 0..<6 {
            let moved =
                try db.queryFirst(
                    "SELECT count(*) FROM tasks WHERE user_id = ? AND start <> '2025-01-06T10:00' AND id = ?",
                    [.text("s\(i)"), .text("s\(i)-eng-0")]
                ) { $0.int(0) } ?? 0
            let changesets =
                try db.queryFirst(
                    "SELECT count(*) FROM changesets WHERE user_id = ? AND origin = 'nightly'", [.text("s\(i)")]
                ) { $0.int(0) } ?? 0
            #expect(moved == changesets, "s\(i): moved \(moved), changesets \(changesets), run \(first)")
        }
        let second = try NightlyRunner(
            databasePath: f.path, pipeline: UserPipeline(reviewer: nil), options: options
        ).run()
        #expect(second.failed == 0, "\(second)")
        let nightly = try db.queryFirst("SELECT count(DISTINCT user_id) FROM changesets WHERE origin = 'nightly'", []) {
            $0.int(0)
        }
        #expect(nightly == 6, "every student planned once over the two runs")
    }
}
