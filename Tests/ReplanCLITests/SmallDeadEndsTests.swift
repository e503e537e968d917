import Foundation
import ReplanTestSupport
import Testing

/// The smaller dead ends of issue 26: `replan help`, exit 65 for every bad value, `stats`'
/// bold header, `show`'s hints keeping `--db`, and a run with `--now` finishing on its clock.
@Suite struct SmallDeadEndsTests {
    @Test func helpIsACommand() async throws {
        let s = try Sandbox()
        let overview = try await s.run(["help"])
        #expect(overview.code == 0 && overview.stdout.contains("commands:"), "\(overview)")
        let run = try await s.run(["help", "run"])
        #expect(run.code == 0 && run.stdout.contains("usage: replan run"), "\(run)")
    }

    @Test func badValuesExit65() async throws {
        let s = try Sandbox()
        try await s.ok(["user", "add", "mei", "--time-zone", "Asia/Taipei"])
        for args in [
            ["user", "list", "--now", "yesterday"], ["export", "--user", "mei", "--format", "csv"],
            ["user", "list", "--color=sometimes"],
        ] {
            let r = try await s.run(args)
            #expect(r.code == 65, "\(args): \(r)")
        }
    }

    @Test func statsHeaderIsBoldWithColorAlways() async throws {
        let s = try Sandbox()
        try await s.ok(["user", "add", "mei", "--time-zone", "Asia/Taipei"])
        try await s.addTask("math", "Math", "2025-01-06T10:00", "2025-01-06T11:00", category: "Math")
        let r = try await s.run(["stats", "--user", "mei", "--color=always"])
        #expect(r.code == 0 && r.stdout.hasPrefix("\u{1B}[1mcategory"), "\(r)")
    }

    @Test func showsHintsKeepTheDatabaseAndARunWithNowHasADuration() async throws {
        let s = try Sandbox()
        let other = s.path("other.db")
        try await s.ok(["--db", other, "user", "add", "mei", "--time-zone", "Asia/Taipei"])
        try await s.ok([
            "--db", other, "task", "add", "--user", "mei", "--id", "math", "--title", "Math", "--category", "Math",
            "--start", "2025-01-06T10:00", "--end", "2025-01-06T11:00",
        ])
        let run = try await s.json(["--db", other, "run", "--no-model", "--json"])
        let users = run["users"] as? [[String: Any]] ?? []
        let cs = try #require(users.first?["changesetId"] as? String)
        let shown = try await s.ok(["--db", other, "show", cs])
        #expect(
            shown.contains("undo with: ") && shown.contains("undo with: replan --db \(other) undo \(cs)"), "\(shown)")
        // The run's finish is on the --now clock: start and finish are both in 2025.
        let finished = try SQL.value(other, "SELECT finished_at FROM runs WHERE id = 1")
        #expect(finished.hasPrefix("2025-01-06T19:"), "\(finished)")
    }
}
