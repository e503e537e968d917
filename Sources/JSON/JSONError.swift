/// Text that is not JSON: where (the line, as an editor shows it) and what is wrong.
package struct JSONError: Error, Equatable, Sendable, CustomStringConvertible {
    package let line: Int
    package let reason: String

    package init(line: Int, reason: String) {
        self.line = line
        self.reason = reason
    }

    /// `invalid JSON at line 3: duplicate key 'a'`.
    package var message: String { "invalid JSON at line \(line): \(reason)" }

    package var description: String { message }
}
