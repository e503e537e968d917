import Foundation
import ReplanTestSupport
import Testing

@testable import Assistant

/// Encoded requests are valid `CreateChatCompletionRequest` bodies according to the OpenAPI
/// schema in the fixtures, checked by `Tests/Support/validate_chat_request.py`
/// (python3 with pyyaml and jsonschema).
@Suite struct RequestSchemaTests {
    /// Per file: "OK" or the validator's reasons.
    private func validate(_ bodies: [String: Data]) throws -> [String: String] {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("schema-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        var paths: [String: String] = [:]
        for (name, body) in bodies {
            let file = directory.appendingPathComponent("\(name).json")
            try body.write(to: file)
            paths[file.path] = name
        }

        let validation = try Outcome.of(
            "/usr/bin/env",
            ["python3", TestFiles.support("validate_chat_request.py"), Fixtures.schema.path] + paths.keys.sorted())
        guard validation.code <= 1 else {
            throw Fixtures.FixtureError(description: "validator failed (\(validation.code)): \(validation.stderr)")
        }
        let text = validation.stdout

        var verdicts: [String: String] = [:]
        for line in text.split(separator: "\n") {
            if line.hasPrefix("OK ") {
                verdicts[paths[String(line.dropFirst(3))] ?? "?"] = "OK"
            } else if line.hasPrefix("INVALID "), let colon = line.range(of: ": ") {
                let path = String(line[line.index(line.startIndex, offsetBy: 8)..<colon.lowerBound])
                verdicts[paths[path] ?? "?"] = String(line[colon.upperBound...])
            }
        }
        return verdicts
    }

    @Test func encodedRequestsAreSchemaValid() throws {
        let configuration = ModelConfiguration(apiKey: Secret("sk-unused"))
        let full = ChatCompletionRequest(
            configuration: configuration,
            messages: [.system("You are a tutor.")] + parallelRoundTripConversation
                + [.assistant(content: "Santiago is rainy.", toolCalls: []), .assistant(content: nil, toolCalls: [])],
            tools: [weatherTool, endConversationTool]
        )
        let minimal = ChatCompletionRequest(model: "llama3", messages: [.user("hi")], reasoningEffort: "")
        let verdicts = try validate(["full": full.encoded(), "minimal": minimal.encoded()])
        #expect(verdicts == ["full": "OK", "minimal": "OK"])
    }

    /// What the model loop sends: the four tools of docs/model.md §12 and a tool exchange.
    @Test func assistantRequestsAreSchemaValid() throws {
        let call = ToolCall(id: "call_1", name: AssistantTools.saveTask, arguments: #"{"tasks":[]}"#)
        let request = ChatCompletionRequest(
            configuration: ModelConfiguration(apiKey: Secret("sk-unused")),
            messages: [
                .system("rules"), .user("plan"), .assistant(content: nil, toolCalls: [call]),
                .tool(toolCallId: "call_1", content: "[]"),
            ],
            tools: AssistantTools.all)
        #expect(try validate(["assistant": request.encoded()]) == ["assistant": "OK"])
    }

    /// The golden requests were accepted by the real API; if the validator refused them, it
    /// would be the validator that is wrong.
    @Test func goldenRequestsAreSchemaValid() throws {
        var bodies: [String: Data] = [:]
        for name in try Fixtures.files(withPrefix: "request_") {
            bodies[name] = try Fixtures.data(name)
        }
        #expect(bodies.count == 4)
        let verdicts = try validate(bodies)
        #expect(verdicts == bodies.mapValues { _ in "OK" })
    }

    @Test func validatorRejectsWhatTheAPIWould() throws {
        let verdicts = try validate([
            "empty-messages": Data(#"{"model":"m","messages":[]}"#.utf8),
            "misspelt-key": Data(
                #"{"model":"m","messages":[{"role":"user","content":"x"}],"max_completion_token":5}"#.utf8),
            "tool-without-id": Data(#"{"model":"m","messages":[{"role":"tool","content":"x"}]}"#.utf8),
        ])
        #expect(verdicts["empty-messages"]?.contains("should be non-empty") == true)
        #expect(verdicts["misspelt-key"]?.contains("unknown top-level key 'max_completion_token'") == true)
        #expect(verdicts["tool-without-id"]?.hasPrefix("messages/0") == true)
    }
}
