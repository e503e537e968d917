import Foundation
import JSON
import Planning
import Store

/// `replan outbox` and `replan outbox ack`: how a push service consumes the notification
/// outbox. Rows have increasing ids; the id is the cursor. A consumer reads the rows after its
/// cursor, delivers them, then acknowledges the last id it handled, which removes the rows up
/// to it. A consumer that dies before `ack` reads the same rows again (at least once), so
/// deliveries should be idempotent per (occurrenceId, action, fireAt). `docs/outbox.md` has
/// a consumer to copy.
enum OutboxCommand {
    static let list = CommandDescriptor(
        path: ["outbox"], synopsis: "outbox [--since CURSOR] [--limit N] [--json]",
        summary: "notification rows to deliver, oldest first, after CURSOR (a row id; default 0)",
        details: """
            Each row says to schedule or cancel the reminder of one session (fireAt is already the
            session's start minus the student's reminder minutes). Deliver them, then run
            'replan outbox ack CURSOR' with the "next" cursor printed here. See docs/outbox.md.
            """,
        options: [
            .value("--since", "the last row id already handled (default 0)"),
            .value("--limit", "at most this many rows (default 100)"), .flag("--json", "print JSON"),
        ]
    ) { ctx in
        let a = ctx.arguments
        try a.rejectExtraPositionals(beyond: 0)
        let since = try a.int("--since", in: 0...Int.max) ?? 0
        let limit = try a.int("--limit", in: 1...10_000) ?? 100
        let db = try ctx.openExistingDatabase()
        let rows = try storeCall { () throws(StoreError) in try OutboxRepository(db).entries(after: since, limit: limit)
        }
        let next = rows.last?.id ?? since
        if a.flag("--json") {
            ctx.console.out(
                JSONValue.object([
                    "schema": "replan.outbox/1", "since": .int(since), "next": .int(next),
                    "entries": .array(
                        rows.map { r in
                            [
                                "id": .int(r.id), "user": .string(r.userID),
                                "occurrenceId": .string(r.entry.occurrenceID.description),
                                "taskId": .string(r.entry.occurrenceID.taskID),
                                "action": .string(r.entry.action.rawValue),
                                "fireAt": .string(Timestamp.text(r.entry.fireAt)),
                                "createdAt": .string(Timestamp.text(r.createdAt)),
                                "changesetId": r.changesetID.map { .string($0.description) } ?? .null,
                            ]
                        }),
                ]).prettyText)
            return .success
        }
        if rows.isEmpty { ctx.console.out("no rows after \(since)") }
        for r in rows {
            ctx.console.out(
                "\(r.id)  \(r.entry.action.rawValue.padding(toLength: 8, withPad: " ", startingAt: 0))  \(Timestamp.text(r.entry.fireAt))  \(r.userID)  \(r.entry.occurrenceID)"
            )
        }
        if !rows.isEmpty { ctx.console.out("next cursor: \(next) (acknowledge with: replan outbox ack \(next))") }
        return .success
    }

    static let ack = CommandDescriptor(
        path: ["outbox", "ack"], synopsis: "outbox ack CURSOR [--json]",
        summary: "remove the notification rows up to and including CURSOR (they were delivered)",
        options: [.flag("--json", "print JSON")]
    ) { ctx in
        let a = ctx.arguments
        let text = try a.positional(0, "CURSOR (the \"next\" of 'replan outbox')")
        try a.rejectExtraPositionals(beyond: 1)
        guard let cursor = Int(text), cursor >= 0 else {
            throw CLIError.badInput("CURSOR must be a row id (a whole number), got '\(text)'")
        }
        let db = try ctx.openExistingDatabase()
        let removed = try storeCall { () throws(StoreError) in try OutboxRepository(db).acknowledge(through: cursor) }
        if a.flag("--json") {
            ctx.console.out(
                JSONValue.object(["schema": "replan.outbox-ack/1", "cursor": .int(cursor), "removed": .int(removed)])
                    .prettyText)
        } else {
            ctx.console.out("acknowledged through \(cursor): \(removed) row(s) removed")
        }
        return .success
    }
}
