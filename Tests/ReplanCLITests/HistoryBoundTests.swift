import Foundation
import ReplanTestSupport
import Testing

/// Issue 28, item 8: a first night over decades of a daily series wrote a row per missed day
/// in one changeset (1.7 GiB for a series from year 1). A night drops at most
/// `StaleLimits.dropsPerNight` stale sessions; the next nights read the whole history again
/// and go on until none is left, and the statistics agree at every step.
@Suite struct HistoryBoundTests {
    @Test func decadesOfStaleHistoryAreDroppedOverSeveralBoundedNights() async throws {
        let s = try Sandbox()
        try await s.ok(["user", "add", "old", "--time-zone", "UTC"])
        try await s.ok([
            "task", "add", "--user", "old", "--id", "vocab", "--title", "Vocab", "--category", "English",
            "--start", "1990-01-01T10:00", "--end", "1990-01-01T10:30", "--repeat", "daily",
        ])
        var skipped: [Int] = []
        var sessions: [Int] = []
        for day in ["07", "08", "09"] {
            let now = "2025-01-\(day)T03:00:00Z"
            try await s.ok(["run", "--no-model"], environment: ["REPLAN_NOW": now])
            skipped.append(try SQL.int(s.db, "SELECT count(*) FROM occurrence_overrides WHERE state = 'skipped'"))
            let stats = try await s.json(["stats", "--user", "old", "--json", "--now", now])
            let categories = stats["categories"] as? [[String: Any]] ?? []
            sessions.append(categories.first?["taskCount"] as? Int ?? -1)
        }
        // 1990-01-01 … 2024-12-30 are stale on 2025-01-07 (12,783 days), and each night skips the habit's missed yesterday, then one skipped
        // habit day a night; each night drops at most 5,000 of the stale ones.
        #expect(skipped[0] <= 5_000 + 7 && skipped[1] <= 10_000 + 8, "\(skipped)")
        #expect(skipped[2] == 12_792, "every day before the night's today is skipped by the third night: \(skipped)")
        #expect(sessions[2] == 1, "only today counts once the history is dropped: \(sessions)")
        let edits = try SQL.rows(s.db, "SELECT count(*) FROM changeset_edits GROUP BY changeset_id ORDER BY 1 DESC")
        #expect(Int(edits.first ?? "") ?? .max <= 5_000 + 10, "no changeset holds more than a night's bound: \(edits)")
    }
}
