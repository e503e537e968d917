import Foundation
import Planning

/// Brings a database's schema up to the newest migration of its list.
///
/// The list is injectable so tests can prove that an old database upgrades in place. Each
/// migration runs in its own `BEGIN IMMEDIATE` transaction and re-checks, under the write
/// lock, whether another process applied it meanwhile; so two replan processes opening a fresh
/// database at once both succeed.
package struct Migrator: Sendable {
    package let migrations: [Migration]

    package init(migrations: [Migration]) {
        precondition(
            zip(migrations, migrations.dropFirst()).allSatisfy { $0.version < $1.version },
            "migration versions must be strictly increasing")
        precondition(migrations.allSatisfy { $0.version > 0 }, "migration versions start at 1")
        self.migrations = migrations
    }

    /// The newest schema version this list knows.
    package var latestVersion: Int { migrations.last?.version ?? 0 }

    /// Applies every missing migration in order.
    /// - Returns: the versions applied now (empty when the database was up to date).
    /// - Throws: `.schemaTooNew` when the database has a version this list does not know.
    @discardableResult
    package func migrate(_ db: Database, now: Date) throws(StoreError) -> [Int] {
        // Opening an up-to-date database only reads: the nightly workers' connections must not
        // queue for the write lock just to learn that nothing is to do.
        let hasTable =
            try db.queryFirst("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'schema_migrations'") { _ in
                true
            } != nil
        if !hasTable {
            try db.write { (db) throws(StoreError) in
                try db.execute(
                    "CREATE TABLE IF NOT EXISTS schema_migrations (version INTEGER PRIMARY KEY, applied_at TEXT NOT NULL)"
                )
            }
        }
        let recorded = try Migrator.appliedVersions(db)
        let known = Set(migrations.map(\.version))
        if let unknown = recorded.filter({ !known.contains($0) }).max() {
            throw StoreError.schemaTooNew(path: db.path, found: unknown, known: latestVersion)
        }
        var applied: [Int] = []
        for migration in migrations where !recorded.contains(migration.version) {
            let didApply = try db.write { (_) throws(StoreError) -> Bool in
                // Another process may have applied it since we looked.
                let done = try db.queryFirst(
                    "SELECT 1 FROM schema_migrations WHERE version = ?", [.integer(migration.version)]
                ) { _ in true }
                if done != nil { return false }
                try migration.apply(db)
                try db.execute(
                    "INSERT INTO schema_migrations (version, applied_at) VALUES (?, ?)",
                    [.integer(migration.version), .text(Timestamp.text(now))])
                return true
            }
            if didApply { applied.append(migration.version) }
        }
        return applied
    }

    /// The versions recorded in the database, ascending.
    package static func appliedVersions(_ db: any SQLExecutor) throws(StoreError) -> [Int] {
        try db.query("SELECT version FROM schema_migrations ORDER BY version") { $0.int(0) }
    }
}
