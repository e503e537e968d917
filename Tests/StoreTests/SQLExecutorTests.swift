import Foundation
import ReplanTestSupport
import Testing

@testable import Store

/// The connection boundary behaves the same on both engines: values round-trip, transactions
/// commit and roll back, savepoints nest, and failures are typed without the values bound.
@Suite struct SQLExecutorTests {
    static let table = "CREATE TABLE probe (id TEXT PRIMARY KEY, n BIGINT, x DOUBLE PRECISION, note TEXT)"

    @Test(arguments: EngineUnderTest.engines) func valuesRoundTrip(_ engine: DatabaseEngine) throws {
        try EngineUnderTest(engine).run { db in
            #expect(db.engine == engine)
            try db.execute(Self.table, [])
            let texts = ["", "plain", "Ünïcödé 漢字 🎓", "it's \"quoted\" ? $1", "line\nbreak"]
            let numbers = [Int.min, -1, 0, 1, Int.max]
            let reals = [0.1, -2.5e-300, 1e300, 1.0 / 3.0, 0]
            for (i, text) in texts.enumerated() {
                try db.execute(
                    "INSERT INTO probe (id, n, x, note) VALUES (?, ?, ?, ?)",
                    [.text("k\(i)"), .integer(numbers[i]), .real(reals[i]), .text(text)])
            }
            try db.execute("INSERT INTO probe (id, n, x, note) VALUES (?, ?, ?, ?)", ["null", nil, nil, nil])
            let read = try db.query("SELECT id, n, x, note FROM probe WHERE id <> ? ORDER BY id", ["null"]) {
                ($0.text(0), $0.int(1), $0.double(2), $0.text(3))
            }
            #expect(read.map(\.0) == texts.indices.map { "k\($0)" })
            #expect(read.map(\.1) == numbers)
            #expect(read.map(\.2) == reals)
            #expect(read.map(\.3) == texts)
            let nulls = try db.queryFirst("SELECT n, x, note FROM probe WHERE id = ?", ["null"]) {
                [$0.isNull(0), $0.isNull(1), $0.isNull(2), $0.optionalInt(0) == nil, $0.optionalText(2) == nil]
            }
            #expect(nulls == [true, true, true, true, true])
        }
    }

    struct Abort: Error {}

    @Test(arguments: EngineUnderTest.engines) func aThrowingTransactionLeavesNothingAndSavepointsNest(
        _ engine: DatabaseEngine
    ) throws {
        try EngineUnderTest(engine).run { db in
            try db.execute(Self.table, [])
            #expect(throws: StoreError.self) {
                try db.write { (_) throws(StoreError) in
                    try db.execute("INSERT INTO probe (id) VALUES (?)", ["a"])
                    try db.execute("INSERT INTO probe (id) VALUES (?)", ["a"])
                }
            }
            #expect(try db.query("SELECT id FROM probe", []) { $0.text(0) } == [])
            try db.write { (_) throws(StoreError) in
                try db.execute("INSERT INTO probe (id) VALUES (?)", ["outer"])
                _ = try? db.write { (_) throws(StoreError) in
                    try db.execute("INSERT INTO probe (id) VALUES (?)", ["inner"])
                    try db.execute("INSERT INTO probe (id) VALUES (?)", ["outer"])
                }
                try db.execute("INSERT INTO probe (id) VALUES (?)", ["after"])
            }
            #expect(try db.query("SELECT id FROM probe ORDER BY id", []) { $0.text(0) } == ["after", "outer"])
        }
    }

    @Test(arguments: EngineUnderTest.engines) func aFailureNamesTheStatementNotTheValues(_ engine: DatabaseEngine)
        throws
    {
        try EngineUnderTest(engine).run { db in
            try db.execute(Self.table, [])
            try db.execute("INSERT INTO probe (id, note) VALUES (?, ?)", ["secret-key-42", "diary"])
            let error = #expect(throws: StoreError.self) {
                try db.execute("INSERT INTO probe (id, note) VALUES (?, ?)", ["secret-key-42", "my private diary"])
            }
            let text = error?.description ?? ""
            #expect(text.contains("probe"))
            #expect(!text.contains("secret-key-42"))
            #expect(!text.contains("private diary"))
        }
    }
}
