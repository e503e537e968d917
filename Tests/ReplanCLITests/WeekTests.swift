import Foundation
import ReplanTestSupport
import Testing

@testable import ReplanCLI

/// `replan week` and `show CHANGESET --week`: seven columns with a night's effect marked.
@Suite struct WeekTests {
    /// mei missed Monday's Math (moved by the night); a completed vocabulary session on Monday
    /// and a Chinese-titled session on Thursday.
    static func afterOneNight() async throws -> (Sandbox, String) {
        let s = try Sandbox()
        try await s.ok(["user", "add", "mei", "--time-zone", "Asia/Taipei"])
        try await s.addTask("math", "Math", "2025-01-06T10:00", "2025-01-06T11:00", category: "Math")
        try await s.addTask("vocab", "Vocab", "2025-01-06T20:00", "2025-01-06T20:30", category: "English")
        try await s.ok(["task", "done", "vocab"])
        try await s.addTask("zh", "中文閱讀", "2025-01-09T14:00", "2025-01-09T15:00", category: "中文")
        let run = try await s.json(["run", "--no-model", "--json"])
        let cs = try #require((run["users"] as? [[String: Any]])?.first?["changesetId"] as? String)
        return (s, cs)
    }

    @Test func theWeekShowsSevenDaysWithTheNightsMovesMarked() async throws {
        let (s, cs) = try await Self.afterOneNight()
        let text = try await s.ok(["week", "--user", "mei", "--date", "2025-01-08"], environment: ["COLUMNS": "120"])
        let lines = text.split(separator: "\n").map(String.init)
        #expect(lines[0].contains("week of 2025-01-06") && lines[0].contains(cs), "\(text)")
        #expect(lines[1].hasPrefix("Mon 01-06") && lines[1].hasSuffix("Sun 01-12"), "\(lines[1])")
        #expect(text.contains("⇢10:00 Math"), "where the missed session was: \(text)")
        #expect(text.contains("→") && text.contains("✓20:00 Vocab") && text.contains("中文閱讀"), "\(text)")
        // Columns line up by display width: every day starts at the same column on every row.
        let width = (120 - 12) / 7
        // The grid ends at the legend; the night's edits in words follow it.
        let legend = try #require(lines.firstIndex { $0.hasPrefix("✓ completed") })
        #expect(lines[(legend + 1)...].contains { $0.hasPrefix("    moved Math: Mon 6 Jan 10:00–11:00 →") }, "\(text)")
        for line in lines[1..<legend] where !line.hasPrefix("(") {
            for (i, ch) in line.enumerated() where ch == "⇢" || ch == "→" || ch == "✓" {
                let column = DisplayWidth.of(String(line.prefix(i)))
                #expect(column % (width + 2) == 0, "a mark at display column \(column) in \(line)")
            }
        }
    }

    @Test func showWeekMarksThatChangesetAndCreatedSessionsArePlus() async throws {
        let (s, cs) = try await Self.afterOneNight()
        let shown = try await s.ok(["show", cs, "--week"])
        #expect(shown.contains("week of 2025-01-06") && shown.contains("⇢10:00 Math"), "\(shown)")
        let added = try await s.ok([
            "task", "add", "--user", "mei", "--title", "Essay", "--category", "English",
            "--start", "2025-01-10T09:00", "--end", "2025-01-10T10:00",
        ])
        let manual = try #require(
            added.split(separator: " ").first { $0.hasPrefix("cs-") }.map {
                String($0.trimmingCharacters(in: .punctuationCharacters))
            })
        let week = try await s.ok(["week", "--user", "mei", "--date", "2025-01-10", "--changeset", manual])
        #expect(week.contains("+09:00 Essay"), "\(week)")
    }

    @Test func unknownStudentsAndOtherStudentsChangesetsAreErrors() async throws {
        let (s, cs) = try await Self.afterOneNight()
        try await s.ok(["user", "add", "bob", "--time-zone", "UTC"])
        let other = try await s.run(["week", "--user", "bob", "--changeset", cs])
        #expect(other.code == 65 && other.stderr.contains("belongs to mei"), "\(other)")
        let nobody = try await s.run(["week", "--user", "nobody"])
        #expect(nobody.code == 65, "\(nobody)")
        let empty = try await s.ok(["week", "--user", "bob"])
        #expect(empty.contains("no nightly changeset yet") && empty.contains("(no sessions this week)"), "\(empty)")
    }
}
