import Foundation
import Planning
import ReplanTestSupport
import Synchronization
import Testing

@testable import Store

/// Issue 21: on PostgreSQL an identity value is taken when a row is inserted, not when its
/// transaction commits, so with two writers a lower id can commit after a higher one. A
/// consumer that had already moved its cursor past the higher id would never see the lower.
/// The outbox's writers therefore hold a transaction-scoped advisory lock from their first
/// outbox row to their commit (`OutboxRepository.insert`).
@Suite(.enabled(if: EngineUnderTest.engines.contains(.postgresql)))
struct OutboxConcurrentWritersTests {
    static let entry = OutboxEntry(
        occurrenceID: OccurrenceID(taskID: "m1"), fireAt: Date(timeIntervalSince1970: 1_736_229_000), action: .schedule)

    /// Delivers like the documented consumer: rows after the cursor, in order, cursor = last id.
    final class Consumer: @unchecked Sendable {
        let outbox: OutboxRepository
        var cursor = 0
        var delivered: [Int] = []
        init(_ db: any SQLExecutor) { outbox = OutboxRepository(db) }
        func poll() throws {
            for row in try outbox.entries(after: cursor, limit: 100) {
                delivered.append(row.id)
                cursor = row.id
            }
        }
    }

    /// What goes wrong without the lock, shown with plain inserts: the first writer's row has
    /// the lower id but commits last, after the consumer moved past the second's.
    @Test func withoutTheLockAConsumerSkipsTheRowThatCommitsLate() throws {
        let f = try Fixture(.postgresql)
        try f.addUser()
        let first = f.db
        let second = try f.connectAgain()
        let consumer = Consumer(try f.connectAgain())
        let insert = """
            INSERT INTO notification_outbox (user_id, occurrence_id, fire_at, action, created_at)
            VALUES ('mei', 'm1', '2025-01-07T05:50:00Z', 'schedule', '2025-01-07T03:00:00Z')
            """
        try first.execute("BEGIN")
        try first.execute(insert)
        try second.execute(insert) // its own transaction: commits at once, with the higher id
        try consumer.poll()
        try first.execute("COMMIT")
        try consumer.poll()
        let all = try f.db.query("SELECT id FROM notification_outbox ORDER BY id", []) { $0.int(0) }
        #expect(all.count == 2)
        #expect(consumer.delivered == [all[1]], "the lower id committed after the cursor passed it")
    }

    /// With the repository's writes, the second writer waits for the first one's commit, so ids
    /// commit in order and a consumer polling throughout gets every row once, in order.
    @Test func twoWritersInTheOppositeOrderDeliverEveryRowOnce() throws {
        let f = try Fixture(.postgresql)
        try f.addUser()
        let location = try StoreLocation(f.path)
        let consumer = Consumer(try f.connectAgain())
        let firstInserted = Mutex(false)
        let secondStarted = Mutex(false)
        let secondDone = Mutex(false)
        let firstDone = Mutex(false)
        let firstWriter = Thread {
            defer { firstDone.withLock { $0 = true } }
            guard let db = try? location.open() else { return }
            _ = try? db.write { (db) throws(StoreError) in
                try OutboxRepository(db).insert([Self.entry], userID: "mei", changesetID: nil, createdAt: Fixture.now)
                // The insert is held for the next round trip (`SQLExecutor.send`); a read sends
                // it, so this writer holds the lower id from here on.
                _ = try db.queryFirst("SELECT max(id) FROM notification_outbox", []) { $0.int(0) }
                firstInserted.withLock { $0 = true }
                while !secondStarted.withLock({ $0 }) { usleep(1_000) }
                // The second writer tries to commit first while this one holds the lower id.
                usleep(200_000)
            }
        }
        let secondWriter = Thread {
            while !firstInserted.withLock({ $0 }) { usleep(1_000) }
            guard let db = try? location.open() else { return }
            _ = try? db.write { (db) throws(StoreError) in
                secondStarted.withLock { $0 = true }
                try OutboxRepository(db).insert([Self.entry], userID: "mei", changesetID: nil, createdAt: Fixture.now)
            }
            secondDone.withLock { $0 = true }
        }
        firstWriter.start()
        secondWriter.start()
        let deadline = Date().addingTimeInterval(30)
        while !(secondDone.withLock({ $0 }) && firstDone.withLock({ $0 })) && Date() < deadline {
            try consumer.poll()
            usleep(2_000)
        }
        try consumer.poll()
        let all = try f.db.query("SELECT id FROM notification_outbox ORDER BY id", []) { $0.int(0) }
        #expect(all.count == 2)
        #expect(consumer.delivered == all)
    }
}
