import Foundation
import Planning
import Testing

@testable import Store

@Suite struct MigratorTests {
    static let tables: Set<String> = [
        "schema_migrations", "users", "settings", "tasks", "occurrence_overrides", "series_slides",
        "statistics", "focus_sessions", "changesets", "changeset_edits", "runs", "user_runs",
        "transcripts", "notification_outbox", "statistics_base", "version_clock", "model_memory",
        // SQLite's own: the outbox's AUTOINCREMENT high-water mark (migration 7).
        "sqlite_sequence",
    ]

    /// A later release's migration, only for these tests.
    static let addNickname = Migration.sql(
        version: 100, name: "users.nickname",
        "ALTER TABLE users ADD COLUMN nickname TEXT NOT NULL DEFAULT ''")

    @Test func emptyFileGetsEveryTableFromTheMigrations() throws {
        let f = try Fixture()
        #expect(try Migrator.appliedVersions(f.sqlite) == Array(1...Schema.migrations.count))
        let names = try f.sqlite.query("SELECT name FROM sqlite_master WHERE type = 'table'") { $0.text(0) }
        #expect(Set(names) == MigratorTests.tables)
    }

    @Test func reopeningAppliesNothing() throws {
        let f = try Fixture()
        try f.sqlite.close()
        let again = try f.openAgain()
        #expect(try Migrator(migrations: Schema.migrations).migrate(again, now: Fixture.later) == [])
        let appliedAt = try again.query("SELECT applied_at FROM schema_migrations") { $0.text(0) }
        #expect(appliedAt == Array(repeating: Timestamp.text(Fixture.now), count: Schema.migrations.count))
    }

