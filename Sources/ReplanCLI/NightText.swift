import Foundation
import JSON
import Nightly
import Planning

/// Human-readable renderings of nights and changesets: before → after, grouped by day.
enum NightText {
    static func edits(_ edits: [PlanEdit], console: Console) -> [String] {
        guard !edits.isEmpty else { return ["  (no changes)"] }
        var lines: [String] = []
        var currentDay: CivilDate?
        for e in edits {
            let day = (e.after ?? e.before)?.start.date
            if let day, day != currentDay {
                currentDay = day
                lines.append("  " + console.paint("\(day) \(SystemPromptNames.weekday(day))", .bold))
            }
            lines.append("    " + line(e, console: console))
        }
        return lines
    }

    static func line(_ e: PlanEdit, console: Console) -> String {
        func show(_ r: TimeRange?) -> String {
            guard let r else { return "—" }
            return r.start.date == r.end.date ? "\(r.start.date) \(r.start.time)–\(r.end.time)" : "\(r.start)–\(r.end)"
        }
        let verb: String
        switch e.op {
        case .move: verb = console.paint("move  ", .blue)
        case .skip: verb = console.paint("skip  ", .yellow)
        case .delete: verb = console.paint("delete", .red)
        case .create: verb = console.paint("create", .green)
        case .update: verb = console.paint("update", .blue)
        }
        var text = "\(verb) '\(Console.oneLine(e.title))'  \(show(e.before)) → \(show(e.after))  (\(e.reason.rawValue))"
        if !e.detail.isEmpty { text += " — \(e.detail)" }
        return text + "  " + console.paint(e.id.description, .dim)
    }

    static func summary(_ s: PlanSummary) -> String {
        "dropped \(s.dropped), skipped \(s.skipped), rescheduled \(s.rescheduled) (of which chained \(s.chained))"
    }

    static func model(_ m: ModelSummary) -> String {
        if !m.called {
            if let e = m.error { return "model not asked: \(Console.oneLine(e))" }
            return m.decision.map { "model not asked (\($0.reason))" } ?? "model not asked"
        }
        var text = "model: \(m.turns) turn(s), \(m.requests) request(s), \(m.tokens.total) tokens"
        if let reason = m.decision?.reason { text += ", asked for \(reason)" }
        if let ending = m.ending { text += ", ended by \(ending)" }
        if let e = m.error { text += " — \(Console.oneLine(e))" }
        if let summary = m.summary { text += "\n  model says: \(Console.oneLine(summary))" }
        if let question = m.question { text += "\n  for you to decide: \(question)" }
        return text
    }

    /// The JSON object of one user's night (docs/commands.md §4.1) (`run --json` entries, `preview --json`).
    static func json(_ n: UserNight, schema: String?, now: Date, includeChangeset: Bool) -> JSONValue {
        var o: [String: JSONValue] = [
            "user": .string(n.userID), "planDate": .string(n.planDate.description),
            "now": .string(n.localNow.description),
            "status": .string(n.status.rawValue), "edits": .array(n.edits.map(EditReport.edit)),
            "flags": .array(n.flags.map(EditReport.flag)), "summary": EditReport.summary(n.summary),
            "model": n.model.json,
            "error": n.error.map { .string($0) } ?? .null,
        ]
        if let schema { o["schema"] = .string(schema) }
        if includeChangeset { o["changesetId"] = n.changesetID.map { .string($0.description) } ?? .null }
        return .object(o)
    }
}
