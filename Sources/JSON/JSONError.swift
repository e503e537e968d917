/// Text that is not JSON: where (the line and column, as an editor shows them) and what is
/// wrong. The column counts characters (Unicode scalars) from 1, so a file of one long line
/// (a typical export) still points at the spot.
package struct JSONError: Error, Equatable, Sendable, CustomStringConvertible {
    package let line: Int
    package let column: Int
    package let reason: String

    package init(line: Int, column: Int = 1, reason: String) {
        self.line = line
        self.column = column
        self.reason = reason
    }

    /// `invalid JSON at line 3, column 7: duplicate key 'a'`.
    package var message: String { "invalid JSON at line \(line), column \(column): \(reason)" }

    package var description: String { message }
}
