/// One failed PostgreSQL call: the SQLSTATE, the server's primary message (with every bound
/// value and secret taken out), what the store was doing and on which server.
package struct PostgresFailure: Equatable, Sendable, CustomStringConvertible {
    /// Five characters, e.g. `23505` (unique violation), `40001` (serialization failure).
    package var sqlState: String
    package var message: String
    /// What the store was doing, e.g. `writing tasks (execute)` (`operationName`): never the
    /// SQL text or a bound value.
    package var operation: String
    /// `host:port/database as user`.
    package var server: String

    package init(sqlState: String, message: String, operation: String, server: String) {
        self.sqlState = sqlState
        self.message = message
        self.operation = operation
        self.server = server
    }

    /// The connection to the server broke (class 08, or libpq lost it).
    package var isConnectionFailure: Bool { sqlState.hasPrefix("08") }

    /// Another transaction held what this one needed: worth retrying later.
    package var isBusy: Bool { ["40001", "40P01", "55P03"].contains(sqlState) }

    package var description: String {
        "PostgreSQL error \(sqlState) on \(server) during \(operation): \(message)"
    }
}