    @Test func oldDatabaseUpgradesInPlaceWithInjectedMigration() throws {
        let f = try Fixture(migrations: [])
        // An "old" database: migration 1 applied by hand, with a user in it; opening it
        // applies the release's migrations 2 and 3 and the injected 4.
        try f.sqlite.executeScript(Schema.initial)
        try f.sqlite.execute("INSERT INTO schema_migrations (version, applied_at) VALUES (1, '2024-09-01T00:00:00Z')")
        try f.addUserRow()
        try f.sqlite.close()

        let upgraded = try Database.open(
            path: f.path, migrations: Schema.migrations + [MigratorTests.addNickname], now: Fixture.later)
        #expect(try Migrator.appliedVersions(upgraded) == Array(1...Schema.migrations.count) + [100])
        #expect(try upgraded.queryFirst("SELECT nickname FROM users WHERE id = 'mei'") { $0.text(0) } == "")
        #expect(try UserRepository(upgraded).get("mei").zone.identifier == "Asia/Taipei")
        #expect(
            try Migrator(migrations: Schema.migrations + [MigratorTests.addNickname]).migrate(
                upgraded, now: Fixture.later) == [])
    }

    @Test func openingAnUpToDateDatabaseNeedsNoWriteLock() throws {
        let f = try Fixture()
        try f.sqlite.write { (_) throws(StoreError) in
            // Another connection opens while this one holds the write lock.
            let reader = try Database.open(path: f.path, busyTimeoutMilliseconds: 10)
            #expect(try UserRepository(reader).count() == 0)
        }
    }

    @Test func schemaNewerThanThisBinaryIsRefused() throws {
        let f = try Fixture(migrations: Schema.migrations + [MigratorTests.addNickname])
        try f.sqlite.close()
        let error = storeError { () throws(StoreError) in _ = try Database.open(path: f.path) }
        #expect(error == .schemaTooNew(path: f.path, found: 100, known: Schema.migrations.count))
    }

    @Test func failingMigrationLeavesTheDatabaseAtThePreviousVersion() throws {
        let f = try Fixture()
        try f.sqlite.close()
        let broken = Migration.sql(
            version: 100, name: "broken", "ALTER TABLE users ADD COLUMN x TEXT; SELECT * FROM no_such_table")
        #expect(
            storeError { () throws(StoreError) in
                _ = try Database.open(path: f.path, migrations: Schema.migrations + [broken])
            } != nil)
        let again = try f.openAgain()
        #expect(try Migrator.appliedVersions(again) == Array(1...Schema.migrations.count))
        #expect(try again.query("SELECT name FROM pragma_table_info('users') WHERE name = 'x'") { $0.text(0) }.isEmpty)
    }

    /// Migration 3 turns the CHECK lists into comparisons: writes of those rows no longer build a
    /// temporary b-tree per list (the nightly writer paid about 19 per student), the checks still
    /// refuse what they refused, and a database written before it upgrades in place.
    @Test func listChecksBecomeComparisonsWithTheSameMeaning() throws {
        let f = try Fixture(migrations: [])
        try f.sqlite.executeScript(Schema.initial)
        try f.sqlite.execute("INSERT INTO schema_migrations (version, applied_at) VALUES (1, '2024-09-01T00:00:00Z')")
        try f.addUserRow()
        try f.sqlite.execute(
            """
            INSERT INTO tasks (id, user_id, title, category, color, start, "end", all_day, completed, repeat_every, created_at, updated_at, version)
            VALUES ('t1', 'mei', 'Vocab', 'English', 'blue', '2025-01-06T20:00', '2025-01-06T20:30', 0, 0, 'daily', 'x', 'x', 1)
            """)
        try f.sqlite.close()

        let db = try Database.open(path: f.path, now: Fixture.later)
        #expect(try Migrator.appliedVersions(db) == Array(1...Schema.migrations.count))
        let text = try db.query("SELECT sql FROM sqlite_schema WHERE type = 'table'") { $0.text(0) }.joined(
            separator: "\n")
        for check in Schema.listChecks {
            #expect(!text.contains("\(check.column) IN (\(check.values[0])"), "\(check.table).\(check.column)")
            #expect(text.contains("\(check.column) = \(check.values[0]) OR"), "\(check.table).\(check.column)")
        }
        #expect(
            try db.queryFirst("SELECT color || repeat_every FROM tasks WHERE id = 't1'") { $0.text(0) } == "bluedaily")
        #expect(try db.query("PRAGMA integrity_check") { $0.text(0) } == ["ok"])

        let writes = [
            "UPDATE tasks SET color = 'red', repeat_every = 'weekly' WHERE id = 't1'",
            "INSERT INTO occurrence_overrides (task_id, original_date, state, version) VALUES ('t1', '2025-01-07', 'completed', 1)",
            "INSERT INTO changesets (id, user_id, created_at, origin, state) VALUES ('c1', 'mei', 'x', 'nightly', 'applied')",
            "INSERT INTO changeset_edits (changeset_id, seq, entity, entity_key) VALUES ('c1', 1, 'override', 't1@2025-01-07')",
            "INSERT INTO runs (id, started_at) VALUES (1, 'x')",
            "INSERT INTO user_runs (run_id, user_id, plan_date, status, finished_at) VALUES (1, 'mei', '2025-01-07', 'unchanged', 'x')",
        ]
        for sql in writes {
            let ops = try db.query("EXPLAIN " + sql) { $0.text(1) }
            #expect(!ops.contains("OpenEphemeral"), "\(sql)")
            try db.execute(sql)
        }
        let refused = [
            "UPDATE tasks SET color = 'purple' WHERE id = 't1'",
            "UPDATE tasks SET repeat_every = 'yearly' WHERE id = 't1'",
            "UPDATE occurrence_overrides SET state = 'lost' WHERE task_id = 't1'",
            "UPDATE changesets SET origin = 'robot' WHERE id = 'c1'",
            "UPDATE changeset_edits SET entity = 'nobody' WHERE changeset_id = 'c1'",
            "UPDATE user_runs SET status = 'done' WHERE run_id = 1",
        ]
        for sql in refused {
            let error = storeError { () throws(StoreError) in try db.execute(sql) }
            #expect(error.map { "\($0)".contains("CHECK constraint failed") } == true, "\(sql)")
        }
        // NULL passes the rewritten check as it passed the list: a one-off task.
        try db.execute("UPDATE tasks SET repeat_every = NULL WHERE id = 't1'")
    }

    @Test func focusEditsAreAcceptedOnlyOnceMigration8Ran() throws {
        let f = try Fixture(migrations: Schema.migrations.filter { $0.version < 8 })
        try f.addUserRow()
        try f.sqlite.execute(
            "INSERT INTO changesets (id, user_id, created_at, origin, state) VALUES ('c1', 'mei', 'x', 'import', 'applied')"
        )
        let focus =
            "INSERT INTO changeset_edits (changeset_id, seq, entity, entity_key) VALUES ('c1', 1, 'focus', '2025-01-06T10:00|25|English')"
        let before = storeError { () throws(StoreError) in try f.sqlite.execute(focus) }
        #expect(before.map { "\($0)".contains("CHECK constraint failed") } == true)
        try f.sqlite.close()

        let db = try Database.open(path: f.path, now: Fixture.later)
        #expect(try Migrator.appliedVersions(db) == Array(1...Schema.migrations.count))
        try db.execute(focus)
        let other = storeError { () throws(StoreError) in
            try db.execute("UPDATE changeset_edits SET entity = 'nobody' WHERE changeset_id = 'c1'")
        }
        #expect(other.map { "\($0)".contains("CHECK constraint failed") } == true)
        #expect(try db.query("PRAGMA integrity_check") { $0.text(0) } == ["ok"])
    }

    /// Migration 9: a `user` edit is accepted, and a changeset outlives its user (the undone
    /// import of a student it created, kept for redo); the stored rows are untouched.
    @Test func changesetsOutliveTheirUserAndRecordUserEditsOnceMigration9Ran() throws {
        let f = try Fixture(migrations: Schema.migrations.filter { $0.version < 9 })
        try f.addUserRow()
        try f.sqlite.execute(
            "INSERT INTO changesets (id, user_id, created_at, origin, state) VALUES ('c1', 'mei', 'x', 'import', 'applied')"
        )
        let user = "INSERT INTO changeset_edits (changeset_id, seq, entity, entity_key) VALUES ('c1', 1, 'user', 'mei')"
        let before = storeError { () throws(StoreError) in try f.sqlite.execute(user) }
        #expect(before.map { "\($0)".contains("CHECK constraint failed") } == true)
        try f.sqlite.close()

        let db = try Database.open(path: f.path, now: Fixture.later)
        #expect(try Migrator.appliedVersions(db) == Array(1...Schema.migrations.count))
        try db.execute(user)
        try db.execute("DELETE FROM users WHERE id = 'mei'")
        #expect(try db.queryFirst("SELECT count(*) FROM changeset_edits WHERE changeset_id = 'c1'") { $0.int(0) } == 1)
        let other = storeError { () throws(StoreError) in
            try db.execute("UPDATE changeset_edits SET entity = 'nobody' WHERE changeset_id = 'c1'")
        }
        #expect(other.map { "\($0)".contains("CHECK constraint failed") } == true)
        #expect(try db.query("PRAGMA integrity_check") { $0.text(0) } == ["ok"])
        #expect(try db.query("PRAGMA foreign_key_check") { $0.text(0) }.isEmpty)
    }
}
