import Foundation
import Testing

/// `replan demo` as a newcomer runs it: in an empty directory, no configuration, the real clock.
@Suite struct DemoTests {
    /// The `replan …` command the demo prints after "To undo tonight's changes:".
    static func undoCommand(_ stdout: String) throws -> [String] {
        guard let line = stdout.split(separator: "\n").first(where: { $0.contains("To undo tonight's changes:") }),
              let range = line.range(of: "replan ") else {
            throw TestFailure("the demo prints no undo command:\n\(stdout)")
        }
        return line[range.upperBound...].split(separator: " ").map(String.init)
    }

    @Test func demoInAnEmptyDirectoryCreatesTheDatabaseAndItsUndoCommandWorks() async throws {
        let s = try Sandbox(now: nil)
        let dir = s.path("work")
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        let demo = try await s.run(["demo"], environment: ["REPLAN_DB": nil], directory: dir)
        #expect(demo.code == 0, "\(demo)")
        let db = dir + "/replan-demo.db"
        #expect(FileManager.default.fileExists(atPath: db))
        #expect(mode(db) == 0o600)
        #expect(!FileManager.default.fileExists(atPath: s.db), "the demo does not touch the default database")
        for step in ["import", "preview", "run", "log", "show"] { #expect(demo.stdout.contains("$ replan \(step)"), "\(step)") }

        let undo = try Self.undoCommand(demo.stdout)
        #expect(undo.first == "--db" && undo.contains("undo") && undo.contains("--yes"), "\(undo)")
        let cs = try #require(undo.first { $0.hasPrefix("cs-") })
        #expect(try SQL.value(db, "SELECT origin || ' ' || state FROM changesets WHERE id = '\(cs)'") == "nightly applied")
        let afterNight = try SQL.planDump(db)

        let undone = try await s.run(undo, environment: ["REPLAN_DB": nil], directory: dir)
        #expect(undone.code == 0 && undone.stdout.contains("undid \(cs)"), "\(undone)")
        #expect(try SQL.value(db, "SELECT state FROM changesets WHERE id = '\(cs)'") == "undone")
        #expect(try SQL.planDump(db) != afterNight)

        // Running the demo again starts over with a fresh demo database.
        let again = try await s.run(["demo"], environment: ["REPLAN_DB": nil], directory: dir)
        #expect(again.code == 0, "\(again)")
        #expect(try SQL.int(db, "SELECT count(*) FROM changesets WHERE state = 'undone'") == 0)
    }

    @Test func demoRefusesToReplaceADatabaseThatIsNotADemo() async throws {
        let s = try Sandbox()
        let dir = s.path("work")
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        let db = dir + "/replan-demo.db"
        try await s.ok(["user", "add", "precious", "--time-zone", "UTC", "--db", db])
        let r = try await s.run(["demo"], environment: ["REPLAN_DB": nil], directory: dir)
        #expect(r.code == 64 && r.stderr.contains("not a demo database"), "\(r)")
        #expect(try SQL.rows(db, "SELECT id FROM users") == ["'precious'"])

        // An explicit --db is honoured.
        let other = s.path("elsewhere.db")
        let explicit = try await s.run(["demo", "--db", other], directory: dir)
        #expect(explicit.code == 0, "\(explicit)")
        #expect(try SQL.rows(other, "SELECT id FROM users") == ["'mei'"])
        #expect(try Self.undoCommand(explicit.stdout).contains(other))
    }
}
