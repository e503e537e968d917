import Foundation
import JSON
import Nightly
import Planning

/// Human-readable renderings of nights and changesets: before → after, grouped by day.
enum NightText {
    /// The edits by day, each in words in the student's language (`texts`), its id dimmed for
    /// the operator.
    static func edits(_ edits: [PlanEdit], console: Console, texts: NoteTexts = NoteTexts(language: "en")) -> [String] {
        guard !edits.isEmpty else { return ["  (no changes)"] }
        var lines: [String] = []
        var currentDay: CivilDate?
        for e in edits {
            let day = (e.after ?? e.before)?.start.date
            if let day, day != currentDay {
                currentDay = day
                lines.append("  " + console.paint(texts.date(day), .bold))
            }
            lines.append("    " + line(e, console: console, texts: texts))
        }
        return lines
    }

    static func line(_ e: PlanEdit, console: Console, texts: NoteTexts = NoteTexts(language: "en")) -> String {
        Console.oneLine(MorningNote.line(e, texts: texts)) + "  " + console.paint(e.id.description, .dim)
    }

    static func summary(_ s: PlanSummary) -> String {
        "dropped \(s.dropped), skipped \(s.skipped), rescheduled \(s.rescheduled) (of which chained \(s.chained))"
    }

    static func model(_ m: ModelSummary) -> String {
        if !m.called {
            // The same words as `log` (ModelSummary.decisionText).
            let decision = "model " + (m.decisionText ?? "not asked")
            if let e = m.error { return "\(decision) — \(Console.oneLine(e))" }
            return decision
        }
        var text =
            "model \(m.decisionText ?? "asked"): \(m.turns) turn(s), \(m.requests) request(s), \(m.tokens.total) tokens"
        if let ending = m.ending { text += ", ended by \(ending)" }
        if let e = m.error { text += " — \(Console.oneLine(e))" }
        if let summary = m.summary { text += "\n  model says: \(Console.oneLine(summary))" }
        if let question = m.question { text += "\n  for you to decide: \(Console.oneLine(question))" }
        return text
    }

    /// The JSON object of one user's night (docs/commands.md §4.1) (`run --json` entries, `preview --json`).
    static func json(_ n: UserNight, schema: String?, now: Date, includeChangeset: Bool) -> JSONValue {
        var o: [String: JSONValue] = [
            "user": .string(n.userID), "planDate": .string(n.planDate.description),
            "now": .string(n.localNow.description),
            "status": .string(n.status.rawValue), "edits": .array(n.edits.map(EditReport.edit)),
            "flags": .array(n.flags.map { EditReport.flag($0) }), "summary": EditReport.summary(n.summary),
            "model": n.model.json,
            "error": n.error.map { .string($0) } ?? .null,
        ]
        // The morning note the night gives the student (docs/planning.md §12), beside the codes.
        // (`preview`; a committed night of `run` has let its plans go, and `note` prints it.)
        if let plans = n.plans { o["note"] = NightNote.json(NightNote.note(of: n, user: plans.original.user)) }
        if let schema { o["schema"] = .string(schema) }
        if includeChangeset { o["changesetId"] = n.changesetID.map { .string($0.description) } ?? .null }
        return .object(o)
    }
}
