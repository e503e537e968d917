import Foundation
import Planning
import Testing
@testable import Store

@Suite struct MigratorTests {
    static let tables: Set<String> = ["schema_migrations", "users", "settings", "tasks", "occurrence_overrides", "series_slides",
                                      "statistics", "focus_sessions", "changesets", "changeset_edits", "runs", "user_runs",
                                      "transcripts", "notification_outbox", "statistics_base"]

    /// A later release's migration, only for these tests.
    static let addNickname = Migration.sql(version: 3, name: "users.nickname",
                                           "ALTER TABLE users ADD COLUMN nickname TEXT NOT NULL DEFAULT ''")

    @Test func emptyFileGetsEveryTableFromTheMigrations() throws {
        let f = try Fixture()
        #expect(try Migrator.appliedVersions(f.db) == [1, 2])
        let names = try f.db.query("SELECT name FROM sqlite_master WHERE type = 'table'") { $0.text(0) }
        #expect(Set(names) == MigratorTests.tables)
    }

    @Test func reopeningAppliesNothing() throws {
        let f = try Fixture()
        try f.db.close()
        let again = try f.openAgain()
        #expect(try Migrator(migrations: Schema.migrations).migrate(again, now: Fixture.later) == [])
        let appliedAt = try again.query("SELECT applied_at FROM schema_migrations") { $0.text(0) }
        #expect(appliedAt == Array(repeating: Timestamp.text(Fixture.now), count: Schema.migrations.count))
    }

    @Test func oldDatabaseUpgradesInPlaceWithInjectedMigration() throws {
        let f = try Fixture(migrations: [])
        // An "old" database: migration 1 applied by hand, with a user in it; opening it
        // applies the release's migration 2 and the injected 3.
        try f.db.executeScript(Schema.initial)
        try f.db.execute("INSERT INTO schema_migrations (version, applied_at) VALUES (1, '2024-09-01T00:00:00Z')")
        try f.addUser()
        try f.db.close()

        let upgraded = try Database.open(path: f.path, migrations: Schema.migrations + [MigratorTests.addNickname], now: Fixture.later)
        #expect(try Migrator.appliedVersions(upgraded) == [1, 2, 3])
        #expect(try upgraded.queryFirst("SELECT nickname FROM users WHERE id = 'mei'") { $0.text(0) } == "")
        #expect(try UserRepository(upgraded).get("mei").zone.identifier == "Asia/Taipei")
        #expect(try Migrator(migrations: Schema.migrations + [MigratorTests.addNickname]).migrate(upgraded, now: Fixture.later) == [])
    }

    @Test func openingAnUpToDateDatabaseNeedsNoWriteLock() throws {
        let f = try Fixture()
        try f.db.write { (_) throws(StoreError) in
            // Another connection opens while this one holds the write lock.
            let reader = try Database.open(path: f.path, busyTimeoutMilliseconds: 10)
            #expect(try UserRepository(reader).count() == 0)
        }
    }

    @Test func schemaNewerThanThisBinaryIsRefused() throws {
        let f = try Fixture(migrations: Schema.migrations + [MigratorTests.addNickname])
        try f.db.close()
        let error = storeError { () throws(StoreError) in _ = try Database.open(path: f.path) }
        #expect(error == .schemaTooNew(path: f.path, found: 3, known: 2))
    }

    @Test func failingMigrationLeavesTheDatabaseAtThePreviousVersion() throws {
        let f = try Fixture()
        try f.db.close()
        let broken = Migration.sql(version: 3, name: "broken", "ALTER TABLE users ADD COLUMN x TEXT; SELECT * FROM no_such_table")
        #expect(storeError { () throws(StoreError) in _ = try Database.open(path: f.path, migrations: Schema.migrations + [broken]) } != nil)
        let again = try f.openAgain()
        #expect(try Migrator.appliedVersions(again) == [1, 2])
        #expect(try again.query("SELECT name FROM pragma_table_info('users') WHERE name = 'x'") { $0.text(0) }.isEmpty)
    }
}
