import CSQLite
import Foundation
import Planning
import ReplanTestSupport
import Testing

@testable import Store

@Suite struct DatabaseTests {
    @Test func newDatabaseFileHasMode0600() throws {
        let f = try Fixture()
        #expect(DatabaseFile.mode(f.path) == 0o600)
        try f.addUser()
        #expect(DatabaseFile.mode(f.path + "-wal") == 0o600)
    }

    @Test func existingLooseFileIsTightenedTo0600() throws {
        let f = try Fixture()
        let path = f.file("loose.db")
        #expect(FileManager.default.createFile(atPath: path, contents: nil, attributes: [.posixPermissions: 0o644]))
        _ = try Database.open(path: path)
        #expect(DatabaseFile.mode(path) == 0o600)
    }

    @Test func connectionUsesWALNormalSyncForeignKeysAndBusyTimeout() throws {
        let f = try Fixture()
        #expect(try f.sqlite.pragma("journal_mode") == "wal")
        #expect(try f.sqlite.pragma("synchronous") == "1") // NORMAL
        #expect(try f.sqlite.pragma("foreign_keys") == "1")
        #expect(try f.sqlite.pragma("busy_timeout") == "5000")
        let quick = try f.openAgain(busyTimeoutMilliseconds: 250)
        #expect(try quick.pragma("busy_timeout") == "250")
    }

    @Test func pathInMissingDirectoryIsCannotOpen() throws {
        let f = try Fixture()
        let path = f.file("missing/replan.db")
        guard case .cannotOpen(let p, _)? = storeError({ () throws(StoreError) in _ = try Database.open(path: path) })
        else {
            Issue.record("expected cannotOpen")
            return
        }
        #expect(p == path)
    }

    @Test func fileThatIsNotSQLiteIsRejected() throws {
        let f = try Fixture()
        let path = f.file("notes.txt")
        try Data(String(repeating: "these are not the pages you are looking for\n", count: 100).utf8).write(
            to: URL(fileURLWithPath: path))
        #expect(storeError { () throws(StoreError) in _ = try Database.open(path: path) } == .notADatabase(path: path))
    }

    @Test func statementsFinalizeSoCloseSucceeds() throws {
        let f = try Fixture()
        try f.addUser()
        _ = try f.users.list()
        do {
            let s = try f.sqlite.prepare("SELECT id FROM users")
            #expect(try s.step())
            #expect(s.text(0) == "mei")
        }
        try f.sqlite.close()
    }

    @Test func closeReportsAStatementStillHeld() throws {
        let f = try Fixture()
        let s = try f.sqlite.prepare("SELECT 1")
        withExtendedLifetime(s) {
            #expect(storeError { () throws(StoreError) in try f.sqlite.close() }?.code == SQLITE_BUSY)
        }
    }

    @Test func writeRollsBackWhenTheBodyThrows() throws {
        let f = try Fixture()
        let error = storeError { () throws(StoreError) in
            try f.sqlite.write { (db) throws(StoreError) in
                try UserRepository(db).add(try! User(id: "ghost", zone: UserZone(identifier: "UTC")), now: Fixture.now)
                throw StoreError.unknownUser("boom")
            }
        }
        #expect(error == .unknownUser("boom"))
        #expect(try f.users.find("ghost") == nil)
        #expect(!f.sqlite.isInTransaction)
    }

    @Test func nestedWriteRollsBackOnlyItsSavepoint() throws {
        let f = try Fixture()
        try f.sqlite.write { (db) throws(StoreError) in
            try UserRepository(db).add(try! User(id: "kept", zone: UserZone(identifier: "UTC")), now: Fixture.now)
            _ = storeError { () throws(StoreError) in
                try db.write { (db) throws(StoreError) in
                    try UserRepository(db).add(
                        try! User(id: "dropped", zone: UserZone(identifier: "UTC")), now: Fixture.now)
                    throw StoreError.unknownUser("inner")
                }
            }
        }
        #expect(try f.users.list().map(\.id) == ["kept"])
    }

