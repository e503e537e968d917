import Foundation
import ReplanTestSupport
import Store
import Testing

/// Issue 21: the commands on PostgreSQL, through the binary, as an operator uses them: a URI in
/// `REPLAN_DB` with the password in `PGPASSWORD`, and the faults an operator meets (wrong
/// password, unreachable server, an empty database for a reading command, a newer schema, a
/// statement timeout), each with its exit code, the server named and the password never shown.
@Suite(.enabled(if: EngineUnderTest.engines.contains(.postgresql)))
struct PostgresCommandTests {
    /// A sandbox whose database is a fresh PostgreSQL database, the password passed only in
    /// `PGPASSWORD`.
    static func sandbox() throws -> (Sandbox, TemporaryPostgres, password: String) {
        let s = try Sandbox()
        let database = try TemporaryPostgres()
        var parts = try #require(URLComponents(string: database.url))
        let password = try #require(parts.password)
        parts.password = nil
        s.environment["REPLAN_DB"] = parts.string
        s.environment["PGPASSWORD"] = password
        return (s, database, password)
    }

    @Test func everyCommandWorksOnPostgreSQLAndNoneShowsThePassword() async throws {
        let (s, database, password) = try Self.sandbox()
        defer { withExtendedLifetime(database) {} }
        do {
            let steps: [[String]] = [
                ["user", "add", "mei", "--time-zone", "Asia/Taipei"],
                [
                    "task", "add", "--user", "mei", "--title", "Essay", "--category", "English", "--start",
                    "2025-01-06T10:00", "--end", "2025-01-06T11:00",
                ],
                ["settings", "set", "--user", "mei", "--tone", "kind"], ["settings", "show", "--user", "mei"],
                ["run", "--no-model"], ["log"], ["log", "--detail"], ["stats", "--user", "mei"],
                ["week", "--user", "mei"], ["task", "list", "--user", "mei"], ["export", "--user", "mei"],
                ["outbox"], ["prune"], ["status"], ["config", "show"], ["preview", "--user", "mei", "--no-model"],
                ["undo", "--user", "mei", "--last", "--yes"], ["user", "list"],
                ["import", try s.writeJSON("doc.json", Documents.document([Documents.englishWeek(user: "bob")]))],
                ["feeds", "--out", s.path("public/feeds")], ["user", "rm", "bob", "--yes"],
            ]
            for step in steps {
                let r = try await s.run(step)
                #expect(r.code == 0, "\(step): \(r)")
                #expect(!r.stdout.contains(password) && !r.stderr.contains(password), "\(step) showed the password")
            }
            #expect(FileManager.default.fileExists(atPath: s.path("public/feeds/mei.ics")))
            let config = try await s.run(["config", "show"])
            #expect(config.stdout.contains("PostgreSQL 127.0.0.1:"), "\(config)")
        }
    }

    @Test func aWrongPasswordAnUnreachableServerAndAnEmptyDatabaseExit73NamingTheServer() async throws {
        let (s, database, password) = try Self.sandbox()
        defer { withExtendedLifetime(database) {} }
        do {
            let wrong = try await s.run(["user", "list"], environment: ["PGPASSWORD": "not-\(password)"])
            #expect(wrong.code == 73 && wrong.stderr.contains("127.0.0.1"), "\(wrong)")
            #expect(!wrong.stderr.contains(password))
            let unreachable = try await s.run(
                ["user", "list"], environment: ["REPLAN_DB": "postgresql://replan:\(password)@127.0.0.1:1/x"])
            #expect(unreachable.code == 73 && unreachable.stderr.contains("127.0.0.1:1"), "\(unreachable)")
            #expect(!unreachable.stderr.contains(password))
            // A reading command on an empty database creates nothing there.
            let empty = try await s.run(["user", "list"])
            #expect(empty.code == 73 && empty.stderr.contains("no replan data"), "\(empty)")
            let tables = try database.connect().queryFirst(
                "SELECT count(*) FROM information_schema.tables WHERE table_schema = 'public'", []
            ) { $0.int(0) }
            #expect(tables == 0)
        }
    }

    @Test func aNewerSchemaIsRefusedAndAStatementTimeoutIsTemporary() async throws {
        let (s, database, _) = try Self.sandbox()
        defer { withExtendedLifetime(database) {} }
        do {
            #expect(try await s.run(["user", "add", "mei", "--time-zone", "UTC"]).code == 0)
            try database.connect().execute(
                "INSERT INTO schema_migrations (version, applied_at) VALUES (99, 'later')", [])
            let newer = try await s.run(["user", "list"])
            #expect(newer.code == 73 && newer.stderr.contains("99"), "\(newer)")
            try database.connect().execute("DELETE FROM schema_migrations WHERE version = 99", [])
            // Another session holds the users table; the command's statements give up after their
            // statement_timeout (set through libpq's PGOPTIONS, as an operator would).
            let holder = try database.connect()
            try holder.execute("BEGIN", [])
            try holder.execute("LOCK TABLE users IN ACCESS EXCLUSIVE MODE", [])
            let slow = try await s.run(["user", "list"], environment: ["PGOPTIONS": "-c statement_timeout=300"])
            try holder.execute("ROLLBACK", [])
            #expect(slow.code == 75 && slow.stderr.contains("statement_timeout"), "\(slow)")
            #expect(try await s.run(["user", "list"]).code == 0)
        }
    }
}
