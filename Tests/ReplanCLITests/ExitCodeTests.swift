import Foundation
import ReplanTestSupport
import Testing

@testable import ReplanCLI

#if canImport(Glibc)
    import Glibc
#endif

/// docs/commands.md's global options, environment, database location and exit codes.
@Suite struct ExitCodeTests {
    // MARK: help and usage

    @Test func helpOnEveryCommandExits0() async throws {
        let s = try Sandbox()
        let paths = CommandTable.all.map(\.path)
        #expect(paths.count >= 19, "every command of the README: \(paths)")
        for path in paths + [["user"], ["settings"], ["task"], []] {
            for flag in ["--help", "-h"] {
                let r = try await s.run(path + [flag])
                #expect(r.code == 0 && !r.signaled, "replan \(path.joined(separator: " ")) \(flag): \(r)")
                #expect(r.stdout.contains("usage: replan"), "\(path) \(flag): help goes to stdout: \(r)")
            }
        }
        // Help wins over a bad value elsewhere on the line, and writes nothing.
        let r = try await s.run(["run", "--now", "yesterday", "--help"])
        #expect(r.code == 0, "\(r)")
        #expect(!FileManager.default.fileExists(atPath: s.db))
        #expect(try await s.run([]).code == 0, "no arguments: the overview")
    }

    @Test func unknownCommandsAndOptionsAreUsageErrors() async throws {
        let s = try Sandbox()
        let cases: [[String]] = [
            ["frobnicate"], ["user", "frob"], ["user"], ["user", "list", "--frob"], ["run", "--no-modle"],
            ["user", "add", "mei", "--time-zone"], // option without its value
            ["log", "--limit", "3", "--limit", "4"], // given twice
            ["user", "list", "extra"], // stray argument
            ["show"], // missing positional
            ["settings", "show"], // missing --user
            ["run", "--no-model=yes"], // flag with a value
        ]
        for args in cases {
            let r = try await s.run(args)
            #expect(r.code == 64, "\(args): \(r)")
            #expect(r.stderr.hasPrefix("replan: "), "\(args): the message goes to stderr: \(r)")
            #expect(r.stdout.isEmpty, "\(args): nothing on stdout: \(r)")
        }
    }

    @Test func badValuesOfFlagsExit65() async throws {
        let s = try Sandbox()
        try await s.ok(["user", "add", "mei", "--time-zone", "UTC"])
        for args in [
            ["run", "--concurrency", "0"], ["run", "--run-after", "25:00"], ["log", "--limit", "many"],
            ["task", "list", "--user", "mei", "--from", "2025-13-01"],
            ["task", "list", "--user", "mei", "--from", "2025-01-09", "--to", "2025-01-08"],
        ] {
            let r = try await s.run(args)
            #expect(r.code == 65, "\(args): \(r)")
        }
    }

    // MARK: the clock

    @Test func nowComesFromTheFlagThenTheEnvironmentAndBadValuesExit64() async throws {
        let s = try Sandbox(now: nil)
        try await s.ok(["user", "add", "mei", "--time-zone", "Asia/Taipei"])
        let flag = try await s.json(["task", "list", "--user", "mei", "--json", "--now", "2025-03-01T12:00:00+08:00"])
        #expect(flag.string("from") == "2025-02-22" && flag.string("to") == "2025-03-15")
        let env = try await s.run(
            ["task", "list", "--user", "mei", "--json"], environment: ["REPLAN_NOW": "2025-03-01T20:00:00Z"])
        #expect(try env.json().string("from") == "2025-02-23", "20:00Z is already 3/2 in Taipei")
        // The flag beats the environment; global options may stand before the command.
        let both = try await s.run(
            ["--now", "2025-03-01T12:00:00+08:00", "task", "list", "--user", "mei", "--json"],
            environment: ["REPLAN_NOW": "2024-01-01T00:00:00Z"])
        #expect(try both.json().string("from") == "2025-02-22", "\(both)")

        for (args, env) in [
            (["user", "list", "--now", "yesterday"], [String: String?]()),
            (["user", "list", "--now", "2025-01-07T03:00"], [:]), // no offset
            (["user", "list"], ["REPLAN_NOW": "soon"]),
        ] {
            let r = try await s.run(args, environment: env)
            #expect(r.code == 64, "\(args) \(env): \(r)")
            #expect(r.stderr.contains("ISO-8601"), "\(r.stderr)")
        }
    }

    // MARK: where the database is

