import CSQLite
import Foundation

/// One connection to the replan database: owns the `sqlite3*` handle, configures it (WAL,
/// `synchronous=NORMAL`, foreign keys, busy timeout), migrates the schema on open, caches
/// prepared statements and runs transactions.
///
/// A connection is used from one thread at a time, so it is deliberately not `Sendable`; code
/// that works on several users in parallel opens one connection per worker (WAL lets readers
/// and one writer proceed side by side). The handle is opened without SQLite's own mutex for
/// the same reason.
package final class Database: SQLExecutor {
    package var engine: DatabaseEngine { .sqlite }
    package var locationDescription: String { path }
    package let path: String
    private var connection: OpaquePointer?
    /// Idle prepared statements by SQL text; a statement is taken out while in use, so a nested
    /// use of the same SQL (e.g. a query inside a row callback) prepares its own.
    private var cache: [String: CachedStatement] = [:]
    private var transactionDepth = 0
    /// Inside `joiningNestedWrites`: nested `write`s run in the open savepoint.
    private var nestedWritesJoin = false

    package static let defaultBusyTimeoutMilliseconds = 5000
    static let statementCacheLimit = 64

    private init(path: String, connection: OpaquePointer) {
        self.path = path
        self.connection = connection
    }

    deinit {
        cache.removeAll()
        // close_v2 waits for any statement a caller still holds instead of failing.
        if let connection { sqlite3_close_v2(connection) }
    }

    /// Opens (creating with mode 0600 when missing) and migrates the database at `path`.
    ///
    /// - Parameters:
    ///   - busyTimeoutMilliseconds: how long a statement waits for another connection's lock
    ///     before failing with `StoreError.isBusy`.
    ///   - migrations: the schema history; tests inject their own list.
    ///   - now: the time recorded for applied migrations.
    /// - Throws: `.cannotOpen` (missing directory, permissions), `.notADatabase`,
    ///   `.schemaTooNew`, or an SQLite failure.
    package static func open(
        path: String, busyTimeoutMilliseconds: Int = defaultBusyTimeoutMilliseconds,
        migrations: [Migration] = Schema.migrations, now: Date = Date()
    ) throws(StoreError) -> Database {
        _ = Database.libraryConfigured
        let inMemory = path == ":memory:"
        let created = inMemory ? true : try DatabaseFile.prepare(path)
        var raw: OpaquePointer?
        // The file exists now (created 0600 above); SQLite only opens it, and reads a
        // `file:` path as the file of that name, never as a URI naming another file.
        let flags = SQLITE_OPEN_READWRITE | (inMemory ? SQLITE_OPEN_CREATE : 0) | SQLITE_OPEN_NOMUTEX
        let rc = sqlite3_open_v2(inMemory ? path : DatabaseFile.literal(path), &raw, flags, nil)
        guard rc == SQLITE_OK, let raw else {
            let reason = raw.map { String(cString: sqlite3_errmsg($0)) } ?? String(cString: sqlite3_errstr(rc))
            sqlite3_close_v2(raw)
            throw StoreError.cannotOpen(path: path, reason: reason)
        }
        let db = Database(path: path, connection: raw)
        do throws(StoreError) {
            sqlite3_busy_timeout(raw, Int32(clamping: busyTimeoutMilliseconds))
            // Another application's database is refused before anything is written to it:
            // no WAL switch, no tables, no mode change (issue 13, item 5).
            if !created {
                let objects = try db.queryFirst("SELECT count(*) FROM sqlite_master") { $0.int(0) } ?? 0
                let ours =
                    try db.queryFirst("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'schema_migrations'")
                { _ in true } ?? false
                if objects > 0 && !ours { throw StoreError.notReplanDatabase(path: path) }
                try DatabaseFile.tighten(path)
            }
            // Every pragma runs before any transaction: journal_mode and foreign_keys are
            // no-ops inside one. WAL lets the nightly job write while `log` reads; NORMAL
            // sync is durable in WAL except for the last commits on power loss, never corrupt.
            let mode = try db.pragma("journal_mode = WAL")
            if !inMemory && mode?.lowercased() != "wal" {
                throw StoreError.cannotOpen(
                    path: path, reason: "cannot switch to WAL journal mode (got \(mode ?? "nothing"))")
            }
            try db.execute("PRAGMA synchronous = NORMAL")
            try db.execute("PRAGMA foreign_keys = ON")
            try Migrator(migrations: migrations).migrate(db, now: now)
        } catch {
            db.cache.removeAll()
            sqlite3_close_v2(raw)
            db.connection = nil
            throw Database.openFailure(error, path: path)
        }
        return db
    }

    /// Process-wide SQLite settings, applied once before the first connection opens (the
    /// library initialises itself then): memory statistics off, so threads don't serialise on
    /// SQLite's allocation mutex.
    private static let libraryConfigured: Bool = {
        replan_sqlite_disable_memory_statistics() == SQLITE_OK
    }()

    /// Reports the failures that mean "wrong file" or "cannot open" as such, not as a raw code.
    private static func openFailure(_ error: StoreError, path: String) -> StoreError {
        guard case .sqlite(let failure) = error else { return error }
        switch failure.code {
        case SQLITE_NOTADB: return .notADatabase(path: path)
        case SQLITE_CANTOPEN, SQLITE_PERM, SQLITE_READONLY, SQLITE_AUTH:
            return .cannotOpen(path: path, reason: failure.message)
        default: return error
        }
    }

    /// Closes the connection. Fails with SQLITE_BUSY (and stays open) while a statement the
    /// caller prepared is still alive: a leak shows up here instead of lingering.
    package func close() throws(StoreError) {
        guard let connection else { return }
        cache.removeAll()
        let rc = sqlite3_close(connection)
        guard rc == SQLITE_OK else { throw StoreError.sqlite(connection, rc, "close") }
        self.connection = nil
    }

    var handle: OpaquePointer {
        guard let connection else { preconditionFailure("database \(path) used after close()") }
        return connection
    }

    // MARK: Statements

    /// A fresh statement owned by the caller (finalized when released).
    package func prepare(_ sql: String) throws(StoreError) -> Statement {
        try Statement(connection: handle, sql: sql)
    }

    /// Runs `body` with a cached statement for `sql`, reset for reuse after. One dictionary
    /// lookup per use (hashing the SQL text is not free: the nightly job runs ~70 statements per
    /// student); a statement already in use further up the stack (a nested query with the same
    /// text) gets a fresh, uncached one.
    package func withStatement<T>(_ sql: String, _ body: (Statement) throws(StoreError) -> T) throws(StoreError) -> T {
        let entry: CachedStatement
        if let cached = cache[sql] {
            guard !cached.inUse else {
                let statement = try prepare(sql)
                return try body(statement)
            }
            entry = cached
        } else {
            entry = CachedStatement(try prepare(sql))
            if cache.count < Database.statementCacheLimit { cache[sql] = entry }
        }
        entry.inUse = true
        defer {
            entry.statement.reset()
            entry.inUse = false
        }
        return try body(entry.statement)
    }

    /// Runs one statement to completion; returns the rows it changed itself (not those its
    /// triggers or foreign-key actions changed), 0 for a statement that changes none.
    @discardableResult
    package func execute(_ sql: String, _ values: [SQLValue]) throws(StoreError) -> Int {
        try withStatement(sql) { (s) throws(StoreError) -> Int in
            try s.bind(values)
            // sqlite3_changes keeps the count of the last data change, whatever ran since; the
            // total tells whether this statement changed anything at all.
            let before = sqlite3_total_changes64(handle)
            while try s.step() {}
            return sqlite3_total_changes64(handle) == before ? 0 : Int(sqlite3_changes64(handle))
        }
    }

    /// Runs the write at once: SQLite answers in the process, there is no round trip to save.
    package func send(_ sql: String, _ values: [SQLValue]) throws(StoreError) {
        try withStatement(sql) { (s) throws(StoreError) in
            try s.bind(values)
            while try s.step() {}
        }
    }

    /// Runs the queries one after another: SQLite has no round trip to save.
    package func queryEach<T>(
        _ queries: [(sql: String, values: [SQLValue])], _ row: (Int, any SQLRow) throws(StoreError) -> T
    ) throws(StoreError) -> [[T]] {
        var mapped: [[T]] = []
        mapped.reserveCapacity(queries.count)
        for (index, q) in queries.enumerated() {
            mapped.append(try query(q.sql, q.values) { (s) throws(StoreError) -> T in try row(index, s) })
        }
        return mapped
    }

    /// Runs a query and maps every row.
    package func query<T>(_ sql: String, _ values: [SQLValue], _ row: (any SQLRow) throws(StoreError) -> T)
        throws(StoreError) -> [T]
    {
        try withStatement(sql) { (s) throws(StoreError) -> [T] in
            try s.bind(values)
            var rows: [T] = []
            while try s.step() { rows.append(try row(s)) }
            return rows
        }
    }

    /// Runs a query and maps its first row, if any.
    package func queryFirst<T>(_ sql: String, _ values: [SQLValue], _ row: (any SQLRow) throws(StoreError) -> T)
        throws(StoreError) -> T?
    {
        try withStatement(sql) { (s) throws(StoreError) -> T? in
            try s.bind(values)
            return try s.step() ? try row(s) : nil
        }
    }

    /// Runs several `;`-separated statements without bindings (schema scripts).
    package func executeScript(_ sql: String) throws(StoreError) {
        var message: UnsafeMutablePointer<CChar>?
        let rc = sqlite3_exec(handle, sql, nil, nil, &message)
        defer { sqlite3_free(message) }
        guard rc == SQLITE_OK else {
            let text = message.map { String(cString: $0) } ?? String(cString: sqlite3_errstr(rc))
            throw StoreError.sqlite(
                SQLiteFailure(
                    code: rc & 0xff, extendedCode: sqlite3_extended_errcode(handle),
                    message: text, operation: "script"))
        }
    }

    /// Reads a pragma's first value, e.g. `pragma("journal_mode")`. The text becomes SQL:
    /// pass only literals written in code, never input.
    package func pragma(_ text: String) throws(StoreError) -> String? {
        try queryFirst("PRAGMA \(text)") { $0.optionalText(0) } ?? nil
    }

    /// The SQL of every statement this connection has run through its cache (at most
    /// `statementCacheLimit`): lets tests look at the statements a piece of code runs.
    var cachedSQL: [String] { Array(cache.keys) }

    package var lastInsertRowID: Int { Int(sqlite3_last_insert_rowid(handle)) }
    /// Whether a transaction is open on this connection.
    package var isInTransaction: Bool { transactionDepth > 0 }

    // MARK: Transactions

    /// Runs `body` in a write transaction opened with `BEGIN IMMEDIATE`, so the write lock is
    /// taken up front (waiting up to the busy timeout) and the transaction can never fail
    /// half-way for lack of it. Commits when `body` returns, rolls back when it throws.
    ///
    /// Nested calls run in a savepoint of the outer transaction, so a caller can make several
    /// store operations (commit a changeset, record the user run) one atomic unit.
    @discardableResult
    package func write<T>(_ body: (any SQLExecutor) throws(StoreError) -> T) throws(StoreError) -> T {
        try transaction(begin: "BEGIN IMMEDIATE", body)
    }

    /// Runs `body` in a deferred transaction: every read inside sees one snapshot. Inside
    /// another transaction it simply joins it. A write inside a read may fail as busy when
    /// another connection committed since the snapshot; use `write` for read-modify-write.
    @discardableResult
    package func read<T>(_ body: (any SQLExecutor) throws(StoreError) -> T) throws(StoreError) -> T {
        if transactionDepth > 0 { return try body(self) }
        return try transaction(begin: "BEGIN DEFERRED", body)
    }

    /// Runs `body` inside the open transaction or savepoint with every nested `write` joining
    /// it instead of opening a savepoint of its own.
    ///
    /// For a caller whose enclosing savepoint is rolled back whole when `body` throws, and
    /// which lets every error out: the inner savepoints would only repeat that, and each costs
    /// two statements plus copies of the pages it touches. The nightly writer commits each
    /// student this way (changeset, statistics, user run). An error caught inside `body` no
    /// longer undoes the nested write that threw; don't catch and carry on in here.
    @discardableResult
    package func joiningNestedWrites<T>(_ body: (any SQLExecutor) throws(StoreError) -> T) throws(StoreError) -> T {
        precondition(transactionDepth > 0, "joiningNestedWrites needs an open transaction")
        let outer = nestedWritesJoin
        nestedWritesJoin = true
        defer { nestedWritesJoin = outer }
        return try body(self)
    }

    private func transaction<T>(begin: String, _ body: (any SQLExecutor) throws(StoreError) -> T) throws(StoreError)
        -> T
    {
        if transactionDepth > 0 && nestedWritesJoin { return try body(self) }
        if transactionDepth > 0 { return try savepoint(body) }
        try execute(begin)
        transactionDepth = 1
        defer { transactionDepth = 0 }
        let result: T
        do throws(StoreError) {
            result = try body(self)
            try execute("COMMIT")
        } catch {
            rollback("ROLLBACK")
            throw error
        }
        return result
    }

    private func savepoint<T>(_ body: (any SQLExecutor) throws(StoreError) -> T) throws(StoreError) -> T {
        let name = "replan_\(transactionDepth)"
        try execute("SAVEPOINT \(name)")
        transactionDepth += 1
        defer { transactionDepth -= 1 }
        let result: T
        do throws(StoreError) {
            result = try body(self)
            try execute("RELEASE \(name)")
        } catch {
            rollback("ROLLBACK TO \(name)")
            rollback("RELEASE \(name)")
            throw error
        }
        return result
    }

    /// Opens a write transaction (`BEGIN IMMEDIATE`) that stays open across calls until
    /// `commitBatch()` or `rollbackBatch()`: every `write` meanwhile runs in a savepoint of it,
    /// so each stays atomic (one failing rolls back only itself) while the batch shares one
    /// commit. The nightly writer groups students this way; a crash loses the open batch whole.
    package func beginBatch() throws(StoreError) {
        precondition(transactionDepth == 0, "a batch can not start inside a transaction")
        try execute("BEGIN IMMEDIATE")
        transactionDepth = 1
    }

    /// Commits the batch opened by `beginBatch()`; on failure it is rolled back whole.
    package func commitBatch() throws(StoreError) {
        precondition(transactionDepth == 1, "no batch is open")
        defer { transactionDepth = 0 }
        do throws(StoreError) { try execute("COMMIT") } catch {
            rollback("ROLLBACK")
            throw error
        }
    }

    /// Drops the batch opened by `beginBatch()`.
    package func rollbackBatch() {
        precondition(transactionDepth == 1, "no batch is open")
        rollback("ROLLBACK")
        transactionDepth = 0
    }

    /// Best effort: SQLite may already have rolled back on its own (e.g. SQLITE_FULL), in
    /// which case ROLLBACK reports "no transaction" and there is nothing left to undo.
    private func rollback(_ sql: String) {
        sqlite3_exec(handle, sql, nil, nil, nil)
    }
}

@available(*, unavailable, message: "open one connection per thread; SQLite handles are not shared")
extension Database: Sendable {}

/// A prepared statement kept for reuse, and whether a caller is using it right now.
private final class CachedStatement {
    let statement: Statement
    var inUse = false

    init(_ statement: Statement) { self.statement = statement }
}
