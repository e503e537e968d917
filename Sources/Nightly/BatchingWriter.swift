import Foundation
import Store

/// The one connection that writes during a run. Commits are serialised in the process
/// instead of fighting over SQLite's write lock, and grouped: each student's writes run in a
/// savepoint of a shared transaction (`Database.beginBatch`), which commits once it holds
/// `maxStudents` students or is `maxAge` old (a background thread commits an aged batch when
/// no further student arrives). One commit per batch instead of per student spares the WAL
/// from rewriting the same table and index pages for every student.
///
/// A student's night still commits whole or not at all: a failing student rolls back only
/// their savepoint, and a batch that fails to commit (or a crash) loses the whole batch,
/// whose students are then simply due again next run. What a student's night did is reported
/// (`stage`'s completion) only once it is committed.
final class BatchingWriter: @unchecked Sendable {
    /// How a staged write ended: committed with its value, or lost with the batch.
    typealias Completion<T> = (Result<T, StoreError>) -> Void

    let maxStudents: Int
    let maxAge: TimeInterval

    private let db: Database
    private let lock = NSCondition()
    private var batchOpenedAt: Date?
    private var completions: [(Result<Void, StoreError>) -> Void] = []
    private var stopped = false
    private var flusher: Thread?

    init(_ db: Database, maxStudents: Int = 64, maxAge: TimeInterval = 0.1) {
        self.db = db
        self.maxStudents = maxStudents
        self.maxAge = maxAge
        let flusher = Thread { [weak self] in self?.commitAgedBatches() }
        self.flusher = flusher
        flusher.start()
    }

    /// Runs `body` in the open batch (opening one) and calls `completion` once the batch is
    /// committed, or lost. When `body` throws, its writes are rolled back, the error is
    /// thrown, and `completion` is not called.
    func stage<T>(_ body: (Database) throws(StoreError) -> T, then completion: @escaping Completion<T>) throws(StoreError) {
        lock.lock(); defer { lock.unlock() }
        if batchOpenedAt == nil {
            try db.beginBatch()
            batchOpenedAt = Date()
        }
        let value = try body(db)
        completions.append { result in completion(result.map { value }) }
        if completions.count >= maxStudents { commitBatch() }
    }

    /// Commits the open batch, then runs `body` in its own transaction (the run's own rows).
    func perform<T>(_ body: (Database) throws(StoreError) -> T) throws(StoreError) -> T {
        lock.lock(); defer { lock.unlock() }
        commitBatch()
        return try body(db)
    }

    /// Commits the open batch now.
    func flush() {
        lock.lock(); defer { lock.unlock() }
        commitBatch()
    }

    /// Commits what is open and stops the background thread (which holds the writer until
    /// then: call this when the run ends).
    func stop() {
        lock.lock()
        commitBatch()
        stopped = true
        lock.broadcast()
        lock.unlock()
    }

    /// Call with the lock held.
    private func commitBatch() {
        guard batchOpenedAt != nil else { return }
        let result: Result<Void, StoreError>
        do throws(StoreError) { try db.commitBatch(); result = .success(()) } catch { result = .failure(error) }
        batchOpenedAt = nil
        let finished = completions
        completions = []
        for completion in finished { completion(result) }
    }

    private func commitAgedBatches() {
        lock.lock(); defer { lock.unlock() }
        while !stopped {
            _ = lock.wait(until: Date().addingTimeInterval(maxAge / 4))
            if let opened = batchOpenedAt, Date().timeIntervalSince(opened) >= maxAge { commitBatch() }
        }
    }
}
