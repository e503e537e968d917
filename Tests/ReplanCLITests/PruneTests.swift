import Foundation
import ReplanTestSupport
import Testing

/// Retention end to end: `replan prune`, the prune after every run, and undo beyond it.
@Suite struct PruneTests {
    /// A night on 2025-01-07 (Taipei) that moved mei's missed Monday session.
    static func oneNight() async throws -> (Sandbox, String) {
        let s = try Sandbox()
        try await s.ok(["user", "add", "mei", "--time-zone", "Asia/Taipei"])
        try await s.addTask("math", "Math", "2025-01-06T10:00", "2025-01-06T11:00", category: "Math")
        let run = try await s.json(["run", "--no-model", "--json"])
        let cs = try #require((run["users"] as? [[String: Any]])?.first?["changesetId"] as? String)
        return (s, cs)
    }

    static let twoMonthsLater = "2025-03-10T03:00:00+08:00"

    @Test func pruneDeletesHistoryOlderThanTheRetentionAndSaysWhat() async throws {
        let (s, _) = try await Self.oneNight()
        let dry = try await s.json(["prune", "--dry-run", "--json", "--now", Self.twoMonthsLater])
        #expect(dry["changesets"] as? Int == 2 && dry["userRuns"] as? Int == 1 && dry["runs"] as? Int == 1, "\(dry)")
        #expect(try SQL.int(s.db, "SELECT count(*) FROM changesets") == 2, "a dry run deletes nothing")
        let text = try await s.ok(["prune", "--now", Self.twoMonthsLater])
        #expect(
            text.hasPrefix(
                "pruned 2 changeset(s), 1 user run(s) with 0 transcript(s) and 1 run(s) older than 2025-02-07T19:00:00Z, and 0 outbox row(s)"
            ), "\(text)")
        #expect(try SQL.int(s.db, "SELECT count(*) FROM changesets") == 0)
        #expect(try SQL.int(s.db, "SELECT count(*) FROM runs") == 0)
        #expect(try SQL.int(s.db, "SELECT count(*) FROM tasks") == 1, "the plan stays")
        let keep = try await s.json(["prune", "--json", "--older-than", "365", "--now", Self.twoMonthsLater])
        #expect(keep["changesets"] as? Int == 0)
    }

    @Test func everyRunPrunesAfterItsStudentsAndZeroKeepsForever() async throws {
        let (s, _) = try await Self.oneNight()
        let forever = try s.write("forever.conf", "retention_days = 0\n")
        let kept = try await s.run(
            ["run", "--no-model", "--config", forever], environment: ["REPLAN_NOW": Self.twoMonthsLater])
        #expect(kept.code == 0 && !kept.stderr.contains("retention"), "\(kept)")
        #expect(try SQL.int(s.db, "SELECT count(*) FROM changesets WHERE created_at < '2025-02-01'") == 2)
        let pruned = try await s.run(["run", "--no-model"], environment: ["REPLAN_NOW": "2025-03-11T03:00:00+08:00"])
        #expect(pruned.code == 0 && pruned.stderr.contains("retention (30 days): pruned 2 changeset(s)"), "\(pruned)")
        #expect(try SQL.int(s.db, "SELECT count(*) FROM changesets WHERE created_at < '2025-02-01'") == 0)
    }

    @Test func undoRefusesAChangesetBeyondTheRetentionAndNamesAPrunedOne() async throws {
        let (s, cs) = try await Self.oneNight()
        let old = try await s.run(["undo", cs, "--yes"], environment: ["REPLAN_NOW": Self.twoMonthsLater])
        #expect(old.code == 65 && old.stderr.contains("older than the retention of 30 days"), "\(old)")
        #expect(try SQL.value(s.db, "SELECT state FROM changesets WHERE id = '\(cs)'") == "applied")
        try await s.ok(["prune", "--now", Self.twoMonthsLater])
        let gone = try await s.run(["undo", cs, "--yes"], environment: ["REPLAN_NOW": Self.twoMonthsLater])
        #expect(gone.code == 65 && gone.stderr.contains("pruned"), "\(gone)")
    }
}
