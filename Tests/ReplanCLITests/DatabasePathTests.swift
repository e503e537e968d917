import Foundation
import ReplanTestSupport
import Testing

/// Where the database is, and what happens when that place is wrong (issue 28, items 9 and
/// 17): every problem of the path is exit 73 naming it and why, never a crash, never a new
/// empty database behind a green exit.
@Suite struct DatabasePathTests {
    /// Item 9: a one-character relative path crashed every command that opens the database
    /// (exit 132, inside Foundation's path splitting).
    @Test func aOneCharacterRelativePathWorks() async throws {
        let s = try Sandbox()
        let add = try await s.run(["--db", "a", "user", "add", "mei", "--time-zone", "Asia/Taipei"])
        #expect(add.code == 0, "\(add)")
        #expect(FileManager.default.fileExists(atPath: s.path("a")))
        let list = try await s.run(["--db", "a", "user", "list"])
        #expect(list.code == 0 && list.stdout.contains("mei"), "\(list)")
        let dot = try await s.run(["--db", ".", "user", "list"])
        #expect(dot.code == 73 && dot.stderr.contains("not a regular file"), "\(dot)")
        let dotAdd = try await s.run(["--db", ".", "user", "add", "lin", "--time-zone", "UTC"])
        #expect(dotAdd.code == 73, "\(dotAdd)")
    }

    @Test func theInMemoryDatabaseIsRefused() async throws {
        let s = try Sandbox()
        for path in [":memory:", "file::memory:"] {
            let r = try await s.run(["--db", path, "user", "add", "mei", "--time-zone", "UTC"])
            #expect(r.code == 73 && r.stderr.contains("in-memory"), "\(path): \(r)")
        }
    }

    /// A PostgreSQL URL used to be taken as a path: `user add` created directories named after
    /// the server, the password among them. Now it selects PostgreSQL; an unreachable server is
    /// exit 73 naming the engine, nothing is created, and the URL (with its password) is not
    /// repeated.
    @Test func anUnreachablePostgreSQLURLCreatesNothingAndNeverEchoesThePassword() async throws {
        let s = try Sandbox()
        for url in ["postgresql://u:s3cret@127.0.0.1:5/db", "postgres://u:s3cret@localhost/db"] {
            let r = try await s.run(["--db", url, "user", "add", "mei", "--time-zone", "UTC"])
            #expect(r.code == 73 && r.stderr.contains("PostgreSQL"), "\(r)")
            #expect(!r.stderr.contains("s3cret") && !r.stdout.contains("s3cret"), "\(r)")
            #expect(!FileManager.default.fileExists(atPath: s.path("postgresql:")))
            #expect(!FileManager.default.fileExists(atPath: s.path("postgres:")))
        }
    }

    /// Only `user add` and `import` create a database; `run` on a mistyped path used to create
    /// it and report a successful night.
    @Test func commandsOtherThanUserAddAndImportNeverCreateADatabase() async throws {
        let s = try Sandbox()
        let missing = s.path("typo.db")
        let commands: [[String]] = [
            ["run", "--no-model"], ["preview", "--user", "mei", "--no-model"],
            ["settings", "set", "--user", "mei", "--tone", "kind"], ["settings", "show", "--user", "mei"],
            [
                "task", "add", "--user", "mei", "--title", "T", "--category", "C", "--start", "2025-01-08T10:00",
                "--end", "2025-01-08T11:00",
            ],
            ["undo", "--user", "mei", "--last", "--yes"], ["redo", "cs-x", "--yes"],
            ["task", "done", "t1", "--user", "mei"], ["outbox"], ["prune"],
        ]
        for c in commands {
            let r = try await s.run(["--db", missing] + c)
            #expect(r.code == 73 && r.stderr.contains("no database at \(missing)"), "\(c): \(r)")
            #expect(!FileManager.default.fileExists(atPath: missing), "\(c) created the database")
        }
    }

    /// Item 17: a read-only database got exit 70 and half an SQL statement on its first
    /// write; it is exit 73 with the path and the reason. Root ignores file modes, so as root
    /// the commands run as `nobody` on a file `nobody` may only read.
    @Test func aReadOnlyDatabaseIsExit73WithThePathAndNoSQL() async throws {
        let s = try Sandbox()
        try await s.ok(["user", "add", "mei", "--time-zone", "Asia/Taipei"])
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("replan-ro-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let db = dir + "/replan.db"
        try FileManager.default.copyItem(atPath: s.db, toPath: db)
        let asRoot = getuid() == 0
        if asRoot {
            #expect(chmod(dir, 0o777) == 0)
            #expect(chown(db, 65_534, 65_534) == 0)
        }
        #expect(chmod(db, 0o400) == 0)
        func replan(_ arguments: [String]) throws -> Outcome {
            var env = s.environment
            env["REPLAN_DB"] = db
            env["HOME"] = dir
            if asRoot {
                return try Outcome.of(
                    "/usr/bin/setpriv",
                    ["--reuid=65534", "--regid=65534", "--clear-groups", Binary.path] + arguments, environment: env,
                    directory: dir)
            }
            return try Outcome.of(Binary.path, arguments, environment: env, directory: dir)
        }
        let read = try replan(["user", "list"])
        #expect(read.code == 0 && read.stdout.contains("mei"), "reading still works: \(read)")
        for c in [["user", "add", "lin", "--time-zone", "UTC"], ["run", "--no-model", "--force"]] {
            let r = try replan(c)
            #expect(r.code == 73, "\(c): \(r)")
            #expect(r.stderr.contains(db) && r.stderr.contains("read-only"), "\(c): \(r)")
            #expect(!r.stderr.contains("INSERT") && !r.stderr.contains("SQLite error"), "\(c): \(r)")
        }
    }

    /// Item 17: a syntax error in an import names the line and the column.
    @Test func aJSONSyntaxErrorNamesLineAndColumn() async throws {
        let s = try Sandbox()
        let file = try s.write("bad.json", "{\"format\": \"replan/1\",\n  \"users\": [1,]}")
        let r = try await s.run(["import", file])
        #expect(r.code == 65 && r.stderr.contains("line 2, column 15"), "\(r)")
    }
}