    @Test func databaseLocationDbFlagThenREPLAN_DBThenStateDirectoryThenXDG() async throws {
        let s = try Sandbox()
        let flag = s.path("flag.db")
        let env = s.path("env.db")
        let xdg = s.path("xdg")
        let state = s.path("state")
        try FileManager.default.createDirectory(atPath: state, withIntermediateDirectories: true)

        try await s.ok(["user", "add", "a", "--time-zone", "UTC", "--db", flag], environment: ["REPLAN_DB": env])
        try await s.ok(["--db", flag, "user", "add", "b", "--time-zone", "UTC"], environment: ["REPLAN_DB": env])
        try await s.ok(
            ["user", "add", "c", "--time-zone", "UTC"],
            environment: ["REPLAN_DB": env, "XDG_DATA_HOME": xdg, "STATE_DIRECTORY": state])
        try await s.ok(
            ["user", "add", "d", "--time-zone", "UTC"],
            environment: ["REPLAN_DB": nil, "XDG_DATA_HOME": xdg, "STATE_DIRECTORY": state])
        try await s.ok(
            ["user", "add", "e", "--time-zone", "UTC"], environment: ["REPLAN_DB": nil, "XDG_DATA_HOME": xdg])
        try await s.ok(["user", "add", "f", "--time-zone", "UTC"], environment: ["REPLAN_DB": nil])

        #expect(try SQL.userIDs(flag) == ["'a'", "'b'"])
        #expect(try SQL.userIDs(env) == ["'c'"])
        #expect(try SQL.userIDs(state + "/replan.db") == ["'d'"])
        #expect(try SQL.userIDs(xdg + "/replan/replan.db") == ["'e'"])
        let home = s.environment["HOME"]! + "/.local/share/replan/replan.db"
        #expect(try SQL.userIDs(home) == ["'f'"])
        // The default location's directory is created private.
        #expect(mode(xdg + "/replan") == 0o700)
        #expect(mode(s.environment["HOME"]! + "/.local/share/replan") == 0o700)
    }

    @Test func theDatabaseFileIsCreatedWithMode0600AndLooserModesAreTightened() async throws {
        let s = try Sandbox()
        // (The test process's umask, usually 022, would give 0644 if replan did not see to it.)
        try await s.ok(["user", "add", "mei", "--time-zone", "UTC"])
        #expect(mode(s.db) == 0o600)
        try await s.ok(["run", "--no-model"])
        #expect(!FileManager.default.fileExists(atPath: s.db + ".lock"), "the run locks the database file itself")
        for suffix in ["-wal", "-shm"] where FileManager.default.fileExists(atPath: s.db + suffix) {
            #expect(mode(s.db + suffix) == 0o600, "\(suffix)")
        }
        chmod(s.db, 0o644)
        try await s.ok(["user", "list"])
        #expect(mode(s.db) == 0o600)
    }

    @Test func aDatabaseThatCannotBeCreatedOrOpenedExits73() async throws {
        let s = try Sandbox()
        let file = try s.write("regular-file", "not a directory")
        let notADatabase = try s.write("garbage.db", String(repeating: "this is not SQLite\n", count: 300))
        try FileManager.default.createDirectory(atPath: s.path("a-directory.db"), withIntermediateDirectories: true)
        let paths = [file + "/replan.db", file + "/nested/dir/replan.db", notADatabase, s.path("a-directory.db")]
        for path in paths {
            for args in [
                ["user", "list"], ["user", "add", "mei", "--time-zone", "UTC"], ["run", "--no-model"], ["import", "-"],
            ] {
                let r = try await s.run(
                    args + ["--db", path], stdin: s.write("doc.json", #"{"format": "replan/1", "users": []}"#))
                #expect(r.code == 73, "\(args) on \(path): \(r)")
                #expect(
                    r.stderr.contains(path) || r.stderr.contains(s.directory), "the message names the path: \(r.stderr)"
                )
                if path.hasPrefix(file + "/") {
                    #expect(r.stderr.contains("Not a directory"), "and says why: \(r.stderr)")
                }
            }
        }
        #expect(
            try String(contentsOfFile: notADatabase, encoding: .utf8).hasPrefix("this is not SQLite"),
            "the file was left alone")
        let preview = try await s.run(["preview", "--user", "mei", "--no-model", "--db", s.path("missing.db")])
        #expect(preview.code == 73 && !FileManager.default.fileExists(atPath: s.path("missing.db")), "\(preview)")
    }

    @Test func dataGoesToStdoutAndEverythingElseToStderr() async throws {
        let s = try Sandbox()
        try await s.ok(["import", s.writeJSON("doc.json", Documents.document([Documents.englishWeek()]))])
        let r = try await s.run(["run", "--no-model", "--json"])
        #expect(r.code == 0)
        _ = try r.json() // stdout is exactly one JSON document
        #expect(r.stderr.contains("run 1:"), "the summary is a log line on stderr: \(r.stderr)")
        #expect(
            !r.stdout.contains("\u{1B}[") && !r.stderr.contains("\u{1B}["),
            "no colour or progress bar without a terminal")
    }
}

func mode(_ path: String) -> Int? {
    var info = stat()
    guard stat(path, &info) == 0 else { return nil }
    return Int(info.st_mode & 0o777)
}
