import Foundation
import ReplanTestSupport
import Testing

@testable import Store

/// replan's schema on PostgreSQL: created on first use, refused when newer or another
/// application's, the version trigger, and text that sorts and reads back as on SQLite.
@Suite(.enabled(if: TemporaryPostgres.isAvailable || TemporaryPostgres.isRequired))
struct PostgresSchemaTests {
    static let now = TestClock.tuesdayNightTaipei

    static func tables(_ db: PostgresConnection) throws -> [String] {
        try db.rows(
            "SELECT table_name::text FROM information_schema.tables WHERE table_schema = current_schema() ORDER BY 1",
            []
        ) { $0.text(0) }
    }

    @Test func aFreshDatabaseIsCreatedOnFirstUseAndLeftAloneAfter() throws {
        let database = try TemporaryPostgres()
        try withExtendedLifetime(database) {
            let db = try PostgresConnection.open(database.url, now: Self.now)
            #expect(try Migrator.versions(db) == PostgresSchema.migrations.map(\.version))
            #expect(try Self.tables(db).contains("notification_outbox"))
            #expect(try PostgresMigrator().migrate(db, now: Self.now) == [])
            _ = try PostgresConnection.open(database.url, now: Self.now)
            #expect(try Migrator.versions(db) == PostgresSchema.migrations.map(\.version))
        }
    }

    /// The repositories' SQL serves both engines only while both have the same tables and
    /// columns: a SQLite migration without its PostgreSQL counterpart fails here.
    @Test func theTablesAndColumnsAreSQLites() throws {
        let file = try TemporaryDatabase()
        let sqlite = try file.open()
        var expected: [String: [String]] = [:]
        for table in try sqlite.query(
            "SELECT name FROM sqlite_schema WHERE type = 'table' AND name NOT LIKE 'sqlite_%' ORDER BY name", [],
            { $0.text(0) })
        {
            expected[table] = try sqlite.query("SELECT name FROM pragma_table_info(?) ORDER BY name", [.text(table)]) {
                $0.text(0)
            }
        }
        let database = try TemporaryPostgres()
        try withExtendedLifetime(database) {
            let db = try PostgresConnection.open(database.url, now: Self.now)
            var found: [String: [String]] = [:]
            for table in try Self.tables(db) {
                found[table] = try db.rows(
                    """
                    SELECT column_name::text FROM information_schema.columns
                    WHERE table_schema = current_schema() AND table_name = ? AND column_name <> 'xact'
                    ORDER BY column_name::text COLLATE "C"
                    """, [.text(table)]
                ) { $0.text(0) }
            }
            // The one difference in kind: SQLite's counter row is a SEQUENCE on PostgreSQL.
            expected["version_clock"] = nil
            #expect(try db.firstRow("SELECT to_regclass('version_clock')::text") { $0.text(0) } == "version_clock")
            #expect(Set(found.keys) == Set(expected.keys))
            for (table, columns) in expected {
                #expect(found[table] == columns, "\(table)")
            }
        }
    }

    @Test func aNewerSchemaIsRefusedAndNotAltered() throws {
        let database = try TemporaryPostgres()
        try withExtendedLifetime(database) {
            let db = try PostgresConnection.open(database.url, now: Self.now)
            try db.execute("INSERT INTO schema_migrations (version, applied_at) VALUES (99, 'later')", [])
            let before = try Self.tables(db)
            let error = #expect(throws: StoreError.self) { _ = try PostgresConnection.open(database.url) }
            guard case .schemaTooNew(let server, let found, let known) = error else {
                Issue.record("expected schemaTooNew, got \(String(describing: error))")
                return
            }
            #expect(server.hasPrefix("127.0.0.1:"))
            #expect(found == 99 && known == PostgresSchema.migrations.count)
            #expect(try Self.tables(db) == before)
            #expect(try Migrator.versions(db) == PostgresSchema.migrations.map(\.version) + [99])
        }
    }

