import JSON
import Planning

/// The JSON shapes of docs/commands.md §4.1 for edits, flags and summaries, shared by `run`, `preview` and
/// `show` (the report stored with a changeset uses them too, so `show` prints what `run` saw).
package enum EditReport {
    package static func edit(_ e: PlanEdit) -> JSONValue {
        var o: [String: JSONValue] = [
            "op": .string(e.op.rawValue), "id": .string(e.id.description), "title": .string(e.title),
            "before": e.before.map(range) ?? .null, "after": e.after.map(range) ?? .null,
            "reason": .string(e.reason.rawValue),
        ]
        if !e.detail.isEmpty { o["detail"] = .string(e.detail) }
        return .object(o)
    }

    /// The text of `.array(edits.map(edit))`, written directly: a catch-up night's report lists
    /// dozens of edits, and building their objects only to write and free them cost more than
    /// the text. Keys in sorted order, as `JSONValue.text` writes them.
    package static func editsText(_ edits: [PlanEdit]) -> String {
        var w = JSONTextWriter()
        w.raw("[")
        for (i, e) in edits.enumerated() {
            w.raw(i == 0 ? "{\"after\":" : ",{\"after\":")
            writeRange(e.after, into: &w)
            w.raw(",\"before\":")
            writeRange(e.before, into: &w)
            if !e.detail.isEmpty {
                w.raw(",\"detail\":")
                w.string(e.detail)
            }
            w.raw(",\"id\":")
            w.string(e.id.description)
            w.raw(",\"op\":")
            w.string(e.op.rawValue)
            w.raw(",\"reason\":")
            w.string(e.reason.rawValue)
            w.raw(",\"title\":")
            w.string(e.title)
            w.raw("}")
        }
        w.raw("]")
        return w.text
    }

    private static func writeRange(_ r: TimeRange?, into w: inout JSONTextWriter) {
        guard let r else { return w.raw("null") }
        w.raw("{\"end\":")
        w.string(r.end)
        w.raw(",\"start\":")
        w.string(r.start)
        w.raw("}")
    }

    package static func range(_ r: TimeRange) -> JSONValue {
        ["start": .string(r.start.description), "end": .string(r.end.description)]
    }

    /// - Parameter start: where the flagged occurrence was when the night began, so the note
    ///   can say "missed Mon 6 Jan" of a one-off task (whose id carries no date).
    package static func flag(_ f: PlanFlag, start: CivilDateTime? = nil) -> JSONValue {
        var o: [String: JSONValue] = ["id": .string(f.id.description), "flag": .string(f.kind.rawValue)]
        if f.count != 1 { o["count"] = .int(f.count) }
        if let start { o["start"] = .string(start.description) }
        if !f.title.isEmpty { o["title"] = .string(f.title) }
        return .object(o)
    }

    package static func summary(_ s: PlanSummary) -> JSONValue {
        [
            "dropped": .int(s.dropped), "skipped": .int(s.skipped), "rescheduled": .int(s.rescheduled),
            "chained": .int(s.chained),
        ]
    }

    /// Reads an edit back from a stored report.
    package static func edit(from v: JSONValue) -> PlanEdit? {
        guard let op = v["op"]?.stringValue.flatMap(PlanEdit.Operation.init(rawValue:)),
            let id = v["id"]?.stringValue.flatMap(OccurrenceID.init),
            let reason = v["reason"]?.stringValue.flatMap(PlanEdit.Reason.init(rawValue:))
        else { return nil }
        func r(_ key: String) -> TimeRange? {
            guard let s = v[key]?["start"]?.stringValue.flatMap({ CivilDateTime($0) }),
                let e = v[key]?["end"]?.stringValue.flatMap({ CivilDateTime($0) })
            else { return nil }
            return TimeRange(start: s, end: e)
        }
        return PlanEdit(
            op: op, id: id, title: v["title"]?.stringValue ?? "", before: r("before"), after: r("after"),
            reason: reason, detail: v["detail"]?.stringValue ?? "")
    }
}
