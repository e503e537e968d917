import Foundation
import ReplanTestSupport
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// Crash-only (docs/data-format.md §2.9): a run killed at any moment leaves each user either fully planned
/// or untouched, and the next run finishes the job exactly as an uninterrupted run would.
@Suite struct KillTests {
    static let planDate = "2025-01-07"

    /// A sandbox whose database holds `count` users, each with a missed five-day chain.
    static func manyUsers(_ count: Int) async throws -> Sandbox {
        let s = try Sandbox()
        try await s.ok(["import", s.writeJSON("users.json", Documents.manyUsers(count))])
        return s
    }

    /// Users for whom the database is not in one of the two allowed states, as readable lines:
    /// planned (one `changed` user run for the plan date, one nightly changeset, its tasks
    /// moved) or untouched (none of that).
    static func halfWritten(_ db: String) throws -> [String] {
        try SQL.rows(
            db,
            """
            WITH u AS (
              SELECT id,
                (SELECT count(*) FROM user_runs r WHERE r.user_id = users.id AND r.plan_date = '\(planDate)' AND r.status = 'changed') AS runs,
                (SELECT count(*) FROM changesets c WHERE c.user_id = users.id AND c.origin = 'nightly') AS changesets,
                (SELECT count(*) FROM user_runs r JOIN changesets c ON c.id = r.changeset_id WHERE r.user_id = users.id AND c.origin = 'nightly') AS linked,
                (SELECT count(*) FROM tasks t WHERE t.user_id = users.id AND t.start > printf('2025-01-%02dT10:00', 5 + CAST(substr(t.id, -1) AS INTEGER))) AS moved
              FROM users)
            SELECT id, runs, changesets, linked, moved FROM u
            WHERE NOT ((runs = 1 AND changesets = 1 AND linked = 1 AND moved = 5) OR (runs = 0 AND changesets = 0 AND linked = 0 AND moved = 0))
            """)
    }

    static func done(_ db: String) throws -> Int {
        try SQL.int(
            db, "SELECT count(DISTINCT user_id) FROM user_runs WHERE plan_date = '\(planDate)' AND status = 'changed'")
    }

    /// The nightly changesets' contents per user, without their ids and timestamps.
    static func nightlyEdits(_ db: String) throws -> [String] {
        try SQL.rows(
            db,
            """
            SELECT c.user_id, c.plan_date, c.state, c.summary, e.seq, e.entity, e.entity_key, e.before,
                   CASE WHEN e.after IS NULL OR e.entity = 'statistic' THEN e.after ELSE json_remove(e.after, '$.version') END, e.reason
            FROM changesets c JOIN changeset_edits e ON e.changeset_id = c.id WHERE c.origin = 'nightly'
            ORDER BY c.user_id, e.seq
            """)
    }

    @Test func killedTwentyTimesThenFinishedEqualsAnUninterruptedRun() async throws {
        let users = 200
        let s = try await Self.manyUsers(users)
        let reference = try s.copyDatabase(s.db, to: "reference.db")

        // One uninterrupted run on a copy: the expected result, and how long a run takes.
        let measured = try s.start(["run", "--no-model", "--concurrency", "4", "--db", reference])
        let full = await measured.wait()
        #expect(full.code == 0, "\(full)")
        #expect(try Self.done(reference) == users)
        // How much of that is starting up (process, database open), and how much per user.
        let idle = try s.start(["log", "--limit", "1", "--db", reference])
        _ = await idle.wait()
        let duration = measured.elapsed ?? 1
        let startup = min(idle.elapsed ?? 0, duration)
        let perUser = (duration - startup) / Double(users)

        var kills: [String] = []
        for attempt in 0..<20 {
            // A random moment of this run: it gets shorter as users are done.
            let remaining = Double(users - (try Self.done(s.db)))
            let delay = Double.random(in: 0...(startup + perUser * remaining))
            let process = try s.start(["run", "--no-model", "--concurrency", "4"])
            if attempt == 0 {
                // The first kill surely lands mid-run: right after the first user is committed.
                #expect(await process.signal(SIGKILL, whenStderrContains: "progress:"))
            } else {
                await process.signal(SIGKILL, atSeconds: delay)
            }
            let outcome = await process.wait()
            #expect(
                (outcome.signaled && outcome.code == SIGKILL) || (!outcome.signaled && outcome.code == 0), "\(outcome)")
            let done = try Self.done(s.db)
            kills.append(String(format: "%.3fs→%@%d", delay, outcome.signaled ? "killed@" : "finished@", done))
            if attempt == 0 {
                #expect(done > 0 && done < users, "the first kill came mid-run: \(done) of \(users) done")
            }
            let broken = try Self.halfWritten(s.db)
            #expect(broken.isEmpty, "after a kill at \(delay) s, users half written: \(broken.prefix(5))")
        }

