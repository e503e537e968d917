import Planning
import Store

/// Why a use case did not do what it was asked, sorted by what the person who asked can do
/// about it. The CLI gives each kind its exit code (docs/commands.md §5); the message names the input, never
/// an SQL argument.
package struct UseCaseError: Error, Equatable, Sendable, CustomStringConvertible {
    package enum Kind: Sendable, Equatable {
        /// The database cannot be opened or created, or is not replan's (exit 73).
        case cannotOpenDatabase
        /// The request names something that does not exist or is not allowed (exit 65).
        case badInput
        /// Rows changed since a changeset saw them (exit 2).
        case conflicts
        /// Another process holds the database; worth retrying later (exit 75).
        case locked
        /// Anything else: a bug or a damaged database (exit 70).
        case internalError
    }

    package var kind: Kind
    package var message: String
    /// For an invalid value: its path in the data (`end`, `repeatRule.until`), so the caller
    /// can name its own input for it (the CLI names the option).
    package var field: String?

    package init(_ kind: Kind, _ message: String, field: String? = nil) {
        self.kind = kind
        self.message = message
        self.field = field
    }

    package static func badInput(_ message: String) -> UseCaseError { UseCaseError(.badInput, message) }

    /// An invalid value, located.
    package static func invalid(_ error: DataError) -> UseCaseError {
        UseCaseError(.badInput, error.message, field: error.path)
    }

    package var description: String { message }

    /// A store failure, classified.
    package init(store error: StoreError) {
        switch error {
        case .cannotOpen, .notADatabase, .notReplanDatabase, .schemaTooNew, .readOnly, .cannotConnect, .badLocation,
            .notReplanServerDatabase, .emptyServerDatabase, .targetNotEmpty:
            self.init(.cannotOpenDatabase, error.description)
        case .duplicateUser, .unknownUser, .unknownChangeset, .foreignRow, .alreadyUndone, .notUndone:
            self.init(.badInput, error.description)
        case .conflict: self.init(.conflicts, error.description)
        case .postgres(let failure) where failure.isConnectionFailure:
            self.init(.cannotOpenDatabase, error.description)
        case .postgres(let failure) where failure.sqlState == "57014":
            self.init(
                .locked,
                "the PostgreSQL server \(failure.server) cancelled a statement (its statement_timeout ran out, or an operator cancelled it) while \(failure.operation); nothing of it was kept: try again later, or raise statement_timeout"
            )
        case .sqlite where error.isBusy, .postgres where error.isBusy:
            self.init(.locked, "the database is busy (another replan process holds it); try again later")
        default: self.init(.internalError, error.description)
        }
    }
}

/// Runs a store call, classifying its error.
func storeCall<T>(_ body: () throws(StoreError) -> T) throws(UseCaseError) -> T {
    do { return try body() } catch { throw UseCaseError(store: error) }
}
