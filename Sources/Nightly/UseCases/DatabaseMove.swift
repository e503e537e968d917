import Foundation
import Store

/// Moves a deployment from its SQLite file to PostgreSQL (`replan copy-database --to URL`):
/// copies everything into an empty PostgreSQL database in one transaction (`DatabaseCopier`).
///
/// The SQLite file's run lock is held for the copy, so no night writes into the source while it
/// is read (the copy reads one snapshot anyway; the lock makes "stop the timer first" a check
/// rather than advice). The source is not changed: after a failed or abandoned move the
/// deployment goes on as it was.
package struct DatabaseMove {
    let database: ReplanDatabase

    package init(database: ReplanDatabase) { self.database = database }

    /// What was copied.
    package struct Copied: Sendable {
        /// Rows by table, in copy order.
        package var rows: [(table: String, count: Int)]
        package var total: Int
        /// The target, as `host:port/database as user`.
        package var target: String
        package var versionClock: Int
        package var outboxHighWater: Int
    }

    /// - Throws: `.badInput` when the source is not a SQLite file or the target not a
    ///   PostgreSQL URI, `.locked` while a run holds the source, `.cannotOpenDatabase` for an
    ///   unreachable target or one that already holds replan data.
    package func copy(to uri: String, now: Date) throws(UseCaseError) -> Copied {
        guard case .sqlite(let path) = database.location, let source = database.connection as? Database else {
            throw UseCaseError.badInput(
                "copy-database copies a SQLite database (--db FILE) into PostgreSQL; --db names \(database.path)")
        }
        guard PostgresLocation.isURI(uri) else {
            throw UseCaseError.badInput("--to must be a PostgreSQL URI (postgresql://…); nothing was copied")
        }
        guard let lock = try storeCall({ () throws(StoreError) in try RunLock.tryAcquire(databasePath: path) }) else {
            throw UseCaseError(
                .locked, "a replan run holds \(path); stop the timer (or wait for the night to end) and copy again")
        }
        return try withExtendedLifetime(lock) { () throws(UseCaseError) -> Copied in
            let target = try storeCall { () throws(StoreError) in try PostgresConnection.open(uri, now: now) }
            let report = try storeCall { () throws(StoreError) in
                try DatabaseCopier(from: source, to: target).copy()
            }
            // A freshly filled database has no planner statistics until autovacuum gets to it,
            // and the first night's plan queries ran 200 times slower without them (measured:
            // 16.7 ms of server time per student instead of 0.09 ms).
            _ = try storeCall { () throws(StoreError) in try target.execute("ANALYZE") }
            return Copied(
                rows: DatabaseCopier.tables.map { ($0.name, report.rows[$0.name] ?? 0) }, total: report.total,
                target: target.location.description, versionClock: report.versionClock,
                outboxHighWater: report.outboxHighWater)
        }
    }
}