    @Test func anotherApplicationsDatabaseIsRefusedUntouched() throws {
        let database = try TemporaryPostgres()
        try withExtendedLifetime(database) {
            let theirs = try database.connect()
            try theirs.execute("CREATE TABLE orders (id TEXT)", [])
            let error = #expect(throws: StoreError.self) { _ = try PostgresConnection.open(database.url) }
            guard case .notReplanServerDatabase = error else {
                Issue.record("expected notReplanServerDatabase, got \(String(describing: error))")
                return
            }
            #expect(try Self.tables(theirs) == ["orders"])
        }
    }

    /// The app's backend writes with plain SQL on a connection of its own: the trigger gives
    /// its row a fresh version from the sequence, so replan, which read the old version, sees
    /// the change. replan's own writes (and undo putting back a recorded version) keep theirs.
    @Test func aRowWrittenByAnotherConnectionGetsAFreshVersion() throws {
        let database = try TemporaryPostgres()
        try withExtendedLifetime(database) {
            let replan = try PostgresConnection.open(database.url, now: Self.now)
            try replan.execute(
                "INSERT INTO users (id, time_zone, created_at, updated_at) VALUES ('u', 'Asia/Taipei', 'x', 'x')", [])
            let version = try #require(try replan.firstRow("SELECT nextval('version_clock')") { $0.int(0) })
            try replan.execute(
                """
                INSERT INTO tasks (id, user_id, title, category, color, start, "end", all_day, completed,
                    created_at, updated_at, version)
                VALUES ('t', 'u', 'Essay', 'study', 'blue', '2025-01-07T10:00', '2025-01-07T11:00', 0, 0, 'x', 'x', ?)
                """, [.integer(version)])
            let read = { () throws -> Int in
                try #require(try replan.firstRow("SELECT version FROM tasks") { $0.int(0) })
            }
            #expect(try read() == version)

            let backend = try database.connect()
            try backend.execute("UPDATE tasks SET title = ? WHERE id = ?", ["Essay, edited in the app", "t"])
            let stamped = try read()
            #expect(stamped > version)

            // An undo puts back the recorded row, version included.
            try replan.execute("UPDATE tasks SET title = 'Essay', version = ? WHERE id = 't'", [.integer(version)])
            #expect(try read() == version)
            // Even a backend that writes the version column itself gets a fresh one.
            try backend.execute("UPDATE tasks SET version = ? WHERE id = 't'", [.integer(version)])
            #expect(try read() > stamped)
        }
    }

    @Test func idsSortBytewiseAndJSONTextReadsBackByteForByte() throws {
        let database = try TemporaryPostgres()
        try withExtendedLifetime(database) {
            let db = try PostgresConnection.open(database.url, now: Self.now)
            for id in ["b", "a", "_", "B", "é", "Z9"] {
                try db.execute(
                    "INSERT INTO users (id, time_zone, created_at, updated_at) VALUES (?, 'UTC', 'x', 'x')", [.text(id)]
                )
            }
            #expect(
                try db.rows("SELECT id FROM users ORDER BY id", []) { $0.text(0) } == ["B", "Z9", "_", "a", "b", "é"])
            let json = #"{"b":1,  "a":"\u00e9 é","n":1.50,"z":[ ]}"#
            try db.execute(
                "INSERT INTO changesets (id, user_id, created_at, origin, state, summary) VALUES ('c', 'a', 'x', 'manual', 'applied', ?)",
                [.text(json)])
            #expect(try db.firstRow("SELECT summary FROM changesets") { $0.text(0) } == json)
        }
    }
}

extension Migrator {
    /// The versions recorded in a PostgreSQL database, ascending.
    static func versions(_ db: PostgresConnection) throws -> [Int] {
        try db.rows("SELECT version FROM schema_migrations ORDER BY version", []) { $0.int(0) }
    }
}
