import Foundation
import Store

/// How a `--db` / `REPLAN_DB` / configuration `database` value is shown (`config show`): a
/// SQLite path as it is; a PostgreSQL connection URI as its engine, host, port, database and
/// user, so its password (or anything libpq cannot read) never reaches the screen.
package enum DatabaseLocationText {
    package static func shown(_ location: String) -> String {
        guard DatabaseEngine(location: location) == .postgresql else { return location }
        do throws(StoreError) {
            return "PostgreSQL \(try PostgresLocation(location).description)"
        } catch {
            return "PostgreSQL (a connection URI libpq cannot read)"
        }
    }

    /// The value to print in a command a user may copy ("undo with: replan --db …"): a SQLite
    /// path as it is; a PostgreSQL URI without its password (in the user part or a `password`
    /// parameter), so the copied command reads it from `PGPASSWORD` or the password file.
    package static func copyable(_ location: String) -> String {
        guard DatabaseEngine(location: location) == .postgresql,
            var parts = URLComponents(string: location)
        else { return location }
        parts.password = nil
        if let items = parts.queryItems {
            let kept = items.filter { $0.name.lowercased() != "password" }
            parts.queryItems = kept.isEmpty ? nil : kept
        }
        return parts.string ?? "'<the PostgreSQL URI without its password>'"
    }
}
