import Foundation
import JSON
import Nightly
import Planning

/// `replan outbox` and `replan outbox ack`: how a push service consumes the notification
/// outbox. Rows have increasing ids; the id is the cursor. A consumer reads the rows after its
/// cursor, delivers them, then acknowledges the last id it handled, which removes the rows up
/// to it. A consumer that dies before `ack` reads the same rows again (at least once), so
/// deliveries should be idempotent per (occurrenceId, action, fireAt). `docs/outbox.md` has
/// a consumer to copy.
enum OutboxCommand {
    struct List: ReplanCommand {
        static let configuration = CommandConfiguration(
            name: "outbox", abstract: "notification rows to deliver, oldest first, after CURSOR (a row id; default 0)",
            discussion: """
                Each row says to schedule or cancel the reminder of one session (fireAt is already the
                session's start minus the student's reminder minutes). Deliver them, then run
                'replan outbox ack CURSOR' with the "next" cursor printed here. See docs/outbox.md.
                """, subcommands: [Ack.self], runsWithoutSubcommand: true)

        @Option(
            name: "--since", value: "CURSOR", range: 0...Int.max, help: "the last row id already handled (default 0)")
        var since: Int?
        @Option(name: "--limit", range: 1...10_000, help: "at most this many rows (default 100)") var limit: Int?
        @Flag(name: "--json", help: "print JSON") var json: Bool

        func run(_ ctx: CommandContext) throws -> ExitCode {
            let since = self.since ?? 0
            let limit = self.limit ?? 100
            let db = try ctx.openExistingDatabase()
            let rows = try useCase { () throws(UseCaseError) in
                try Outbox(database: db).entries(after: since, limit: limit)
            }
            let next = rows.last?.id ?? since
            if self.json {
                ctx.console.out(
                    JSONValue.object([
                        "schema": "replan.outbox/1", "since": .int(since), "next": .int(next),
                        "entries": .array(
                            rows.map { r in
                                let note = r.entry.note
                                var o: [String: JSONValue] = [
                                    "id": .int(r.id), "user": .string(r.userID), "kind": .string(r.entry.kind.rawValue),
                                    "occurrenceId": note == nil ? .string(r.entry.occurrenceID.description) : .null,
                                    "taskId": note == nil ? .string(r.entry.occurrenceID.taskID) : .null,
                                    "action": .string(r.entry.action.rawValue),
                                    "fireAt": .string(Timestamp.text(r.entry.fireAt)),
                                    "createdAt": .string(Timestamp.text(r.createdAt)),
                                    "changesetId": r.changesetID.map { .string($0.description) } ?? .null,
                                ]
                                if let note {
                                    o["title"] = .string(note.title)
                                    o["body"] = .string(note.body)
                                }
                                return .object(o)
                            }),
                    ]).prettyText)
                return .success
            }
            if rows.isEmpty { ctx.console.out("no rows after \(since)") }
            for r in rows {
                ctx.console.out(
                    "\(r.id)  \((r.entry.note == nil ? r.entry.action.rawValue : "note").padding(toLength: 8, withPad: " ", startingAt: 0))  \(Timestamp.text(r.entry.fireAt))  \(r.userID)  \(r.entry.note.map { Console.oneLine($0.title) } ?? r.entry.occurrenceID.description)"
                )
            }
            if !rows.isEmpty { ctx.console.out("next cursor: \(next) (acknowledge with: replan outbox ack \(next))") }
            return .success
        }
    }

    struct Ack: ReplanCommand {
        static let configuration = CommandConfiguration(
            name: "ack", abstract: "remove the notification rows up to and including CURSOR (they were delivered)")

        @Argument(
            name: "CURSOR", what: "CURSOR (the \"next\" of 'replan outbox')",
            help: "the \"next\" cursor 'replan outbox' printed")
        var cursor: String
        @Flag(name: "--json", help: "print JSON") var json: Bool

        func run(_ ctx: CommandContext) throws -> ExitCode {
            let text = self.cursor
            guard let cursor = Int(text), cursor >= 0 else {
                throw CLIError.badInput("CURSOR must be a row id (a whole number), got '\(text)'")
            }
            let db = try ctx.openExistingDatabase()
            let removed = try useCase { () throws(UseCaseError) in try Outbox(database: db).acknowledge(through: cursor)
            }
            if self.json {
                ctx.console.out(
                    JSONValue.object([
                        "schema": "replan.outbox-ack/1", "cursor": .int(cursor), "removed": .int(removed),
                    ])
                    .prettyText)
            } else {
                ctx.console.out("acknowledged through \(cursor): \(removed) row(s) removed")
            }
            return .success
        }
    }

}
