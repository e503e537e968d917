import CSQLite
import Foundation

/// One prepared SQLite statement: typed binds by 1-based index, stepping, typed column reads
/// by 0-based index. Finalizes itself when released, so a forgotten statement cannot keep the
/// connection from closing.
///
/// A statement belongs to the connection that prepared it and, like it, is used from one
/// thread at a time (not `Sendable`).
package final class Statement {
    let handle: OpaquePointer
    let sql: String

    init(connection: OpaquePointer, sql: String) throws(StoreError) {
        var stmt: OpaquePointer?
        let rc = sqlite3_prepare_v2(connection, sql, -1, &stmt, nil)
        guard rc == SQLITE_OK, let stmt else {
            sqlite3_finalize(stmt)
            throw StoreError.sqlite(connection, rc, operationName("prepare", sql))
        }
        self.handle = stmt
        self.sql = sql
    }

    deinit { sqlite3_finalize(handle) }

    private var connection: OpaquePointer? { sqlite3_db_handle(handle) }

    private func check(_ rc: Int32, _ verb: String) throws(StoreError) {
        guard rc == SQLITE_OK else { throw StoreError.sqlite(connection, rc, operationName(verb, sql)) }
    }

    // MARK: Binding (1-based indexes, as in SQLite)

    package func bind(_ value: Int?, at index: Int32) throws(StoreError) {
        guard let value else { return try bindNull(at: index) }
        try check(sqlite3_bind_int64(handle, index, Int64(value)), "bind")
    }

    package func bind(_ value: Double?, at index: Int32) throws(StoreError) {
        guard let value else { return try bindNull(at: index) }
        try check(sqlite3_bind_double(handle, index, value), "bind")
    }

    package func bind(_ value: String?, at index: Int32) throws(StoreError) {
        guard let value else { return try bindNull(at: index) }
        var text = value
        // Pass the byte count: strings may contain NUL, and an empty buffer has no base
        // address (which SQLite would read as NULL rather than '').
        let rc = text.withUTF8 { buffer -> Int32 in
            if buffer.isEmpty { return sqlite3_bind_text(handle, index, "", 0, replan_sqlite_transient()) }
            return buffer.withMemoryRebound(to: CChar.self) {
                sqlite3_bind_text(handle, index, $0.baseAddress, Int32($0.count), replan_sqlite_transient())
            }
        }
        try check(rc, "bind")
    }

    package func bind(_ value: Data?, at index: Int32) throws(StoreError) {
        guard let value else { return try bindNull(at: index) }
        let rc = value.withUnsafeBytes { buffer -> Int32 in
            // A nil pointer would bind NULL; an empty blob is a zero-length blob.
            guard let base = buffer.baseAddress, !buffer.isEmpty else { return sqlite3_bind_zeroblob(handle, index, 0) }
            return sqlite3_bind_blob(handle, index, base, Int32(buffer.count), replan_sqlite_transient())
        }
        try check(rc, "bind")
    }

    package func bindNull(at index: Int32) throws(StoreError) {
        try check(sqlite3_bind_null(handle, index), "bind")
    }

    package func bind(_ value: SQLValue, at index: Int32) throws(StoreError) {
        switch value {
        case .integer(let v): try bind(v, at: index)
        case .real(let v): try bind(v, at: index)
        case .text(let v): try bind(v, at: index)
        case .blob(let v): try bind(v, at: index)
        case .null: try bindNull(at: index)
        }
    }

    /// Binds `values` to placeholders 1, 2, ….
    package func bind(_ values: [SQLValue]) throws(StoreError) {
        for (i, value) in values.enumerated() { try bind(value, at: Int32(i + 1)) }
    }

    // MARK: Stepping

    /// Advances; true while a row is available, false when done.
    @discardableResult
    package func step() throws(StoreError) -> Bool {
        let rc = sqlite3_step(handle)
        switch rc {
        case SQLITE_ROW: return true
        case SQLITE_DONE: return false
        default:
            let error = StoreError.sqlite(connection, rc, operationName("step", sql))
            sqlite3_reset(handle)
            throw error
        }
    }

    /// Makes the statement reusable: rewinds it and drops its bindings.
    package func reset() {
        sqlite3_reset(handle)
        sqlite3_clear_bindings(handle)
    }

    // MARK: Columns (0-based indexes)

    package var columnCount: Int32 { sqlite3_column_count(handle) }

    package func isNull(_ column: Int32) -> Bool { sqlite3_column_type(handle, column) == SQLITE_NULL }

    package func int(_ column: Int32) -> Int { Int(sqlite3_column_int64(handle, column)) }
    package func optionalInt(_ column: Int32) -> Int? { isNull(column) ? nil : int(column) }
    package func bool(_ column: Int32) -> Bool { sqlite3_column_int64(handle, column) != 0 }
    package func double(_ column: Int32) -> Double { sqlite3_column_double(handle, column) }
    package func optionalDouble(_ column: Int32) -> Double? { isNull(column) ? nil : double(column) }

    package func text(_ column: Int32) -> String { optionalText(column) ?? "" }

    package func optionalText(_ column: Int32) -> String? {
        guard let pointer = sqlite3_column_text(handle, column) else { return nil }
        let count = Int(sqlite3_column_bytes(handle, column))
        return String(decoding: UnsafeBufferPointer(start: pointer, count: count), as: UTF8.self)
    }

    package func data(_ column: Int32) -> Data? {
        guard !isNull(column) else { return nil }
        let count = Int(sqlite3_column_bytes(handle, column))
        guard count > 0, let pointer = sqlite3_column_blob(handle, column) else { return Data() }
        return Data(bytes: pointer, count: count)
    }
}

@available(*, unavailable, message: "a statement is used on one thread at a time, like its connection")
extension Statement: Sendable {}
