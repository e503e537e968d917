/// The two engines replan stores its data in: a SQLite file on the machine that runs the job
/// (the default), or a PostgreSQL server that other hosts (the app's backend) share.
package enum DatabaseEngine: String, CaseIterable, Sendable, CustomStringConvertible {
    case sqlite
    case postgresql

    /// The engine a `--db` / `REPLAN_DB` / configuration `database` value names: a libpq
    /// connection URI selects PostgreSQL, anything else is a SQLite path.
    package init(location: String) {
        self = PostgresLocation.isURI(location) ? .postgresql : .sqlite
    }

    package var description: String {
        switch self {
        case .sqlite: "SQLite"
        case .postgresql: "PostgreSQL"
        }
    }
}
