import Foundation
import ReplanTestSupport
import Testing

@testable import ReplanCLI

/// `replan demo` as a newcomer runs it: in an empty directory, no configuration, the real clock.
@Suite struct DemoTests {
    /// The `replan …` command the demo prints after "To undo tonight's changes:".
    static func undoCommand(_ stdout: String) throws -> [String] {
        guard let line = stdout.split(separator: "\n").first(where: { $0.contains("To undo tonight's changes:") }),
            let range = line.range(of: "replan ")
        else {
            throw TestFailure("the demo prints no undo command:\n\(stdout)")
        }
        return line[range.upperBound...].split(separator: " ").map(String.init)
    }

    /// The whole command line printed after "To undo tonight's changes:".
    static func undoLine(_ stdout: String) throws -> String {
        guard let line = stdout.split(separator: "\n").first(where: { $0.contains("To undo tonight's changes:") })
        else {
            throw TestFailure("the demo prints no undo command:\n\(stdout)")
        }
        return line.replacingOccurrences(of: "To undo tonight's changes:", with: "").trimmingCharacters(
            in: .whitespaces)
    }

    /// Runs a command line with /bin/sh, as a user pasting it would.
    static func shell(_ line: String, directory: String, environment: [String: String]) throws -> Outcome {
        try Outcome.of("/bin/sh", ["-c", line], environment: environment, directory: directory)
    }

    @Test func theHintNamesReplanOnlyWhenPATHFindsThisBinary() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("replan-inv-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: dir + "/bin", withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let exe = URL(fileURLWithPath: Binary.path).resolvingSymlinksInPath().path
        #expect(InvocationName.name(of: exe, path: "/usr/bin:/bin", workingDirectory: "/") == String(exe.dropFirst()))
        #expect(
            InvocationName.name(of: "/src/replan/.build/debug/replan", path: "", workingDirectory: "/src/replan")
                == ".build/debug/replan")
        #expect(InvocationName.name(of: exe, path: "", workingDirectory: dir) == exe)
        try FileManager.default.createSymbolicLink(atPath: dir + "/bin/replan", withDestinationPath: exe)
        #expect(InvocationName.name(of: exe, path: "/nowhere:\(dir)/bin", workingDirectory: dir) == "replan")
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
        for step in ["import", "preview", "run", "log", "show"] {
            #expect(demo.stdout.contains("$ replan \(step)"), "\(step)")
        }

        let undo = try Self.undoCommand(demo.stdout)
        #expect(undo.first == "--db" && undo.contains("undo") && undo.contains("--yes"), "\(undo)")
        let cs = try #require(undo.first { $0.hasPrefix("cs-") })
        #expect(
            try SQL.value(db, "SELECT origin || ' ' || state FROM changesets WHERE id = '\(cs)'") == "nightly applied")
        let afterNight = try SQL.planDump(db)

        // The hint works as printed, in a shell whose PATH has no `replan` (as right after
        // `swift build`).
        let line = try Self.undoLine(demo.stdout)
        #expect(!line.hasPrefix("replan "), "replan is not on the sandbox's PATH: \(line)")
        let undone = try Self.shell(line, directory: dir, environment: s.environment.filter { $0.key != "REPLAN_DB" })
        #expect(undone.code == 0 && undone.stdout.contains("undid \(cs)"), "\(line): \(undone)")
        #expect(try SQL.value(db, "SELECT state FROM changesets WHERE id = '\(cs)'") == "undone")
        #expect(try SQL.planDump(db) != afterNight)

        // Running the demo again starts over with a fresh demo database.
        let again = try await s.run(["demo"], environment: ["REPLAN_DB": nil], directory: dir)
        #expect(again.code == 0, "\(again)")
        #expect(try SQL.int(db, "SELECT count(*) FROM changesets WHERE state = 'undone'") == 0)
    }

    /// docs/planning.md §3 G2: whatever the hour the demo is run (before the course's 10:00
    /// slot, after it, late at night), "Linear algebra [1/5]…[5/5]" stays in order, one part a
    /// day. Version 1 left it 3, 4, 1, 5, 2 after 10:00 Taipei time.
    @Test(arguments: [
        "2026-12-01T03:00:00+08:00", "2026-12-01T09:59:00+08:00", "2026-12-01T10:30:00+08:00",
        "2026-12-01T15:00:00+08:00", "2026-12-01T23:30:00+08:00", "2026-12-05T23:59:00+08:00",
    ])
    func theDemoCourseStaysInOrderWhateverTheHour(now: String) async throws {
        let s = try Sandbox(now: nil)
        let db = s.path("demo.db")
        let demo = try await s.run(["demo", "--db", db], environment: ["REPLAN_NOW": now])
        #expect(demo.code == 0, "\(demo)")
        let today = String(now.prefix(10))
        let list = try await s.run(
            ["task", "list", "--user", "mei", "--db", db, "--json", "--from", "2026-11-20", "--to", "2026-12-31"],
            environment: ["REPLAN_NOW": now])
        let parts = try list.json().array("occurrences").filter {
            $0.string("title")?.hasPrefix("Linear algebra") == true
        }
        let open = parts.filter { $0.string("state") == "open" }
        #expect(open.count == 5, "\(parts)")
        #expect(
            open.map { $0.string("title") ?? "" } == (1...5).map { "Linear algebra [\($0)/5]" }, "in order: \(open)")
        let days = open.compactMap { $0.string("start").map { String($0.prefix(10)) } }
        #expect(Set(days).count == 5, "one part a day: \(days)")
        #expect(days.allSatisfy { $0 >= today }, "nothing left in the past: \(days)")
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
