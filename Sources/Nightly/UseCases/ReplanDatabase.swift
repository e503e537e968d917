import Foundation
import Store

/// A replan database opened for the use cases. The connection stays on this side of
/// `Nightly`: the command line holds this handle and passes it to the use cases, and never
/// sees a repository or SQL.
package final class ReplanDatabase {
    /// The open connection: internal, so nothing outside the use cases can run a statement on it.
    let connection: any SQLExecutor
    /// Where it is: the nightly job and the feeds open more connections to the same database.
    let location: StoreLocation

    /// The SQLite path, or the PostgreSQL server as `host:port/database as user` (never a
    /// password): what messages name.
    package var path: String { location.description }
    package var engine: DatabaseEngine { location.engine }

    init(_ connection: any SQLExecutor, location: StoreLocation) {
        self.connection = connection
        self.location = location
    }

    /// Opens a PostgreSQL database (`create`: whether an empty one receives replan's schema).
    private static func openServer(_ uri: String, create: Bool) throws(UseCaseError) -> ReplanDatabase {
        let location = try storeCall { () throws(StoreError) in try StoreLocation(uri) }
        let connection = try storeCall { () throws(StoreError) in try location.open(create: create) }
        return ReplanDatabase(connection, location: location)
    }

    /// Whether `path` names a PostgreSQL server rather than a SQLite file.
    package static func isServer(_ path: String) -> Bool { PostgresLocation.isURI(path) }

    /// Opens the database at `path`, creating it (and, mode 0700, its missing parent
    /// directories) and migrating it as needed.
    package static func open(path: String) throws(UseCaseError) -> ReplanDatabase {
        if path.isEmpty {
            throw UseCaseError(.cannotOpenDatabase, "the database path is empty; give a file path")
        }
        if PostgresLocation.isURI(path) { return try openServer(path, create: true) }
        let lower = path.lowercased()
        if lower.hasPrefix("postgresql:") || lower.hasPrefix("postgres:") {
            // Taken as a path, a mistyped URL became directories named after the server with
            // the password among them; it is refused without repeating it.
            throw UseCaseError(
                .cannotOpenDatabase,
                "the database looks like a PostgreSQL URL but does not start with postgresql:// or postgres://; nothing was opened"
            )
        }
        if path == ":memory:" || path.hasPrefix("file::memory:") {
            throw UseCaseError(
                .cannotOpenDatabase,
                "'\(path)' is SQLite's in-memory database, which would lose everything when the command ends; give a file path"
            )
        }
        let dir = parentDirectory(of: path)
        if !dir.isEmpty, !FileManager.default.fileExists(atPath: dir) {
            // Only the default location's parent is created; it holds one user's private data.
            if let reason = makeDirectories(dir) {
                throw UseCaseError(.cannotOpenDatabase, "cannot create directory \(dir) for the database: \(reason)")
            }
        }
        let connection = try storeCall { () throws(StoreError) -> any SQLExecutor in try Database.open(path: path) }
        return ReplanDatabase(connection, location: .sqlite(path: path))
    }

    /// Opens the database for a command that only reads: a missing or empty file is an error
    /// naming the path and why it was looked for (`source`), never a new database (a mistyped
    /// `--db` used to create one, directories included).
    /// On PostgreSQL, a database without tables is refused the same way.
    package static func openExisting(path: String, source: String) throws(UseCaseError) -> ReplanDatabase {
        if PostgresLocation.isURI(path) { return try openServer(path, create: false) }
        var info = stat()
        guard stat(path, &info) == 0 else {
            throw UseCaseError(
                .cannotOpenDatabase,
                "no database at \(path) (\(String(cString: strerror(errno)))); looked there because of \(source); nothing was created"
            )
        }
        guard info.st_size > 0 else {
            throw UseCaseError(
                .cannotOpenDatabase, "\(path) is empty, not a replan database yet (looked there because of \(source))")
        }
        return try open(path: path)
    }

    /// The directory part of a path ("" for a bare name). Foundation's
    /// `deletingLastPathComponent` crashed on one-character relative paths (`a`, `.`): issue
    /// 28, item 9.
    static func parentDirectory(of path: String) -> String {
        guard let slash = path.lastIndex(of: "/") else { return "" }
        let dir = path[..<slash]
        return dir.isEmpty ? "/" : String(dir)
    }

    /// `mkdir -p` with mode 0700; nil on success, else the system's reason ("Not a directory"),
    /// which says more than Foundation's "NSCocoaErrorDomain error 512".
    private static func makeDirectories(_ dir: String) -> String? {
        var path = dir.hasPrefix("/") ? "" : "."
        for component in dir.split(separator: "/") {
            path += "/" + component
            if mkdir(path, 0o700) != 0 && errno != EEXIST { return "\(path): \(String(cString: strerror(errno)))" }
        }
        return nil
    }
}
