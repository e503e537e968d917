import Foundation
import ReplanTestSupport
import Store
import Testing

@testable import Nightly

@Suite("The writers of a PostgreSQL night share the students and report one at a time")
struct WriterPoolTests {
    /// Not thread-safe on purpose: the pool must run completions one at a time.
    final class Tally: @unchecked Sendable {
        var count = 0
        var inside = 0
        var overlapped = false
    }

    @Test("students go to the writers in turn; every one is committed and reported once, never two reports at once")
    func studentsAreSharedAndReportedOneAtATime() throws {
        let fixture = try NightlyFixture()
        let setup = try fixture.connect()
        try setup.execute("CREATE TABLE notes (writer INTEGER NOT NULL, student INTEGER NOT NULL)", [])
        let connections = try (0..<3).map { _ in try fixture.connect() }
        let pool = WriterPool(connections.map { BatchingWriter($0, maxStudents: 1, maxAge: 0) })
        defer { pool.stop() }
        let tally = Tally()
        for student in 0..<90 {
            pool.stage(
                { (db) throws(StoreError) -> Int in
                    let writer = connections.firstIndex { $0 === db } ?? -1
                    try db.execute("INSERT INTO notes VALUES (?, ?)", [.integer(writer), .integer(student)])
                    return student
                },
                then: { result in
                    tally.inside += 1
                    if tally.inside > 1 { tally.overlapped = true }
                    Thread.sleep(forTimeInterval: 0.0005)
                    if case .success = result { tally.count += 1 }
                    tally.inside -= 1
                })
        }
        // `perform` sees every student staged before it.
        let rows = try pool.perform { (db) throws(StoreError) in
            try db.query("SELECT count(*) FROM notes", []) { $0.int(0) }.first ?? 0
        }
        #expect(rows == 90)
        #expect(tally.count == 90)
        #expect(!tally.overlapped)
        let perWriter = try setup.query("SELECT count(*) FROM notes GROUP BY writer ORDER BY writer", []) { $0.int(0) }
        #expect(perWriter == [30, 30, 30])
    }
}