    /// Inside `joiningNestedWrites`, nested writes open no savepoint of their own and are
    /// undone with the enclosing one.
    @Test func joinedNestedWritesRollBackWithTheEnclosingSavepoint() throws {
        let f = try Fixture()
        let db = try f.openAgain()
        try db.beginBatch()
        try UserRepository(db).add(try! User(id: "before", zone: UserZone(identifier: "UTC")), now: Fixture.now)
        let error = storeError { () throws(StoreError) in
            try db.write { (db) throws(StoreError) in
                try db.joiningNestedWrites { (db) throws(StoreError) in
                    try UserRepository(db).add(
                        try! User(id: "first", zone: UserZone(identifier: "UTC")), now: Fixture.now)
                    try db.write { (db) throws(StoreError) in
                        try UserRepository(db).add(
                            try! User(id: "second", zone: UserZone(identifier: "UTC")), now: Fixture.now)
                    }
                    throw StoreError.unknownUser("late")
                }
            }
        }
        #expect(error == .unknownUser("late"))
        #expect(db.isInTransaction)
        try db.commitBatch()
        #expect(try f.users.list().map(\.id) == ["before"])
        #expect(db.cachedSQL.contains("SAVEPOINT replan_1"))
        #expect(!db.cachedSQL.contains { $0.hasPrefix("SAVEPOINT replan_2") })
    }

    @Test func storeErrorCarriesCodesAndMessageButNoBoundValues() throws {
        let f = try Fixture()
        try f.addUser()
        let secret = "my diary: failed chemistry again"
        let error = storeError { () throws(StoreError) in
            try f.sqlite.execute(
                "INSERT INTO users (id, time_zone, language, display_name, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?)",
                ["mei", "UTC", "en", .text(secret), "2025-01-01T00:00:00Z", "2025-01-01T00:00:00Z"])
        }
        guard case .sqlite(let failure)? = error else {
            Issue.record("expected an SQLite failure")
            return
        }
        #expect(failure.code == SQLITE_CONSTRAINT)
        #expect(failure.extendedCode == 1555) // SQLITE_CONSTRAINT_PRIMARYKEY
        #expect(failure.message.contains("users.id"))
        #expect(failure.operation == "writing users", "what failed, without the statement")
        #expect(!error!.description.contains(secret))
        #expect(!error!.description.contains("mei"))
        #expect(error?.isBusy == false)
    }

    @Test func writerWaitingPastBusyTimeoutIsBusy() throws {
        let f = try Fixture()
        let other = try f.openAgain(busyTimeoutMilliseconds: 20)
        try f.sqlite.write { (_) throws(StoreError) in
            let error = storeError { () throws(StoreError) in try other.write { (_) throws(StoreError) in } }
            #expect(error?.isBusy == true)
        }
    }

    @Test func writeInOneConnectionIsVisibleInAnother() throws {
        let f = try Fixture()
        let other = try f.openAgain()
        #expect(try UserRepository(other).list().isEmpty)
        try f.addUser()
        #expect(try UserRepository(other).list().map(\.id) == ["mei"])
    }

    @Test func readSeesOneSnapshotWhileAnotherConnectionWrites() throws {
        let f = try Fixture()
        let other = try f.openAgain()
        try f.sqlite.read { (db) throws(StoreError) in
            #expect(try UserRepository(db).count() == 0)
            try UserRepository(other).add(try! User(id: "late", zone: UserZone(identifier: "UTC")), now: Fixture.now)
            #expect(try UserRepository(db).count() == 0)
        }
        #expect(try f.users.count() == 1)
    }

    @Test func typedBindsRoundTrip() throws {
        let f = try Fixture()
        try f.sqlite.execute("CREATE TEMP TABLE t (i, d, s, b, n)")
        let s = try f.sqlite.prepare("INSERT INTO t VALUES (?, ?, ?, ?, ?)")
        try s.bind(42, at: 1)
        try s.bind(2.5, at: 2)
        try s.bind("a\u{0}b é", at: 3)
        try s.bind(Data([0, 1, 2]), at: 4)
        try s.bindNull(at: 5)
        #expect(try !s.step())
        let row = try f.sqlite.queryFirst("SELECT i, d, s, b, n, typeof(s) FROM t") { s in
            (s.int(0), s.double(1), s.text(2), (s as! Statement).data(3), s.isNull(4), s.text(5))
        }
        #expect(row?.0 == 42)
        #expect(row?.1 == 2.5)
        #expect(row?.2 == "a\u{0}b é")
        #expect(row?.3 == Data([0, 1, 2]))
        #expect(row?.4 == true)
        #expect(row?.5 == "text")
    }
}
