/// Bad input data: what is wrong and where (a JSON path such as `users[0].tasks[3].end`, or a
/// field name such as `title`). Reported with exit code 65; nothing is written.
package struct DataError: Error, Equatable, Sendable, CustomStringConvertible {
    package var path: String
    package var message: String

    package init(path: String, message: String) {
        self.path = path
        self.message = message
    }

    /// The same error located under a parent path (`tasks[3]` + `end` → `tasks[3].end`).
    package func under(_ parent: String) -> DataError {
        guard !parent.isEmpty else { return self }
        if path.isEmpty { return DataError(path: parent, message: message) }
        return DataError(path: path.hasPrefix("[") ? parent + path : parent + "." + path, message: message)
    }

    package var description: String { path.isEmpty ? message : "\(path): \(message)" }
}
