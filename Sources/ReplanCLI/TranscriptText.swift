import Planning

/// A stored model transcript as readable text for `show --transcript`.
enum TranscriptText {
    static func render(_ transcript: JSONValue) -> String {
        guard let messages = transcript.arrayValue, !messages.isEmpty else { return "  (empty)" }
        var lines: [String] = []
        for m in messages {
            let kind = m["kind"]?.stringValue ?? m["role"]?.stringValue ?? "?"
            var head = "--- \(kind)"
            if let n = m["attempt"]?.intValue { head += " (attempt \(n))" }
            if let s = m["status"]?.intValue { head += " HTTP \(s)" }
            lines.append(head)
            if let text = m["content"]?.stringValue ?? m["body"]?.stringValue ?? m["error"]?.stringValue {
                lines.append(text.count > 4000 ? String(text.prefix(4000)) + " …(\(text.count) characters)" : text)
            } else if let body = m["body"] {
                let text = body.prettyText
                lines.append(text.count > 4000 ? String(text.prefix(4000)) + " …" : text)
            }
        }
        return lines.joined(separator: "\n")
    }
}
