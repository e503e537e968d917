import Foundation

/// Reads databases with the `sqlite3` shell, so what the tests see does not depend on replan's
/// own store code. The shell opens read-write (but only reads) so that, as the last connection,
/// it removes the -wal/-shm files on close like replan does; a read-only connection leaves them.
package enum SQL {
    /// The tables that record what happened rather than what the plan is, and `statistics`
    /// with its `statistics_base`, which are derived from the plan (recounted by the nightly
    /// job and after undo/redo, so after an undo they hold the true counts, not the stale ones
    /// from before the run).
    package static let bookkeeping: Set<String> = [
        "runs", "user_runs", "transcripts", "changesets", "changeset_edits",
        "notification_outbox", "schema_migrations", "statistics", "statistics_base", "version_clock",
    ]

    /// Rows of a query, each row's columns separated by `|` (NULL as `NULL`, text quoted).
    package static func rows(_ db: String, _ sql: String) throws -> [String] {
        let output = try shell(db, ["-cmd", ".mode quote", "-cmd", ".separator |", db, sql])
        return output.split(separator: "\n", omittingEmptySubsequences: true).map(String.init)
    }

    /// The single value of a one-row, one-column query (unquoted).
    package static func value(_ db: String, _ sql: String) throws -> String {
        let output = try shell(db, ["-list", db, sql])
        return output.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// The ids of a database's students, quoted as `rows` gives them (`'mei'`).
    package static func userIDs(_ db: String) throws -> [String] { try rows(db, "SELECT id FROM users ORDER BY id") }

    /// Runs a statement that changes the database (to plant what replan itself never writes).
    package static func execute(_ db: String, _ sql: String) throws {
        _ = try shell(db, [db, sql])
    }

    package static func int(_ db: String, _ sql: String) throws -> Int {
        let text = try value(db, sql)
        guard let n = Int(text) else { throw TestFailure("\(sql) gave '\(text)', not a number") }
        return n
    }

    /// Every table's rows, in a fixed order, except the bookkeeping tables (and the named
    /// columns): the plan as a student sees it, for "row for row" comparisons.
    /// - Parameter ignoringVersions: leave out the `version` columns: their values come from
    ///   one database-wide counter, so two databases that committed the same students in a
    ///   different order hold the same rows with different versions.
    package static func planDump(_ db: String, excluding: Set<String> = bookkeeping, ignoringVersions: Bool = false)
        throws
        -> [String: [String]]
    {
        let tables = try rows(
            db, "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' ORDER BY name"
        )
        .map { $0.trimmingCharacters(in: CharacterSet(charactersIn: "'")) }
        .filter { !excluding.contains($0) }
        var dump: [String: [String]] = [:]
        for table in tables {
            let names = try rows(db, "SELECT name FROM pragma_table_info('\(table)') ORDER BY cid")
                .map { $0.trimmingCharacters(in: CharacterSet(charactersIn: "'")) }
                .filter { !(ignoringVersions && $0 == "version") }
            let columns = names.map { "\"\($0)\"" }.joined(separator: ", ")
            let order = (1...names.count).map(String.init).joined(separator: ", ")
            dump[table] = try rows(db, "SELECT \(columns) FROM \"\(table)\" ORDER BY \(order)")
        }
        return dump
    }

    private static func shell(_ db: String, _ arguments: [String]) throws -> String {
        guard FileManager.default.isExecutableFile(atPath: Binary.sqlite3) else {
            throw TestFailure(
                "the end-to-end tests read databases with the sqlite3 shell; install it (apt-get install sqlite3)")
        }
        let outcome = try Outcome.of(Binary.sqlite3, arguments)
        guard outcome.code == 0 else {
            throw TestFailure("sqlite3 \(arguments.joined(separator: " ")) failed: \(outcome.stderr)")
        }
        return outcome.stdout
    }
}
