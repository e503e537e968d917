import JSON

extension JSONValue {
    /// The text of a message `content`: a plain string, or the `text` parts of a content-part
    /// array (some servers answer that way) joined together; nil for null or anything else.
    var messageText: String? {
        switch self {
        case .string(let text):
            return text
        case .array(let parts):
            let texts = parts.compactMap { $0["text"]?.stringValue }
            return texts.isEmpty ? nil : texts.joined()
        default:
            return nil
        }
    }
}
