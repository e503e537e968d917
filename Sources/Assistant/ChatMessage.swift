import JSON

/// One message of the conversation sent to the model.
///
/// Encoded as the Chat Completions API expects: an assistant message that carries tool
/// calls omits `content` when it has none (as the API itself does, see the fixture
/// `request_tool_results_roundtrip_parallel.json`); one with neither text nor tool calls
/// sends `"content": ""`, since the API requires one of the two.
package enum ChatMessage: Sendable, Equatable {
    case system(String)
    case user(String)
    case assistant(content: String?, toolCalls: [ToolCall])
    /// The result of the tool call `toolCallId`.
    case tool(toolCallId: String, content: String)
}

extension ChatMessage: Codable {
    private enum CodingKeys: String, CodingKey {
        case role, content
        case toolCalls = "tool_calls"
        case toolCallId = "tool_call_id"
    }

    package init(from decoder: any Decoder) throws {
        let message = try decoder.container(keyedBy: CodingKeys.self)
        let role = try message.decode(String.self, forKey: .role)
        let content = try message.decodeIfPresent(JSONValue.self, forKey: .content)?.messageText
        switch role {
        case "system":
            self = .system(content ?? "")
        case "user":
            self = .user(content ?? "")
        case "assistant":
            let toolCalls = try message.decodeIfPresent([ToolCall].self, forKey: .toolCalls) ?? []
            self = .assistant(content: content, toolCalls: toolCalls)
        case "tool":
            self = .tool(toolCallId: try message.decode(String.self, forKey: .toolCallId), content: content ?? "")
        default:
            throw DecodingError.dataCorruptedError(
                forKey: .role, in: message,
                debugDescription: "unsupported message role '\(role)' (expected system, user, assistant or tool)"
            )
        }
    }

    package func encode(to encoder: any Encoder) throws {
        var message = encoder.container(keyedBy: CodingKeys.self)
        switch self {
        case .system(let content):
            try message.encode("system", forKey: .role)
            try message.encode(content, forKey: .content)
        case .user(let content):
            try message.encode("user", forKey: .role)
            try message.encode(content, forKey: .content)
        case .assistant(let content, let toolCalls):
            try message.encode("assistant", forKey: .role)
            if let content {
                try message.encode(content, forKey: .content)
            } else if toolCalls.isEmpty {
                try message.encode("", forKey: .content)
            }
            if !toolCalls.isEmpty {
                try message.encode(toolCalls, forKey: .toolCalls)
            }
        case .tool(let toolCallId, let content):
            try message.encode("tool", forKey: .role)
            try message.encode(toolCallId, forKey: .toolCallId)
            try message.encode(content, forKey: .content)
        }
    }
}
