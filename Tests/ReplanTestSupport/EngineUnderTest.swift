import Foundation
import Store

/// A connection on one engine for a test parameterized over engines, with whatever keeps its
/// database alive (a temporary directory or a temporary PostgreSQL database, dropped on
/// release): use it through `run`, which keeps both alive until the test body returns.
package struct EngineUnderTest {
    package let executor: any SQLExecutor
    private let keepAlive: AnyObject

    /// The engines tests run on here: SQLite always; PostgreSQL when `scripts/test` started a
    /// server, or when CI requires it (then a missing server fails the PostgreSQL cases).
    package static let engines: [DatabaseEngine] =
        TemporaryPostgres.isAvailable || TemporaryPostgres.isRequired ? [.sqlite, .postgresql] : [.sqlite]

    /// A fresh, empty-but-migrated SQLite file or a fresh PostgreSQL database.
    package init(_ engine: DatabaseEngine) throws {
        switch engine {
        case .sqlite:
            let file = try TemporaryDatabase()
            executor = try file.open()
            keepAlive = file
        case .postgresql:
            let database = try TemporaryPostgres()
            executor = try database.connect()
            keepAlive = database
        }
    }

    /// Runs `body` on the connection while the database is kept alive.
    package func run(_ body: (any SQLExecutor) throws -> Void) throws {
        try withExtendedLifetime(keepAlive) { try body(executor) }
    }
}
