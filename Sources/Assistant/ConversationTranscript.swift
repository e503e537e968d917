import Foundation
import JSON
import Planning

/// The record of one user's model conversation, stored with the user run and printed by
/// `replan show --transcript`: a JSON array of entries in the order things happened, each with
/// a `kind`:
///
/// - `request` `{turn, body}`: the request body exactly as sent (as JSON). Never the key,
///   which travels only in the Authorization header.
/// - `response` `{turn, attempt, status, body, retryAfter?}`: each HTTP answer, whatever its
///   status (bodies the client already redacted of any echoed key).
/// - `transport-error` `{turn, attempt, error, retryAfter?}`: an attempt with no answer.
/// - `error` `{turn, error}`: why the turn produced no usable answer, after any retries.
/// - `tool` `{turn, toolCallId, name, arguments, result}`: each tool call and its result.
/// - `dropped` `{turn, count}`: tool calls of an answer past `ToolCallBudget.maxCalls`,
///   neither run nor kept.
/// - `end` `{ending, turns, requests, summary?, error?}`: how the conversation ended.
package struct ConversationTranscript: Sendable {
    package private(set) var entries: [JSONValue] = []

    /// Bodies larger than this are kept as truncated text: a transcript is for reading, and a
    /// server gone wrong must not fill the database.
    static let bodyLimit = 256 * 1024

    package init() {}

    package var json: JSONValue { .array(entries) }

    mutating func record(_ exchange: ChatExchange, turn: Int) {
        entries.append(["kind": "request", "turn": .int(turn), "body": Self.body(exchange.requestBody)])
        for (index, attempt) in exchange.attempts.enumerated() {
            var entry: [String: JSONValue] = ["turn": .int(turn), "attempt": .int(index + 1)]
            switch attempt.outcome {
            case .response(let status, let body):
                entry["kind"] = "response"
                entry["status"] = .int(status)
                entry["body"] = Self.body(body)
            case .failure(let error):
                entry["kind"] = "transport-error"
                entry["error"] = .string(error.description)
            }
            if let delay = attempt.retryDelay { entry["retryAfter"] = .number(delay) }
            entries.append(.object(entry))
        }
        if case .failure(let error) = exchange.result {
            entries.append(["kind": "error", "turn": .int(turn), "error": .string(error.description)])
        }
    }

    mutating func recordTool(_ call: ToolCall, result: JSONValue, turn: Int) {
        entries.append([
            "kind": "tool", "turn": .int(turn), "toolCallId": .string(call.id), "name": .string(call.name),
            "arguments": .string(call.arguments), "result": result,
        ])
    }

    mutating func recordDropped(_ count: Int, turn: Int) {
        entries.append(["kind": "dropped", "turn": .int(turn), "count": .int(count)])
    }

    mutating func recordEnd(
        _ ending: ConversationOutcome.Ending, turns: Int, requests: Int, summary: String?, error: String?
    ) {
        var entry: [String: JSONValue] = [
            "kind": "end", "ending": .string(ending.rawValue), "turns": .int(turns),
            "requests": .int(requests),
        ]
        if let summary { entry["summary"] = .string(summary) }
        if let error { entry["error"] = .string(error) }
        entries.append(.object(entry))
    }

    /// A body as JSON when it is JSON, else as (possibly truncated) text.
    static func body(_ data: Data) -> JSONValue {
        if data.count <= bodyLimit, let value = try? JSONValue(parsing: data) { return value }
        let text = String(decoding: data.prefix(bodyLimit), as: UTF8.self)
        return .string(data.count > bodyLimit ? text + " …(\(data.count) bytes in all)" : text)
    }
}
