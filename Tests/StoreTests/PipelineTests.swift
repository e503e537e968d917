import Foundation
import ReplanTestSupport
import Testing

@testable import Store

/// `send`: a write whose answer nobody waits for. SQLite runs it at once; PostgreSQL holds it
/// and sends what it holds as one libpq pipeline with the next statement that needs an answer.
/// Either way the transaction stays whole: an error in any held statement throws, typed, in
/// the transaction that held it, nothing of it is written, and the connection goes on working.
@Suite struct PipelineTests {
    static let table = "CREATE TABLE probe (id TEXT PRIMARY KEY, n BIGINT NOT NULL CHECK (n >= 0))"

    static func ids(_ db: any SQLExecutor) throws -> [String] {
        try db.query("SELECT id FROM probe ORDER BY id", []) { $0.text(0) }
    }

    @Test(arguments: EngineUnderTest.engines) func aFailingStatementInTheMiddleLeavesNothingWritten(
        _ engine: DatabaseEngine
    ) throws {
        try EngineUnderTest(engine).run { db in
            try db.execute(Self.table, [])
            try db.execute("INSERT INTO probe (id, n) VALUES (?, ?)", ["before", 1])
            let error = #expect(throws: StoreError.self) {
                try db.write { (db) throws(StoreError) in
                    try db.send("INSERT INTO probe (id, n) VALUES (?, ?)", ["a", 1])
                    try db.send("UPDATE probe SET n = n + 1 WHERE id = ?", ["before"])
                    // The middle one breaks the CHECK; the ones after it must not count either.
                    try db.send("INSERT INTO probe (id, n) VALUES (?, ?)", ["b", -1])
                    try db.send("INSERT INTO probe (id, n) VALUES (?, ?)", ["c", 3])
                    try db.send("DELETE FROM probe WHERE id = ?", ["before"])
                }
            }
            // Typed, naming the table and not the values.
            if engine == .postgresql {
                guard case .postgres(let failure)? = error else {
                    Issue.record("expected a PostgreSQL failure, got \(String(describing: error))")
                    return
                }
                #expect(failure.sqlState == "23514")
                #expect(failure.operation == "writing probe (execute)")
            }
            #expect(try Self.ids(db) == ["before"])
            #expect(try db.queryFirst("SELECT n FROM probe WHERE id = ?", ["before"]) { $0.int(0) } == 1)
            #expect(!db.isInTransaction)
            // The connection works afterwards, in and out of transactions, held writes included.
            try db.write { (db) throws(StoreError) in
                try db.send("INSERT INTO probe (id, n) VALUES (?, ?)", ["after", 2])
            }
            try db.execute("INSERT INTO probe (id, n) VALUES (?, ?)", ["plain", 4])
            #expect(try Self.ids(db) == ["after", "before", "plain"])
        }
    }

    /// `sendRows`: any number of rows, in groups of 32, 16, …, 1, written in order, and a bad
    /// row anywhere fails the whole transaction.
    @Test(arguments: EngineUnderTest.engines) func rowsGoInGroupsInOrderAndABadOneFailsThemAll(
        _ engine: DatabaseEngine
    ) throws {
        try EngineUnderTest(engine).run { db in
            try db.execute(
                "CREATE TABLE ordered (seq BIGINT PRIMARY KEY, batch BIGINT NOT NULL, n BIGINT NOT NULL CHECK (n >= 0))",
                [])
            for count in [0, 1, 2, 3, 31, 32, 33, 63, 100] {
                try db.write { (db) throws(StoreError) in
                    try db.sendRows(
                        "INSERT INTO ordered (seq, batch, n)",
                        (0..<count).map { [.integer(count * 1_000 + $0), .integer(count), .integer($0)] })
                }
            }
            let rows = try db.query("SELECT batch, n FROM ordered ORDER BY seq", []) { [$0.int(0), $0.int(1)] }
            let expected = [0, 1, 2, 3, 31, 32, 33, 63, 100].flatMap { count in (0..<count).map { [count, $0] } }
            #expect(rows == expected)
            // An upsert's tail applies to every row of every group.
            try db.write { (db) throws(StoreError) in
                try db.sendRows(
                    "INSERT INTO ordered (seq, batch, n)",
                    (0..<40).map { [.integer(100_000 + $0), 100, .integer($0)] },
                    then: "ON CONFLICT (seq) DO UPDATE SET n = excluded.n + 1")
            }
            #expect(try db.queryFirst("SELECT sum(n) FROM ordered WHERE batch = ?", [100]) { $0.int(0) } == 4_950 + 40)
            let before = try db.queryFirst("SELECT count(*) FROM ordered", []) { $0.int(0) }
            #expect(throws: StoreError.self) {
                try db.write { (db) throws(StoreError) in
                    try db.sendRows(
                        "INSERT INTO ordered (seq, batch, n)",
                        (0..<50).map { [.integer(200_000 + $0), 7, .integer($0 == 45 ? -1 : $0)] })
                }
            }
            #expect(try db.queryFirst("SELECT count(*) FROM ordered", []) { $0.int(0) } == before)
            #expect(!db.isInTransaction)
        }
    }

    @Test(arguments: EngineUnderTest.engines) func aHeldWriteIsSeenByTheNextReadAndKeepsItsOrder(
        _ engine: DatabaseEngine
    ) throws {
        try EngineUnderTest(engine).run { db in
            try db.execute(Self.table, [])
            let seen = try db.write { (db) throws(StoreError) -> [Int] in
                try db.send("INSERT INTO probe (id, n) VALUES (?, ?)", ["a", 1])
                try db.send("UPDATE probe SET n = n * 10 WHERE id = ?", ["a"])
                try db.send("UPDATE probe SET n = n + 1 WHERE id = ?", ["a"])
                let first = try db.queryFirst("SELECT n FROM probe WHERE id = ?", ["a"]) { $0.int(0) } ?? -1
                try db.send("UPDATE probe SET n = n * 2 WHERE id = ?", ["a"])
                let changed = try db.execute("UPDATE probe SET n = n + 1 WHERE id = ?", ["a"])
                return [first, changed]
            }
            #expect(seen == [11, 1])
            #expect(try db.queryFirst("SELECT n FROM probe WHERE id = ?", ["a"]) { $0.int(0) } == 23)
        }
    }

    @Test(arguments: EngineUnderTest.engines) func aFailureInASavepointRollsBackOnlyTheSavepoint(
        _ engine: DatabaseEngine
    ) throws {
        try EngineUnderTest(engine).run { db in
            try db.execute(Self.table, [])
            try db.write { (db) throws(StoreError) in
                try db.send("INSERT INTO probe (id, n) VALUES (?, ?)", ["outer", 1])
                _ = try? db.write { (db) throws(StoreError) in
                    try db.send("INSERT INTO probe (id, n) VALUES (?, ?)", ["inner", 1])
                    try db.send("INSERT INTO probe (id, n) VALUES (?, ?)", ["outer", 2])
                }
                try db.send("INSERT INTO probe (id, n) VALUES (?, ?)", ["after", 1])
            }
            #expect(try Self.ids(db) == ["after", "outer"])
            // A failure the outer level held before the savepoint is the outer level's: the
            // whole transaction goes, not only the savepoint.
            #expect(throws: StoreError.self) {
                try db.write { (db) throws(StoreError) in
                    try db.send("INSERT INTO probe (id, n) VALUES (?, ?)", ["x", -1])
                    _ = try? db.write { (db) throws(StoreError) in
                        try db.send("INSERT INTO probe (id, n) VALUES (?, ?)", ["y", 1])
                    }
                    try db.send("INSERT INTO probe (id, n) VALUES (?, ?)", ["z", 1])
                }
            }
            #expect(try Self.ids(db) == ["after", "outer"])
        }
    }

    @Test(arguments: EngineUnderTest.engines) func outsideATransactionASendRunsAtOnce(_ engine: DatabaseEngine)
        throws
    {
        try EngineUnderTest(engine).run { db in
            try db.execute(Self.table, [])
            try db.send("INSERT INTO probe (id, n) VALUES (?, ?)", ["a", 1])
            #expect(throws: StoreError.self) { try db.send("INSERT INTO probe (id, n) VALUES (?, ?)", ["a", 2]) }
            #expect(try Self.ids(db) == ["a"])
        }
    }

    @Test(.enabled(if: EngineUnderTest.engines.contains(.postgresql)))
    func aTransactionOfHeldWritesIsOneRoundTrip() throws {
        try EngineUnderTest(.postgresql).run { executor in
            let db = try #require(executor as? PostgresConnection)
            try db.execute(Self.table, [])
            func student(_ k: Int) throws(StoreError) {
                try db.write { (db) throws(StoreError) in
                    for i in 0..<20 { try db.send("INSERT INTO probe (id, n) VALUES (?, ?)", [.text("\(k)-\(i)"), 1]) }
                    try db.send("UPDATE probe SET n = n + 1 WHERE id = ?", [.text("\(k)-0")])
                    try db.send("DELETE FROM probe WHERE id = ?", [.text("\(k)-1")])
                }
            }
            try student(0) // prepares the three statements, once per connection
            let before = db.roundTrips
            try student(1)
            #expect(db.roundTrips - before == 1) // BEGIN, 22 writes and COMMIT in one pipeline
            let read = db.roundTrips
            let count = try db.read { (db) throws(StoreError) in
                try db.queryFirst("SELECT count(*) FROM probe", []) { $0.int(0) }
            }
            #expect(count == 38)
            #expect(db.roundTrips - read == 2) // BEGIN with the query, then COMMIT
        }
    }

    /// The refusal to overwrite another writer's change holds inside a pipeline: the row this
    /// transaction read changes under it (the app's backend, on another connection), and the
    /// held write of that row fails as a retryable conflict, taking every other held write of
    /// the transaction with it.
    @Test(.enabled(if: EngineUnderTest.engines.contains(.postgresql)))
    func aRowChangedByAnotherConnectionIsRefusedMidPipeline() throws {
        let database = try TemporaryPostgres()
        let db = try database.connect()
        let backend = try database.connect()
        try db.execute(Self.table, [])
        try db.execute("INSERT INTO probe (id, n) VALUES (?, ?)", ["row", 1])
        let error = #expect(throws: StoreError.self) {
            try db.write { (db) throws(StoreError) in
                let n = try db.queryFirst("SELECT n FROM probe WHERE id = ?", ["row"]) { $0.int(0) } ?? 0
                try db.send("INSERT INTO probe (id, n) VALUES (?, ?)", ["first", 1])
                try backend.execute("UPDATE probe SET n = ? WHERE id = ?", [100, "row"])
                try db.send("UPDATE probe SET n = ? WHERE id = ?", [.integer(n + 1), "row"])
                try db.send("INSERT INTO probe (id, n) VALUES (?, ?)", ["last", 1])
            }
        }
        #expect(error?.isBusy == true)
        #expect(try Self.ids(db) == ["row"])
        #expect(try db.queryFirst("SELECT n FROM probe WHERE id = ?", ["row"]) { $0.int(0) } == 100)
        // The retry, on the same connection, sees the backend's value and writes over nothing.
        try db.write { (db) throws(StoreError) in
            let n = try db.queryFirst("SELECT n FROM probe WHERE id = ?", ["row"]) { $0.int(0) } ?? 0
            try db.send("UPDATE probe SET n = ? WHERE id = ?", [.integer(n + 1), "row"])
        }
        #expect(try db.queryFirst("SELECT n FROM probe WHERE id = ?", ["row"]) { $0.int(0) } == 101)
        withExtendedLifetime(database) {}
    }
}
