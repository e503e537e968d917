import JSON
import Planning

/// A stored model transcript (see `ConversationTranscript`) as readable text for
/// `show --transcript`: the system prompt and user message once, then per turn the model's
/// answer (text and tool calls), each tool result, failed attempts and retries, and how the
/// conversation ended. `show --transcript --json` gives the raw entries.
enum TranscriptText {
    static let textLimit = 20_000

    static func render(_ transcript: JSONValue) -> String {
        guard let entries = transcript.arrayValue, !entries.isEmpty else { return "  (empty)" }
        var lines: [String] = []
        var messagesShown = 0
        for entry in entries {
            let turn = entry["turn"]?.intValue.map { "turn \($0): " } ?? ""
            switch entry["kind"]?.stringValue ?? "?" {
            case "request":
                let body = entry["body"] ?? .null
                let messages = body["messages"]?.arrayValue ?? []
                lines.append(
                    "--- \(turn)request to \(body["model"]?.stringValue ?? "?") (\(messages.count) message(s))")
                // Assistant and tool messages are shown where they happened (response, tool);
                // only what we wrote ourselves is new here.
                for message in messages.dropFirst(messagesShown) {
                    let role = message["role"]?.stringValue ?? "?"
                    guard role == "system" || role == "user" else { continue }
                    lines.append("[\(role)]")
                    lines.append(clip(message["content"]?.stringValue ?? message["content"]?.text ?? ""))
                }
                messagesShown = max(messagesShown, messages.count)
            case "response":
                var head = "--- \(turn)response"
                if let attempt = entry["attempt"]?.intValue { head += " (attempt \(attempt))" }
                if let status = entry["status"]?.intValue { head += " HTTP \(status)" }
                lines.append(head + retry(entry))
                lines.append(contentsOf: describeResponse(entry["body"] ?? .null))
            case "transport-error":
                lines.append("--- \(turn)no response (attempt \(entry["attempt"]?.intValue ?? 0))\(retry(entry))")
                lines.append(entry["error"]?.stringValue ?? "")
            case "error":
                lines.append("--- \(turn)failed")
                lines.append(entry["error"]?.stringValue ?? "")
            case "tool":
                lines.append(
                    "--- \(turn)tool \(entry["name"]?.stringValue ?? "?") (\(entry["toolCallId"]?.stringValue ?? "?"))")
                lines.append("← " + clip(entry["result"]?.text ?? ""))
            case "end":
                lines.append(
                    "--- ended by \(entry["ending"]?.stringValue ?? "?") after \(entry["turns"]?.intValue ?? 0) turn(s), \(entry["requests"]?.intValue ?? 0) request(s)"
                )
                if let summary = entry["summary"]?.stringValue { lines.append("summary: \(summary)") }
                if let error = entry["error"]?.stringValue { lines.append("error: \(error)") }
            case let kind:
                lines.append("--- \(kind)")
                lines.append(clip(entry.text))
            }
        }
        return lines.joined(separator: "\n")
    }

    private static func retry(_ entry: JSONValue) -> String {
        guard let delay = entry["retryAfter"]?.doubleValue else { return "" }
        return ", retried after \(delay) s"
    }

    /// The model's message and tool calls of a chat completion, or the error of an error body.
    private static func describeResponse(_ body: JSONValue) -> [String] {
        if let text = body.stringValue { return [clip(text)] }
        if let error = body["error"] {
            return ["error: " + (error["message"]?.stringValue ?? error.stringValue ?? error.text)]
        }
        guard let message = body["choices"]?.arrayValue?.first?["message"] else { return [clip(body.text)] }
        var lines: [String] = []
        if let content = message["content"]?.stringValue, !content.isEmpty {
            lines.append("assistant: " + clip(content))
        }
        for call in message["tool_calls"]?.arrayValue ?? [] {
            let function = call["function"] ?? .null
            let arguments = function["arguments"]?.stringValue ?? function["arguments"]?.text ?? ""
            lines.append(
                "→ \(function["name"]?.stringValue ?? "?") (\(call["id"]?.stringValue ?? "?")) \(clip(arguments))")
        }
        if let usage = body["usage"], let total = usage["total_tokens"]?.intValue {
            lines.append("(\(total) tokens)")
        }
        return lines.isEmpty ? ["(empty answer)"] : lines
    }

    private static func clip(_ text: String) -> String {
        text.count > textLimit ? String(text.prefix(textLimit)) + " …(\(text.count) characters)" : text
    }
}
