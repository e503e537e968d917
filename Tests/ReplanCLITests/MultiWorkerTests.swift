import Foundation
import Nightly
import Planning
import ReplanTestSupport
import Store
import Testing

/// Issue 22: several `replan run` processes share one PostgreSQL night. Each student is planned
/// once, a worker killed mid-night is made good by the others, a paused worker commits nothing
/// when it wakes, SIGTERM hands claims back at once, and the result equals one SQLite run.
@Suite(.enabled(if: EngineUnderTest.engines.contains(.postgresql)), .serialized)
struct MultiWorkerTests {
    static let now = "2025-01-07T03:00:00+08:00"

    /// A SQLite database of `count` students (the five-day course missed on Monday of
    /// `addStudents`), a copy of it for the reference run, and the same data copied into a fresh
    /// PostgreSQL database with `copy-database`.
    struct Population {
        let sandbox: Sandbox
        let sqlite: TemporaryDatabase
        let reference: String
        let server: TemporaryPostgres
        /// The database's URI without its password, for command lines.
        let withoutPassword: String
        var url: String { server.url }
    }

    static func population(_ count: Int) async throws -> Population {
        let s = try Sandbox(now: now)
        let sqlite = try TemporaryDatabase()
        // The password goes in PGPASSWORD, never on a command line.
        var parts = try #require(
            URLComponents(string: try TemporaryPostgres.url(TemporaryPostgres.serverURL ?? "", database: "x")))
        s.environment["PGPASSWORD"] = parts.password
        parts.password = nil
        try sqlite.addStudents(count)
        let reference = s.path("reference.db")
        try FileManager.default.copyItem(atPath: sqlite.path, toPath: reference)
        let server = try TemporaryPostgres()
        let target = try TemporaryPostgres.url(parts.string ?? "", database: server.name)
        let copied = try await s.run(["--db", sqlite.path, "copy-database", "--to", target], timeout: 300)
        #expect(copied.code == 0, "\(copied)")
        return Population(sandbox: s, sqlite: sqlite, reference: reference, server: server, withoutPassword: target)
    }

    static func count(_ url: String, _ sql: String) throws -> Int {
        try PostgresConnection.connect(url).queryFirst(sql, []) { $0.int(0) } ?? -1
    }

    /// Waits until `sql` counts at least `target` (or `timeout` seconds pass).
    static func waitFor(_ url: String, _ sql: String, atLeast target: Int, timeout: Double = 120) async throws {
        let deadline = Date().addingTimeInterval(timeout)
        while Date() < deadline {
            if try count(url, sql) >= target { return }
            try await Task.sleep(nanoseconds: 50_000_000)
        }
    }

    /// Every student's plan and outbox rows, as text, on either engine.
    static func plans(_ db: any SQLExecutor) throws -> [String] {
        try db.query("SELECT id, user_id, start, \"end\", completed FROM tasks ORDER BY id", []) { s in
            (0..<5).map { s.text($0) }.joined(separator: " ")
        }
            + db.query(
                "SELECT user_id, occurrence_id, fire_at, action FROM notification_outbox ORDER BY user_id, occurrence_id, fire_at, action",
                []
            ) { s in (0..<4).map { s.text($0) }.joined(separator: " ") }
    }

    static func exports(_ location: String) throws -> [String] {
        let db = try ReplanDatabase.open(path: location)
        return try Roster(database: db).list().map { try Exporter(database: db).document(userID: $0.id).prettyText }
    }

    @Test func aWorkerKilledMidNightIsMadeGoodAndTheNightEqualsOneSQLiteRun() async throws {
        let p = try await Self.population(2_000)
        let reference = try await p.sandbox.run(["--db", p.reference, "run", "--no-model", "--quiet"], timeout: 300)
        #expect(reference.code == 0, "\(reference)")
        let run = ["--db", p.withoutPassword, "run", "--no-model", "--quiet", "--lease", "5", "--concurrency", "2"]
        let workers = try (0..<3).map { _ in try p.sandbox.start(run) }
        try await Self.waitFor(p.url, "SELECT count(*) FROM night_claims WHERE state = 'done'", atLeast: 500)
        workers[0].signal(SIGKILL)
        let killed = await workers[0].wait(timeout: 60)
        #expect(killed.signaled)
        for worker in workers.dropFirst() {
            let outcome = await worker.wait(timeout: 600)
            #expect(outcome.code == 0, "\(outcome)")
        }
        #expect(
            try Self.count(
                p.url,
                "SELECT count(*) FROM (SELECT user_id FROM changesets WHERE origin = 'nightly' GROUP BY user_id HAVING count(*) = 1) s"
            ) == 2_000, "every student has exactly one nightly changeset")
        #expect(try Self.count(p.url, "SELECT count(*) FROM changesets WHERE origin = 'nightly'") == 2_000)
        #expect(try Self.count(p.url, "SELECT count(*) FROM night_claims WHERE state <> 'done'") == 0)
        #expect(
            try Self.count(p.url, "SELECT count(*) FROM night_claims WHERE attempt > 1") >= 1, "a claim was rescued")
        #expect(try Self.plans(PostgresConnection.connect(p.url)) == Self.plans(Database.open(path: p.reference)))
        #expect(try Self.exports(p.url) == Self.exports(p.reference))
        // One night, one story: one log line with the night's totals over the three workers,
        // and `night` names the killed worker as lost.
        let log = try await p.sandbox.json(["--db", p.withoutPassword, "log", "--json"])
        let nights = try #require(log["nights"] as? [[String: Any]])
        #expect(nights.count == 1 && (nights.first?["runs"] as? [Int])?.count == 3, "\(nights)")
        let totals = try #require(nights.first?["totals"] as? [String: Any])
        #expect(totals["due"] as? Int == 2_000 && totals["changed"] as? Int == 2_000, "\(totals)")
        let text = try await p.sandbox.ok(["--db", p.withoutPassword, "log", "--detail", "--no-pager"])
        #expect(text.contains("3 workers") == false && text.contains("lost (its lease ran out)"), "\(text.prefix(800))")
        let night = try await p.sandbox.json(["--db", p.withoutPassword, "night", "--json"])
        let states = (night["workers"] as? [[String: Any]])?.compactMap { $0["state"] as? String }.sorted()
        #expect(states == ["lost", "stopped", "stopped"] && night["state"] as? String == "finished", "\(night)")
    }

    @Test func aWorkerPausedPastItsLeaseCommitsNothingWhenItWakes() async throws {
        let p = try await Self.population(300)
        let run = ["--db", p.withoutPassword, "run", "--no-model", "--lease", "5", "--concurrency", "1"]
        let paused = try p.sandbox.start(run)
        try await Self.waitFor(p.url, "SELECT count(*) FROM night_claims WHERE state = 'done'", atLeast: 20)
        paused.signal(SIGSTOP)
        let other = try p.sandbox.start(run)
        let finished = await other.wait(timeout: 600)
        #expect(finished.code == 0, "\(finished)")
        paused.signal(SIGCONT)
        let woke = await paused.wait(timeout: 120)
        #expect(
            try Self.count(p.url, "SELECT count(*) FROM changesets WHERE origin = 'nightly'") == 300,
            "each student once: \(woke.stderr)")
        #expect(finished.stderr.contains("taken over"), "the other worker says it took claims over: \(finished.stderr)")
        // Frozen between transactions, the worker wakes with claims taken over: its late commits
        // are refused and it ends normally. Frozen inside one, the server ended that session
        // after idle_in_transaction_session_timeout (releasing its locks, so the other worker
        // could go on): the woken worker's commit fails on the closed connection, and it exits
        // 73 naming the server. Either way it wrote nothing, and says why.
        if woke.code == 0 {
            #expect(woke.stderr.contains("late commit"), "the paused worker says why it wrote nothing: \(woke.stderr)")
        } else {
            #expect(woke.code == 73 && woke.stderr.contains("127.0.0.1"), "\(woke)")
        }
    }

    @Test func sigtermHandsTheClaimsBackAtOnce() async throws {
        let p = try await Self.population(300)
        let run = ["--db", p.withoutPassword, "run", "--no-model", "--lease", "3600", "--concurrency", "1"]
        let first = try p.sandbox.start(run)
        try await Self.waitFor(p.url, "SELECT count(*) FROM night_claims WHERE state = 'done'", atLeast: 10)
        first.signal(SIGTERM)
        let stopped = await first.wait(timeout: 60)
        #expect(stopped.code == 143, "\(stopped)")
        #expect(try Self.count(p.url, "SELECT count(*) FROM night_claims WHERE state = 'claimed'") == 0)
        // The next worker takes the rest as pending claims, none by waiting out a lease.
        let second = try await p.sandbox.run(run + ["--json"], timeout: 600)
        #expect(second.code == 0, "\(second)")
        #expect(
            second.stdout.contains("\"rescued\" : 0") || second.stdout.contains("\"rescued\": 0"),
            "\(second.stdout.prefix(300))")
        #expect(try Self.count(p.url, "SELECT count(*) FROM changesets WHERE origin = 'nightly'") == 300)
    }
}
