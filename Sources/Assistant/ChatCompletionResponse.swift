import Foundation
import JSON

/// The model's answer: the first choice of a Chat Completions response, plus usage.
///
/// Decoding is lenient, because OpenAI-compatible servers differ: unknown keys are
/// ignored; `content` may be absent, null, "" or an array of text parts; `refusal` and
/// `logprobs` may be absent; arguments may be an object; a missing tool-call id gets a
/// positional one. Only a body without a first choice and its message is refused.
///
/// `toolCalls` decides what happens next, never `finish_reason`: a server forced to call a
/// tool answers with tool calls and `finish_reason: "stop"` (fixture
/// `tool_choice_named_finish_reason_stop.json`).
package struct ChatCompletionResponse: Sendable, Equatable {
    package var id: String?
    package var model: String?
    package var content: String?
    package var refusal: String?
    package var toolCalls: [ToolCall]
    /// A pre-tools `function_call` from an old server: tolerated and reported, but not a tool
    /// call (it has no id to answer), so it does not make `callsTools` true.
    package var legacyFunctionCall: ToolCall?
    package var finishReason: String?
    /// Zero when the server reported none.
    package var usage: TokenUsage

    package init(
        id: String? = nil,
        model: String? = nil,
        content: String? = nil,
        refusal: String? = nil,
        toolCalls: [ToolCall] = [],
        legacyFunctionCall: ToolCall? = nil,
        finishReason: String? = nil,
        usage: TokenUsage = .zero
    ) {
        self.id = id
        self.model = model
        self.content = content
        self.refusal = refusal
        self.toolCalls = toolCalls
        self.legacyFunctionCall = legacyFunctionCall
        self.finishReason = finishReason
        self.usage = usage
    }

    /// Whether the model wants tools run (and then to be asked again).
    package var callsTools: Bool { !toolCalls.isEmpty }

    /// The answer as the assistant message that continues the conversation.
    package var assistantMessage: ChatMessage {
        .assistant(content: content, toolCalls: toolCalls)
    }

    /// Decodes a response body, explaining in plain words what is wrong with a bad one.
    package static func decode(_ data: Data) throws(ModelCallError) -> ChatCompletionResponse {
        do {
            return try JSONCoding.decode(ChatCompletionResponse.self, from: data)
        } catch let error as DecodingError {
            throw .invalidResponse(explain(error, body: data))
        } catch {
            throw .invalidResponse(String(describing: error))
        }
    }

    private static func explain(_ error: DecodingError, body: Data) -> String {
        func path(_ codingPath: [any CodingKey]) -> String {
            let text = codingPath.map { key in key.intValue.map { "[\($0)]" } ?? ".\(key.stringValue)" }.joined()
            return text.hasPrefix(".") ? String(text.dropFirst()) : text
        }
        switch error {
        case .keyNotFound(let key, let context):
            return "'\(path(context.codingPath + [key]))' is missing"
        case .typeMismatch(let type, let context):
            return "'\(path(context.codingPath))' is not of type \(type)"
        case .valueNotFound(_, let context):
            return "'\(path(context.codingPath))' is null"
        case .dataCorrupted(let context) where context.codingPath.isEmpty:
            let excerpt = String(decoding: body.prefix(200), as: UTF8.self)
            return "the body is not JSON: \(excerpt)"
        case .dataCorrupted(let context):
            return "\(context.debugDescription) at '\(path(context.codingPath))'"
        @unknown default:
            return String(describing: error)
        }
    }
}

extension ChatCompletionResponse: Decodable {
    private enum CodingKeys: String, CodingKey {
        case id, model, choices, usage
    }

    private enum ChoiceKeys: String, CodingKey {
        case message
        case finishReason = "finish_reason"
    }

    private enum MessageKeys: String, CodingKey {
        case content, refusal
        case toolCalls = "tool_calls"
        case functionCall = "function_call"
    }

    private enum FunctionCallKeys: String, CodingKey {
        case name, arguments
    }

    package init(from decoder: any Decoder) throws {
        let body = try decoder.container(keyedBy: CodingKeys.self)
        id = try? body.decodeIfPresent(String.self, forKey: .id)
        model = try? body.decodeIfPresent(String.self, forKey: .model)
        usage = (try? body.decodeIfPresent(TokenUsage.self, forKey: .usage)) ?? .zero

        guard body.contains(.choices) else {
            throw DecodingError.keyNotFound(
                CodingKeys.choices, .init(codingPath: [], debugDescription: "the response has no choices"))
        }
        var choices = try body.nestedUnkeyedContainer(forKey: .choices)
        guard !choices.isAtEnd else {
            throw DecodingError.dataCorrupted(
                .init(codingPath: [CodingKeys.choices], debugDescription: "the response has an empty list of choices"))
        }
        let choice = try choices.nestedContainer(keyedBy: ChoiceKeys.self)
        finishReason = try? choice.decodeIfPresent(String.self, forKey: .finishReason)

        let message = try choice.nestedContainer(keyedBy: MessageKeys.self, forKey: .message)
        content = try message.decodeIfPresent(JSONValue.self, forKey: .content)?.messageText
        refusal = try? message.decodeIfPresent(String.self, forKey: .refusal)
        let calls = try message.decodeIfPresent([ToolCall].self, forKey: .toolCalls) ?? []
        toolCalls = calls.enumerated().map { index, call in
            var call = call
            if call.id.isEmpty { call.id = "call_\(index)" }
            return call
        }
        if message.contains(.functionCall), try !message.decodeNil(forKey: .functionCall) {
            let function = try message.nestedContainer(keyedBy: FunctionCallKeys.self, forKey: .functionCall)
            legacyFunctionCall = ToolCall(
                id: "",
                name: try function.decode(String.self, forKey: .name),
                arguments: try ToolCall.argumentsText(function.decodeIfPresent(JSONValue.self, forKey: .arguments))
            )
        } else {
            legacyFunctionCall = nil
        }
    }
}
