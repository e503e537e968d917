import Foundation
import Store

/// The one connection that writes during a run, driven by a thread of its own. Workers hand
/// their students' writes over (`stage`) and go on planning the next student; the writer
/// thread runs them one after another, so commits are serialised in the process instead of
/// fighting over SQLite's write lock.
///
/// Writes are grouped: each student's writes run in a savepoint of a shared transaction
/// (`Database.beginBatch`), which commits once it holds `maxStudents` students or is
/// `maxAge` old (the writer thread commits an aged batch when no further student arrives).
/// One commit per batch instead of per student spares the WAL from rewriting the same table
/// and index pages for every student.
///
/// With `maxStudents` 1 (PostgreSQL, where several workers share the night) there is no batch:
/// each student's writes run in a transaction of their own.
///
/// A student's night still commits whole or not at all: a failing student rolls back only
/// their savepoint, and a batch that fails to commit (or a crash) loses the whole batch,
/// whose students are then simply due again next run. What a student's night did is reported
/// (`stage`'s completion, called on the writer thread) only once it is committed.
///
/// Decision: a thread of its own rather than a lock that workers take in turn. Under a lock,
/// the worker holding it shares the two cores with every worker still planning, so the
/// serial part of the night ran at a fraction of a core while the other workers queued
/// behind it (a 10,000-student run kept ~1.6 of 2 cores busy). With a queue, workers never
/// wait for the writer unless `queueCapacity` students are already waiting for it, and the
/// writer thread lowers the workers' share of the CPU while it has work (see `NightlyRunner`).
final class BatchingWriter: @unchecked Sendable {
    /// How a staged write ended: committed with its value, or failed (nothing of it written).
    typealias Completion<T> = (Result<T, StoreError>) -> Void

    let maxStudents: Int
    let maxAge: TimeInterval
    let queueCapacity: Int

    private let db: any SQLExecutor
    /// Guards `jobs` and `stopped`; everything else belongs to the writer thread.
    private let lock = NSCondition()
    private var jobs: [(BatchingWriter) -> Void] = []
    private var stopped = false
    private var finished = false

    // Writer thread only.
    private var batchOpenedAt: Date?
    private var completions: [(Result<Void, StoreError>) -> Void] = []

    static let defaultMaxStudents = 64

    init(
        _ db: any SQLExecutor, maxStudents: Int = defaultMaxStudents, maxAge: TimeInterval = 0.1,
        queueCapacity: Int = 32
    ) {
        self.db = db
        self.maxStudents = maxStudents
        self.maxAge = maxAge
        self.queueCapacity = max(1, queueCapacity)
        let thread = Thread { [self] in runJobs() }
        thread.name = "replan writer"
        thread.start()
    }

    /// Queues a student's writes and returns (waiting only while `queueCapacity` jobs are
    /// already queued). On the writer thread, `body` runs in a savepoint of the open batch
    /// (opening one); when it throws, its writes are rolled back and `otherwise` (if given)
    /// runs in a fresh savepoint with the error, to record the failure instead. `completion`
    /// gets the value once the batch is committed, or the error when the batch is lost or
    /// nothing could be written.
    func stage<T>(
        _ body: @escaping (any SQLExecutor) throws(StoreError) -> T,
        otherwise: ((StoreError, any SQLExecutor) throws(StoreError) -> T)? = nil,
        then completion: @escaping Completion<T>
    ) {
        enqueue { writer in writer.runStaged(body, otherwise: otherwise, then: completion) }
    }

    /// Commits the open batch, then runs `body` on the writer thread in no transaction (the
    /// run's own rows, in a transaction `body` opens), and returns its result.
    func perform<T>(_ body: @escaping (any SQLExecutor) throws(StoreError) -> T) throws(StoreError) -> T {
        let done = NSCondition()
        var result: Result<T, StoreError>?
        enqueue { writer in
            writer.commitBatch()
            let outcome: Result<T, StoreError>
            do throws(StoreError) { outcome = .success(try body(writer.db)) } catch { outcome = .failure(error) }
            done.lock()
            result = outcome
            done.signal()
            done.unlock()
        }
        done.lock()
        while result == nil { done.wait() }
        let outcome = result!
        done.unlock()
        return try outcome.get()
    }

    /// Commits the open batch now; returns once every student staged before this call is
    /// committed and reported.
    func flush() {
        _ = try? perform { _ in () }
    }

    /// Returns once every job queued before this call has run, without committing (tests
    /// look at an open batch this way).
    func drain() {
        let done = NSCondition()
        var ran = false
        enqueue { _ in
            done.lock()
            ran = true
            done.signal()
            done.unlock()
        }
        done.lock()
        while !ran { done.wait() }
        done.unlock()
    }

    /// Commits what is open and ends the writer thread. Call once, when the run ends.
    func stop() {
        lock.lock()
        stopped = true
        lock.broadcast()
        while !finished { lock.wait() }
        lock.unlock()
    }

    private func enqueue(_ job: @escaping (BatchingWriter) -> Void) {
        lock.lock()
        defer { lock.unlock() }
        precondition(!stopped, "BatchingWriter used after stop()")
        while jobs.count >= queueCapacity { lock.wait() }
        jobs.append(job)
        lock.broadcast()
    }

    // MARK: The writer thread

    private func runJobs() {
        lock.lock()
        while true {
            if !jobs.isEmpty {
                let job = jobs.removeFirst()
                lock.broadcast() // room in the queue
                lock.unlock()
                job(self)
                lock.lock()
                continue
            }
            if stopped { break }
            if let opened = batchOpenedAt {
                let due = opened.addingTimeInterval(maxAge)
                if Date() >= due {
                    lock.unlock()
                    commitBatch()
                    lock.lock()
                } else {
                    _ = lock.wait(until: due)
                }
            } else {
                lock.wait()
            }
        }
        lock.unlock()
        commitBatch()
        lock.lock()
        finished = true
        lock.broadcast()
        lock.unlock()
    }

    private func runStaged<T>(
        _ body: (any SQLExecutor) throws(StoreError) -> T,
        otherwise: ((StoreError, any SQLExecutor) throws(StoreError) -> T)?,
        then completion: @escaping Completion<T>
    ) {
        // A batch of one student is the student's own transaction: no batch around it and no
        // savepoint inside it, so on PostgreSQL its writes and its commit go out as one
        // pipeline, and a failure is recorded in a transaction (and snapshot) of its own.
        let single = maxStudents == 1
        if !single && batchOpenedAt == nil {
            do throws(StoreError) { try db.beginBatch() } catch {
                completion(.failure(error))
                return
            }
            batchOpenedAt = Date()
        }
        let outcome: Result<T, StoreError>
        do throws(StoreError) {
            outcome = .success(try db.write(body))
        } catch {
            if let otherwise {
                do throws(StoreError) {
                    outcome = .success(try db.write { (db) throws(StoreError) in try otherwise(error, db) })
                } catch {
                    outcome = .failure(error)
                }
            } else {
                outcome = .failure(error)
            }
        }
        if single {
            completion(outcome)
            return
        }
        completions.append { batch in
            switch (batch, outcome) {
            case (.failure(let e), _): completion(.failure(e))
            case (.success, _): completion(outcome)
            }
        }
        if completions.count >= maxStudents { commitBatch() }
    }

    private func commitBatch() {
        guard batchOpenedAt != nil else { return }
        let result: Result<Void, StoreError>
        do throws(StoreError) {
            try db.commitBatch()
            result = .success(())
        } catch { result = .failure(error) }
        batchOpenedAt = nil
        let finished = completions
        completions = []
        for completion in finished { completion(result) }
    }
}
