import CSQLite

/// The current row of a query, read by 0-based column index, whichever engine produced it.
/// Repositories read rows through this, so one mapping serves both engines.
package protocol SQLRow {
    var columnCount: Int32 { get }
    func isNull(_ column: Int32) -> Bool
    func int(_ column: Int32) -> Int
    func optionalInt(_ column: Int32) -> Int?
    func bool(_ column: Int32) -> Bool
    func double(_ column: Int32) -> Double
    func optionalDouble(_ column: Int32) -> Double?
    func text(_ column: Int32) -> String
    func optionalText(_ column: Int32) -> String?
    /// Calls `body` with the column's text as UTF-8 bytes, without making a `String` of it;
    /// nil for NULL.
    func withColumnBytes<T>(_ column: Int32, _ body: (UnsafeBufferPointer<UInt8>) -> T?) -> T?
}

extension Statement: SQLRow {
    package func withColumnBytes<T>(_ column: Int32, _ body: (UnsafeBufferPointer<UInt8>) -> T?) -> T? {
        guard let pointer = sqlite3_column_text(handle, column) else { return nil }
        return body(UnsafeBufferPointer(start: pointer, count: Int(sqlite3_column_bytes(handle, column))))
    }
}
