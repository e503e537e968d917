import Foundation
import JSON
import Nightly

/// `replan copy-database --to URL [--json]`: moves a deployment from its SQLite file to
/// PostgreSQL.
struct CopyDatabaseCommand: ReplanCommand {
    static let configuration = CommandConfiguration(
        name: "copy-database",
        abstract: "copy the SQLite database (--db) into an empty PostgreSQL database, in one transaction",
        discussion: """
            Keeps every id, version, changeset, transcript and outbox row, so undo of a changeset made \
            before the move works after it, and an outbox consumer's cursor stays valid. The target must \
            be empty (replan creates its tables); a second copy into it is refused. The SQLite file is \
            not changed. Stop the timer first: a running night holds the file's lock and the copy waits \
            for nothing (exit 75). Give the password through PGPASSWORD or ~/.pgpass rather than in the \
            URL, so it stays out of the shell's history.
            """)

    @Option(name: "--to", value: "URL", help: "the PostgreSQL database (postgresql://user@host:port/database)")
    var to: String
    @Flag(name: "--json", help: "print JSON") var json: Bool

    func run(_ ctx: CommandContext) throws -> ExitCode {
        let db = try ctx.openExistingDatabase()
        let move = DatabaseMove(database: db)
        let target = to
        let copied = try useCase { () throws(UseCaseError) in try move.copy(to: target, now: ctx.now) }
        if json {
            ctx.console.out(
                JSONValue.object([
                    "schema": "replan.copy-database/1", "target": .string(copied.target), "rows": .int(copied.total),
                    "tables": .object(
                        Dictionary(uniqueKeysWithValues: copied.rows.map { ($0.table, JSONValue.int($0.count)) })),
                    "versionClock": .int(copied.versionClock), "outboxHighWater": .int(copied.outboxHighWater),
                ]).prettyText)
            return .success
        }
        ctx.console.out("copied \(copied.total) row(s) from \(db.path) to PostgreSQL \(copied.target):")
        for (table, count) in copied.rows where count > 0 { ctx.console.out("  \(table): \(count)") }
        ctx.console.out(
            "versions continue after \(copied.versionClock); outbox ids after \(copied.outboxHighWater). Point --db (or the configuration's database) at the new database."
        )
        return .success
    }
}
