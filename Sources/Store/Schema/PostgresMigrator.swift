import Foundation
import Planning

/// Brings a PostgreSQL database's schema up to the newest of its migrations, the first time
/// creating all of it, as `Migrator` does for a SQLite file.
///
/// The whole check-and-apply runs in one transaction under a transaction-scoped advisory
/// lock, so two replan processes opening a fresh database at once (two hosts, two workers)
/// apply each migration once. A database with tables but without `schema_migrations` is
/// another application's and is refused untouched; one with a version this binary does not
/// know is newer and refused untouched.
package struct PostgresMigrator: Sendable {
    package let migrations: [PostgresMigration]

    /// The advisory lock key the migrations hold: an arbitrary constant of replan's own.
    static let lockKey = 7_211_021_001

    package init(migrations: [PostgresMigration] = PostgresSchema.migrations) {
        precondition(
            zip(migrations, migrations.dropFirst()).allSatisfy { $0.version < $1.version },
            "migration versions must be strictly increasing")
        self.migrations = migrations
    }

    package var latestVersion: Int { migrations.last?.version ?? 0 }

    /// Applies every missing migration in order.
    /// - Returns: the versions applied now (empty when the database was up to date).
    @discardableResult
    package func migrate(_ db: PostgresConnection, now: Date, create: Bool = true) throws(StoreError) -> [Int] {
        let server = db.location.description
        return try db.write { (_) throws(StoreError) -> [Int] in
            try db.execute("SELECT pg_advisory_xact_lock(?)", [.integer(Self.lockKey)])
            let tables =
                try db.queryFirst(
                    """
                    SELECT count(*), count(*) FILTER (WHERE table_name = 'schema_migrations')
                    FROM information_schema.tables WHERE table_schema = current_schema()
                    """
                ) { ($0.int(0), $0.int(1)) } ?? (0, 0)
            if tables.0 > 0 && tables.1 == 0 { throw StoreError.notReplanServerDatabase(server: server) }
            if tables.0 == 0 && !create { throw StoreError.emptyServerDatabase(server: server) }
            if tables.1 == 0 {
                try db.execute(
                    "CREATE TABLE schema_migrations (version BIGINT PRIMARY KEY, applied_at TEXT COLLATE \"C\" NOT NULL)",
                    [])
            }
            let recorded = Set(try db.query("SELECT version FROM schema_migrations", []) { $0.int(0) })
            if let newest = recorded.max(), newest > latestVersion || !recorded.isSubset(of: migrations.map(\.version))
            {
                throw StoreError.schemaTooNew(path: server, found: newest, known: latestVersion)
            }
            var applied: [Int] = []
            for migration in migrations where !recorded.contains(migration.version) {
                try db.executeScript(migration.sql)
                try db.execute(
                    "INSERT INTO schema_migrations (version, applied_at) VALUES (?, ?)",
                    [.integer(migration.version), .text(Timestamp.text(now))])
                applied.append(migration.version)
            }
            return applied
        }
    }
}

extension PostgresConnection {
    /// Connects to `uri` as one of replan's own writers and brings the schema up to date.
    ///
    /// replan's connections set `replan.writer`, so the version trigger keeps the versions
    /// they write (taken from the same sequence, recorded in changesets); every other writer's
    /// rows are stamped by the trigger.
    /// - Parameter create: whether an empty database may receive the schema; when false it is
    ///   refused as `.emptyServerDatabase` (a command that only reads must not create one).
    package static func open(
        _ uri: String, migrations: [PostgresMigration] = PostgresSchema.migrations, create: Bool = true,
        now: Date = Date()
    ) throws(StoreError) -> PostgresConnection {
        let db = try connect(uri)
        try db.execute("SELECT set_config(?, 'on', false)", [.text(PostgresSchema.writerSetting)])
        // A replan process frozen inside a transaction (a stall, `kill -STOP`) would hold its
        // locks, the outbox's advisory lock among them, and every other worker would wait on
        // it for as long as it stays frozen. The server ends such a transaction after this
        // long idle; the frozen worker's commit then fails, so it writes nothing, as its fence
        // would have refused anyway. replan's own transactions are never idle for long: the
        // model is asked outside any transaction.
        try db.execute(
            "SELECT set_config('idle_in_transaction_session_timeout', ?, false)",
            [.text("\(PostgresSchema.idleInTransactionSeconds)s")])
        try PostgresMigrator(migrations: migrations).migrate(db, now: now, create: create)
        return db
    }
}
