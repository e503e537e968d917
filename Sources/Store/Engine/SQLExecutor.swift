/// The connection boundary: what the store needs from an engine's connection. Repositories hold
/// an `any SQLExecutor` and never know which engine runs their SQL.
///
/// Statements are written with `?` placeholders (or `?N` for a value used twice) and every value
/// is bound, never spliced into the text; each engine turns that into its own protocol (SQLite
/// prepared statements, libpq parameters). SQL that differs between the engines is chosen by
/// `engine` at the call site, and only there.
///
/// A connection is used from one thread at a time; none of the implementations is `Sendable`.
package protocol SQLExecutor: AnyObject {
    var engine: DatabaseEngine { get }
    /// Names the database in messages: the SQLite path, or the server without its password.
    var locationDescription: String { get }
    /// Whether a transaction is open on this connection.
    var isInTransaction: Bool { get }

    /// Runs one statement to completion.
    /// - Returns: the rows an INSERT, UPDATE or DELETE changed (0 for other statements).
    @discardableResult
    func execute(_ sql: String, _ values: [SQLValue]) throws(StoreError) -> Int
    /// Runs a query and maps every row.
    func query<T>(_ sql: String, _ values: [SQLValue], _ row: (any SQLRow) throws(StoreError) -> T)
        throws(StoreError) -> [T]
    /// Runs a query and maps its first row, if any.
    func queryFirst<T>(_ sql: String, _ values: [SQLValue], _ row: (any SQLRow) throws(StoreError) -> T)
        throws(StoreError) -> T?
    /// Runs several `;`-separated statements without bindings (schema scripts).
    func executeScript(_ sql: String) throws(StoreError)
    /// Runs a write whose answer the caller does not need (no changed-row count, no rows, no
    /// error it would handle itself), in the order of every other statement on the connection.
    ///
    /// SQLite runs it at once. PostgreSQL, inside a transaction, holds it back and sends every
    /// held statement as one libpq pipeline together with the next statement that needs an
    /// answer (a query, an `execute`, the savepoint's release or the commit), so a student's
    /// writes cost one round trip instead of one each. Nothing changes but when the server
    /// hears of them: a later statement sees their effects, and an error in one of them is
    /// thrown by the statement that sent them, inside the same transaction or savepoint, which
    /// then rolls back whole. Outside a transaction it runs at once on both engines.
    func send(_ sql: String, _ values: [SQLValue]) throws(StoreError)
    /// Runs queries of which none needs another's answer and maps every row of each (`row`
    /// gets the query's index), in order. SQLite runs them one after another; PostgreSQL sends
    /// them, after whatever `send` holds, as one pipeline: one round trip for all of them.
    func queryEach<T>(
        _ queries: [(sql: String, values: [SQLValue])], _ row: (Int, any SQLRow) throws(StoreError) -> T
    ) throws(StoreError) -> [[T]]

    /// Runs `body` in a write transaction: committed when it returns, rolled back when it throws.
    /// Nested calls run in a savepoint of the outer transaction, so several store operations can
    /// form one atomic unit. SQLite takes the write lock up front (`BEGIN IMMEDIATE`); PostgreSQL
    /// runs it `REPEATABLE READ`, so a row another connection changed after this transaction's
    /// snapshot can not be overwritten (the write fails as `isBusy` and is retried).
    @discardableResult
    func write<T>(_ body: (any SQLExecutor) throws(StoreError) -> T) throws(StoreError) -> T
    /// Runs `body` in a read transaction: every read inside sees one snapshot. Inside another
    /// transaction it simply joins it.
    @discardableResult
    func read<T>(_ body: (any SQLExecutor) throws(StoreError) -> T) throws(StoreError) -> T
    /// Runs `body` inside the open transaction with every nested `write` joining it instead of
    /// opening a savepoint of its own. For a caller whose enclosing transaction or savepoint is
    /// rolled back whole when `body` throws, and which lets every error out.
    @discardableResult
    func joiningNestedWrites<T>(_ body: (any SQLExecutor) throws(StoreError) -> T) throws(StoreError) -> T

    /// Opens a write transaction that stays open across calls until `commitBatch()` or
    /// `rollbackBatch()`; every `write` meanwhile runs in a savepoint of it.
    func beginBatch() throws(StoreError)
    /// Commits the batch opened by `beginBatch()`; on failure it is rolled back whole.
    func commitBatch() throws(StoreError)
    /// Drops the batch opened by `beginBatch()`.
    func rollbackBatch()
}

extension SQLExecutor {
    @discardableResult
    package func execute(_ sql: String) throws(StoreError) -> Int { try execute(sql, []) }

    /// Sends `rows` (each of the same columns) as `INSERT`s of several rows each:
    /// `insert` is the statement up to `VALUES` ("INSERT INTO t (a, b)"), `then` what follows
    /// the rows (an `ON CONFLICT` clause, or nothing). Rows go in order, in groups of 32, 16,
    /// …, 1, so a few statement texts serve every count and each is prepared once.
    ///
    /// Why: a server spends on each statement about what it spends on a row, so a student's
    /// eleven changeset edits as three statements cost the server much less than as eleven
    /// (docs/benchmark.md). SQLite gains nothing and loses nothing by it.
    package func sendRows(_ insert: String, _ rows: [[SQLValue]], then tail: String = "") throws(StoreError) {
        guard let columns = rows.first?.count else { return }
        let row = "(" + repeatElement("?", count: columns).joined(separator: ", ") + ")"
        for group in rowGroups(rows.count) {
            let values = rows[group]
            precondition(values.allSatisfy { $0.count == columns }, "rows of different columns")
            try send(
                insert + " VALUES " + repeatElement(row, count: group.count).joined(separator: ", ")
                    + (tail.isEmpty ? "" : " " + tail),
                Array(values.joined()))
        }
    }

    package func query<T>(_ sql: String, _ row: (any SQLRow) throws(StoreError) -> T) throws(StoreError) -> [T] {
        try query(sql, [], row)
    }

    package func queryFirst<T>(_ sql: String, _ row: (any SQLRow) throws(StoreError) -> T) throws(StoreError) -> T? {
        try queryFirst(sql, [], row)
    }
}

/// `0..<count` cut, in order, into groups of 32, 16, …, 1 (as many of the largest as fit):
/// the sizes of the statements that carry several rows each (`sendRows`, the changeset's read
/// ahead), so a handful of statement texts serve every count and each is prepared once.
package func rowGroups(_ count: Int) -> [Range<Int>] {
    var groups: [Range<Int>] = []
    var start = 0
    while start < count {
        var size = 32
        while size > count - start { size /= 2 }
        groups.append(start..<(start + size))
        start += size
    }
    return groups
}
