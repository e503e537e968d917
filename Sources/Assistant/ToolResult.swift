import JSON
import Planning

/// The JSON a tool call answers with (docs/model.md §12): one entry per item, in the order of the
/// items, `{"ok": true, "id": "…"}` or `{"ok": false, "error": "…"}` (with the `id` when the
/// item named one); a call refused as a whole (bad arguments, unknown tool) answers with a
/// single `{"ok": false, "error": "…"}`. A placement refused for want of room also carries
/// `"nearest": {"start", "end"}`, the nearest slot the rules accept.
package enum ToolResult {
    package static func ok(id: String) -> JSONValue {
        ["ok": true, "id": .string(id)]
    }

    package static func failure(_ message: String, id: String? = nil, nearest: TimeRange? = nil) -> JSONValue {
        var entry: [String: JSONValue] = ["ok": false, "error": .string(message)]
        if let id { entry["id"] = .string(id) }
        if let nearest {
            entry["nearest"] = ["start": .string(nearest.start.description), "end": .string(nearest.end.description)]
        }
        return .object(entry)
    }

    /// Whether a result (one entry, or a list of them) reports only successes.
    package static func allSucceeded(_ result: JSONValue) -> Bool {
        switch result {
        case .array(let entries): return entries.allSatisfy(allSucceeded)
        default: return result["ok"]?.boolValue == true
        }
    }
}
