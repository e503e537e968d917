/// The connection boundary: what the store needs from an engine's connection. Statements are
/// written with `?` placeholders and every value is bound, never spliced into the text; each
/// engine turns that into its own protocol (SQLite prepared statements, libpq `PQexecParams`).
/// SQL that differs between the engines is chosen by `engine` at the call site, and only there.
///
/// A connection is used from one thread at a time; none of the implementations is `Sendable`.
package protocol SQLExecutor: AnyObject {
    var engine: DatabaseEngine { get }
    /// Runs one statement to completion.
    func execute(_ sql: String, _ values: [SQLValue]) throws(StoreError)
    /// Runs a query and maps every row.
    func rows<T>(_ sql: String, _ values: [SQLValue], _ row: (any SQLRow) throws(StoreError) -> T)
        throws(StoreError) -> [T]
    /// Runs `body` in a write transaction (a savepoint when one is open): committed when it
    /// returns, rolled back when it throws.
    func inTransaction<T>(_ body: () throws(StoreError) -> T) throws(StoreError) -> T
}

extension SQLExecutor {
    /// Maps the first row of a query, if any.
    package func firstRow<T>(_ sql: String, _ values: [SQLValue] = [], _ row: (any SQLRow) throws(StoreError) -> T)
        throws(StoreError) -> T?
    {
        try rows(sql, values, row).first
    }
}

extension Database: SQLExecutor {
    package var engine: DatabaseEngine { .sqlite }

    package func rows<T>(_ sql: String, _ values: [SQLValue], _ row: (any SQLRow) throws(StoreError) -> T)
        throws(StoreError) -> [T]
    {
        try query(sql, values) { (s) throws(StoreError) -> T in try row(s) }
    }

    package func inTransaction<T>(_ body: () throws(StoreError) -> T) throws(StoreError) -> T {
        try write { (_) throws(StoreError) -> T in try body() }
    }
}
