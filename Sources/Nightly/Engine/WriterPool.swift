import Foundation
import Store

/// The night's writers: one `BatchingWriter` on SQLite, where a single writer is the point (the
/// file has one write lock), and `postgresWriters` on PostgreSQL, each with its own connection.
///
/// Why several on PostgreSQL: a student's commit there is a transaction of several round trips
/// (eight when this was measured, four since its queries were batched), and one connection
/// runs them one student after the other, so a night waited on the server at under half of
/// the machine's CPU (docs/benchmark.md, issue 21). Students'
/// transactions touch disjoint rows (their own plan, claim, statistics and memory); what they
/// share, the version sequence and the outbox's advisory lock, is taken late and held for one
/// round trip. So they need not queue behind one connection.
///
/// Students go to the writers in turn. A completion (`stage`'s, which counts and reports the
/// student) runs under one lock whichever writer committed, so the run's callbacks still see
/// one student at a time. `perform` (the run's own rows) and `flush` wait for every writer.
final class WriterPool: @unchecked Sendable {
    static let postgresWriters = 3

    private let writers: [BatchingWriter]
    private let turn = NSLock()
    private var next = 0
    private let completions = NSLock()

    init(_ writers: [BatchingWriter]) {
        precondition(!writers.isEmpty)
        self.writers = writers
    }

    var count: Int { writers.count }

    func stage<T>(
        _ body: @escaping (any SQLExecutor) throws(StoreError) -> T,
        otherwise: ((StoreError, any SQLExecutor) throws(StoreError) -> T)? = nil,
        then completion: @escaping BatchingWriter.Completion<T>
    ) {
        turn.lock()
        let writer = writers[next]
        next = (next + 1) % writers.count
        turn.unlock()
        writer.stage(body, otherwise: otherwise) { [completions] result in
            completions.lock()
            defer { completions.unlock() }
            completion(result)
        }
    }

    /// Commits what every writer holds, then runs `body` on the first writer's connection.
    func perform<T>(_ body: @escaping (any SQLExecutor) throws(StoreError) -> T) throws(StoreError) -> T {
        for writer in writers.dropFirst() { writer.flush() }
        return try writers[0].perform(body)
    }

    func flush() {
        for writer in writers { writer.flush() }
    }

    func stop() {
        for writer in writers { writer.stop() }
    }
}
