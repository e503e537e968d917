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
}
