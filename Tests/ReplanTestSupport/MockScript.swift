import Foundation

/// Builds the JSON scripts `mock_openai.py` plays (see its doc string) from Swift values, so a
/// test reads as the conversation it scripts instead of as escaped JSON.
package enum MockScript {
    /// One tool call of a scripted answer. `arguments` is sent as a JSON string (the API's
    /// form) unless it is already a `String`; with `asObject` it is sent as a JSON object,
    /// as some local servers do.
    package struct Call {
        package var id: String
        package var name: String
        package var arguments: Any
        package var asObject = false

        package init(_ id: String, _ name: String, _ arguments: Any, asObject: Bool = false) {
            self.id = id
            self.name = name
            self.arguments = arguments
            self.asObject = asObject
        }

        package var json: [String: Any] {
            let value: Any
            if asObject || arguments is String {
                value = arguments
            } else {
                value = MockScript.jsonText(arguments)
            }
            return ["id": id, "type": "function", "function": ["name": name, "arguments": value]]
        }
    }

    /// A 200 answer with tool calls (and optional text alongside).
    package static func toolCalls(_ calls: [Call], content: String? = nil, prompt: Int = 100, completion: Int = 20)
        -> [String:
        Any]
    {
        answer(
            message: ["role": "assistant", "content": content ?? NSNull(), "tool_calls": calls.map(\.json)],
            finish: "tool_calls", prompt: prompt, completion: completion)
    }

    /// A 200 answer with text only.
    package static func text(_ content: String, prompt: Int = 100, completion: Int = 20) -> [String: Any] {
        answer(
            message: ["role": "assistant", "content": content], finish: "stop", prompt: prompt, completion: completion)
    }

    /// A 200 answer calling `end_conversation` with `summary`.
    package static func end(_ summary: String, id: String = "call_end") -> [String: Any] {
        toolCalls([Call(id, "end_conversation", ["summary": summary])])
    }

    package static func answer(message: [String: Any], finish: String, prompt: Int, completion: Int) -> [String: Any] {
        [
            "status": 200,
            "body": [
                "id": "chatcmpl-mock", "object": "chat.completion", "model": "mock",
                "choices": [["index": 0, "finish_reason": finish, "message": message]],
                "usage": [
                    "prompt_tokens": prompt, "completion_tokens": completion, "total_tokens": prompt + completion,
                    "completion_tokens_details": ["reasoning_tokens": completion / 2],
                ],
            ] as [String: Any],
        ]
    }

    /// An OpenAI error answer.
    package static func error(
        status: Int, code: String?, message: String = "scripted error", type: String = "server_error",
        headers: [String: String] = [:]
    ) -> [String: Any] {
        [
            "status": status, "headers": headers,
            "body": [
                "error": ["message": message, "type": type, "param": NSNull(), "code": code ?? NSNull()]
                    as [String: Any]
            ],
        ]
    }

    /// 429 `insufficient_quota`, exactly as OpenAI sends it.
    package static var quota: [String: Any] {
        error(
            status: 429, code: "insufficient_quota",
            message: "You exceeded your current quota, please check your plan and billing details.",
            type: "insufficient_quota")
    }

    /// 401 `invalid_api_key`, as OpenAI sends it (its message quotes the key it was given).
    package static func invalidKey(message: String = "scripted error") -> [String: Any] {
        error(status: 401, code: "invalid_api_key", message: message, type: "invalid_request_error")
    }

    package static func fault(_ name: String, _ extra: [String: Any] = [:]) -> [String: Any] {
        extra.merging(["fault": name]) { $1 }
    }

    /// A rule: requests whose body contains `match` (any request for nil) get `responses` in order.
    package static func rule(_ match: String?, _ responses: [[String: Any]], repeat: Bool = false) -> [String: Any] {
        ["match": match ?? NSNull(), "responses": responses, "repeat": `repeat`]
    }

    /// The script text of `rules`.
    package static func script(_ rules: [[String: Any]]) -> String {
        jsonText(rules)
    }

    /// Compact JSON text of a Foundation value.
    package static func jsonText(_ value: Any) -> String {
        let data = try! JSONSerialization.data(withJSONObject: value, options: [.sortedKeys, .fragmentsAllowed])
        return String(decoding: data, as: UTF8.self)
    }
}
