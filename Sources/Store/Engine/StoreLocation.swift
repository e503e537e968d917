import Foundation

/// Where a replan database lives, as `--db`, `REPLAN_DB` or the configuration's `database`
/// names it: a SQLite file (the default), or a PostgreSQL database when the value is a libpq
/// connection URI (`postgresql://` or `postgres://`). Everything that opens a connection for
/// the use cases or the nightly job's threads goes through here, so the engine is chosen once.
package enum StoreLocation: Sendable, CustomStringConvertible {
    case sqlite(path: String)
    case postgresql(PostgresLocation)

    /// Reads a location; a URI libpq cannot parse is `.badLocation`.
    package init(_ value: String) throws(StoreError) {
        if PostgresLocation.isURI(value) {
            self = .postgresql(try PostgresLocation(value))
        } else {
            self = .sqlite(path: value)
        }
    }

    package var engine: DatabaseEngine {
        switch self {
        case .sqlite: .sqlite
        case .postgresql: .postgresql
        }
    }

    /// The path, or the server as `host:port/database as user`: never a password.
    package var description: String {
        switch self {
        case .sqlite(let path): path
        case .postgresql(let location): location.description
        }
    }

    /// Opens a connection and brings the schema up to date.
    /// - Parameter create: whether an empty PostgreSQL database may receive replan's schema;
    ///   when false an empty one is refused (`.notReplanServerDatabase` is not it: see
    ///   `PostgresMigrator`). SQLite files are created by `Database.open` as before.
    package func open(create: Bool = true, now: Date = Date()) throws(StoreError) -> any SQLExecutor {
        switch self {
        case .sqlite(let path): return try Database.open(path: path, now: now)
        case .postgresql(let location): return try PostgresConnection.open(location.uri, create: create, now: now)
        }
    }

    /// Takes the database's exclusive lock. On SQLite it is the run lock, at most one
    /// `replan run` at a time: `flock` on the file (`RunLock`). On PostgreSQL, where runs share
    /// the night through claims, it guards the once-a-night chores (the prune after a run): a
    /// session advisory lock held on a connection of its own (`PostgresRunLock`), which the
    /// server drops when the process dies in any way.
    /// - Returns: the held lock (release it by letting go of it), or nil when another run holds it.
    package func tryAcquireRunLock() throws(StoreError) -> (any AnyObject & Sendable)? {
        switch self {
        case .sqlite(let path): return try RunLock.tryAcquire(databasePath: path)
        case .postgresql(let location): return try PostgresRunLock.tryAcquire(location)
        }
    }
}