        let last = try await s.run(["run", "--no-model", "--concurrency", "4"])
        #expect(last.code == 0, "\(last)")
        #expect(try SQL.value(s.db, "PRAGMA integrity_check") == "ok")
        #expect(try SQL.value(s.db, "PRAGMA foreign_key_check") == "")
        #expect(try Self.halfWritten(s.db).isEmpty)
        #expect(try Self.done(s.db) == users, "kills: \(kills)")
        #expect(
            try SQL.int(s.db, "SELECT count(*) FROM user_runs WHERE status <> 'changed'") == 0,
            "no user failed or was planned twice")
        #expect(
            try SQL.int(
                s.db,
                "SELECT count(*) FROM (SELECT user_id FROM changesets WHERE origin = 'nightly' GROUP BY user_id HAVING count(*) <> 1)"
            ) == 0)
        // Versions come from one counter, so they follow the order the students committed in.
        expectSamePlan(
            try SQL.planDump(reference, ignoringVersions: true), try SQL.planDump(s.db, ignoringVersions: true),
            "killed 20 times vs. uninterrupted (kills: \(kills))")
        #expect(try Self.nightlyEdits(s.db) == (try Self.nightlyEdits(reference)), "the changesets' contents match too")
    }

    @Test func aSecondRunWhileTheFirstIsRunningExits75AndReadersDoNotDisturbIt() async throws {
        let s = try await Self.manyUsers(100)
        let first = try s.start(["run", "--no-model", "--concurrency", "1"])
        // Freeze the first run once it has committed a user: it holds the lock until it ends,
        // and stopped it cannot end while the others try.
        #expect(await first.signal(SIGSTOP, whenStderrContains: "progress:"))
        let second = try await s.run(["run", "--no-model"])
        #expect(second.code == 75 && second.stderr.contains("try again later"), "\(second)")
        // Readers open and close the database meanwhile. Each must leave the running job's
        // WAL alone: a process that thinks it is the last connection checkpoints and deletes
        // the -wal and -shm files, and the job's later commits are lost.
        for args in [["log", "--limit", "1"], ["preview", "--user", "u0099", "--no-model"], ["user", "list"]] {
            try await s.ok(args)
            #expect(FileManager.default.fileExists(atPath: s.db + "-wal"), "\(args) removed the running job's WAL")
        }
        first.signal(SIGCONT)
        let ended = await first.wait()
        #expect(ended.code == 0 && !ended.signaled, "\(ended)")
        #expect(ended.stderr.contains("100 changed"), "\(ended.stderr)")
        #expect(try SQL.int(s.db, "SELECT count(*) FROM runs") == 1, "the refused run left no trace")
        #expect(try Self.done(s.db) == 100, "every commit the job reported is in the database")
        #expect(try Self.halfWritten(s.db).isEmpty)
        #expect(try SQL.value(s.db, "PRAGMA integrity_check") == "ok")
    }

    /// Commands other than `run` stop at once on SIGINT/SIGTERM; the transaction that was open
    /// never commits, so an import is all or nothing under Ctrl-C too.
    @Test func anInterruptedImportWritesNothing() async throws {
        let s = try Sandbox()
        let file = try s.writeJSON("users.json", Documents.manyUsers(3000))
        let process = try s.start(["import", file])
        await process.signal(SIGINT, atSeconds: 0.4)
        let outcome = await process.wait()
        // Interrupted while still reading the file, there may be no database (or no schema) yet.
        let hasUsers = try SQL.int(s.db, "SELECT count(*) FROM sqlite_master WHERE name = 'users'") == 1
        let users = hasUsers ? try SQL.int(s.db, "SELECT count(*) FROM users") : 0
        if outcome.code == 130 {
            #expect(users == 0, "an interrupted import left \(users) users")
        } else {
            // The machine was fast enough to finish first: then everything is there.
            #expect(outcome.code == 0 && users == 3000, "\(outcome)")
        }
        #expect(try SQL.value(s.db, "PRAGMA integrity_check") == "ok")
    }

    @Test(arguments: [(SIGINT, Int32(130)), (SIGTERM, Int32(143))])
    func anInterruptedRunCommitsFinishedUsersAndTheNextRunFinishesTheRest(signal: Int32, code: Int32) async throws {
        let users = 300
        let s = try await Self.manyUsers(users)
        let process = try s.start(["run", "--no-model", "--concurrency", "2"])
        // The first progress line comes after the first user is committed.
        let sent = await process.signal(signal, whenStderrContains: "progress:")
        #expect(sent, "the run printed no progress while running")
        let outcome = await process.wait()
        #expect(!outcome.signaled && outcome.code == code, "\(outcome)")
        #expect(outcome.stderr.contains("interrupted"), "\(outcome.stderr)")

        let done = try Self.done(s.db)
        #expect(done > 0 && done < users, "the signal came mid-run: \(done) of \(users) done")
        #expect(try Self.halfWritten(s.db).isEmpty, "nothing half-written")
        #expect(try SQL.value(s.db, "PRAGMA integrity_check") == "ok")
        #expect(
            try SQL.value(s.db, "SELECT finished_at IS NOT NULL FROM runs") == "1",
            "the interrupted run still closed its record")

        let next = try await s.run(["run", "--no-model", "--json"])
        #expect(next.code == 0, "\(next)")
        #expect(try next.json().object("counts")?.int("due") == users - done)
        #expect(try Self.done(s.db) == users && (try Self.halfWritten(s.db)).isEmpty)
        #expect(try SQL.int(s.db, "SELECT count(*) FROM user_runs") == users, "nobody planned twice")
    }
}
