import Foundation
import JSON
import Testing

@testable import Assistant

/// The conversation of `request_tool_results_roundtrip_parallel.json`, built from our types.
let parallelRoundTripConversation: [ChatMessage] = [
    .user("Tell me what's the current weather in the following cities: Santiago and Karachi."),
    .assistant(
        content: nil,
        toolCalls: [
            ToolCall(
                id: "call_SKQEHo7QVlJRoCtEzcrYZM9C", name: "get_weather_for_city",
                arguments: #"{"city_name": "Santiago"}"#),
            ToolCall(
                id: "call_CkjljlLr7IebPc4hnvetfiZ8", name: "get_weather_for_city",
                arguments: #"{"city_name": "Karachi"}"#),
        ]),
    .tool(toolCallId: "call_SKQEHo7QVlJRoCtEzcrYZM9C", content: "rainy"),
    .tool(toolCallId: "call_CkjljlLr7IebPc4hnvetfiZ8", content: "sunny"),
]

let weatherTool = ToolDefinition(
    name: "get_weather_for_city",
    description: "gets the current weather for a given city",
    parameters: [
        "type": "object",
        "properties": [
            "city_name": [
                "type": "string",
                "description": "the name of a city, e.g. Johannesburg or Ho Chi Minh City.",
            ]
        ],
        "required": ["city_name"],
    ],
    strict: false
)

/// A tool in the shape docs/model.md §12 asks for: strict, no additional properties.
let endConversationTool = ToolDefinition(
    name: "end_conversation",
    description: "Ends the conversation once every change is made.",
    parameters: [
        "type": "object",
        "properties": ["summary": ["type": ["string", "null"]]],
        "required": ["summary"],
        "additionalProperties": false,
    ]
)

@Suite struct ChatCompletionRequestTests {
    private func encode(_ request: ChatCompletionRequest) throws -> JSONValue {
        try JSONValue(parsing: request.encoded())
    }

    @Test func messagesMatchTheGoldenParallelToolResultsRequest() throws {
        let golden = try Fixtures.json("request_tool_results_roundtrip_parallel.json")
        let request = ChatCompletionRequest(
            model: "gpt-4o-mini", messages: parallelRoundTripConversation, tools: [weatherTool])
        let encoded = try encode(request)
        #expect(encoded["messages"] == golden["messages"])
        #expect(encoded["model"] == golden["model"])
    }

    @Test func toolDefinitionMatchesTheGoldenShapePlusStrict() throws {
        let golden = try Fixtures.json("request_tool_results_roundtrip_parallel.json")
        guard case .array(let goldenTools)? = golden["tools"], var tool = goldenTools.first?.objectValue,
            var function = tool["function"]?.objectValue
        else {
            Issue.record("fixture has no tools")
            return
        }
        function["strict"] = false
        tool["function"] = .object(function)
        let encoded = try encode(ChatCompletionRequest(model: "m", messages: [.user("hi")], tools: [weatherTool]))
        #expect(encoded["tools"] == .array([.object(tool)]))
    }

    @Test func requestCarriesExactlyTheSpecifiedFields() throws {
        let configuration = ModelConfiguration(apiKey: Secret("sk-unused"))
        let request = ChatCompletionRequest(
            configuration: configuration, messages: [.system("rules"), .user("plan")], tools: [endConversationTool])
        let encoded = try encode(request)
        #expect(
            encoded.objectValue.map { Set($0.keys) } == [
                "model", "messages", "tools", "tool_choice", "parallel_tool_calls", "reasoning_effort",
                "max_completion_tokens", "stream",
            ])
        #expect(encoded["model"] == "gpt-5.1")
        #expect(encoded["tool_choice"] == "auto")
        #expect(encoded["parallel_tool_calls"] == false)
        #expect(encoded["reasoning_effort"] == "low")
        #expect(encoded["max_completion_tokens"] == 8000)
        #expect(encoded["stream"] == false)
    }

    @Test func promptCacheKeyAndServiceTierArePassedThroughWhenSet() throws {
        var configuration = ModelConfiguration(apiKey: Secret("k"))
        configuration.serviceTier = "flex"
        let encoded = try encode(
            ChatCompletionRequest(
                configuration: configuration, messages: [.user("x")],
                tools: [endConversationTool], promptCacheKey: "replan-abc"))
        #expect(encoded["prompt_cache_key"] == "replan-abc")
        #expect(encoded["service_tier"] == "flex")
    }

    @Test func neverTemperatureNorMaxTokens() throws {
        let body = String(
            decoding: try ChatCompletionRequest(
                configuration: ModelConfiguration(apiKey: Secret("k")), messages: [.user("x")],
                tools: [endConversationTool]
            ).encoded(), as: UTF8.self)
        #expect(!body.contains("\"temperature\""))
        #expect(!body.contains("\"max_tokens\""))
    }

    @Test func emptyOrNilReasoningEffortIsOmitted() throws {
        for effort in ["", nil] as [String?] {
            let encoded = try encode(ChatCompletionRequest(model: "m", messages: [.user("x")], reasoningEffort: effort))
            #expect(encoded["reasoning_effort"] == nil)
        }
    }

    @Test func withoutToolsNoToolFieldsAreSent() throws {
        let encoded = try encode(ChatCompletionRequest(model: "m", messages: [.user("x")]))
        #expect(encoded["tools"] == nil)
        #expect(encoded["tool_choice"] == nil)
        #expect(encoded["parallel_tool_calls"] == nil)
        #expect(encoded["max_completion_tokens"] == nil)
    }

    @Test func reasoningRequestMatchesTheGoldenOneExceptStream() throws {
        let golden = try Fixtures.json("request_reasoning_effort_max_completion_tokens.json")
        guard case .array(let messages)? = golden["messages"], let text = messages.first?["content"]?.stringValue else {
            Issue.record("fixture has no user message")
            return
        }
        let request = ChatCompletionRequest(
            model: "o3-mini", messages: [.user(text)], reasoningEffort: "low", maxCompletionTokens: 2148)
        var expected = try #require(golden.objectValue)
        expected["stream"] = false
        #expect(try encode(request) == .object(expected))
    }

    @Test func outputIsCompactWithSortedKeysAndStable() throws {
        let request = ChatCompletionRequest(
            model: "m", messages: parallelRoundTripConversation, tools: [weatherTool], reasoningEffort: "low",
            maxCompletionTokens: 10)
        let first = try request.encoded()
        #expect(try request.encoded() == first)
        let text = String(decoding: first, as: UTF8.self)
        #expect(text.hasPrefix(#"{"max_completion_tokens":10,"messages":[{"content":"Tell me"#))
        #expect(
            text.contains(
                #""parameters":{"properties":{"city_name":{"description":"the name of a city, e.g. Johannesburg or Ho Chi Minh City.","type":"string"}},"required":["city_name"],"type":"object"}"#
            ))
        #expect(
            text.hasSuffix(
                #""reasoning_effort":"low","stream":false,"tool_choice":"auto","tools":[{"function":{"description":"gets the current weather for a given city","name":"get_weather_for_city","parameters":{"properties":{"city_name":{"description":"the name of a city, e.g. Johannesburg or Ho Chi Minh City.","type":"string"}},"required":["city_name"],"type":"object"},"strict":false},"type":"function"}]}"#
            ))
    }

    @Test func assistantMessageEncodings() throws {
        func json(_ message: ChatMessage) throws -> JSONValue {
            try JSONValue(parsing: JSONCoding.encode(message))
        }
        let call = ToolCall(id: "c1", name: "deleteTask", arguments: #"{"taskIds":["t1"]}"#)
        #expect(try json(.assistant(content: nil, toolCalls: [call]))["content"] == nil)
        #expect(try json(.assistant(content: nil, toolCalls: [])) == ["role": "assistant", "content": ""])
        #expect(
            try json(.assistant(content: "Done.", toolCalls: [call])) == [
                "role": "assistant", "content": "Done.",
                "tool_calls": [
                    [
                        "id": "c1", "type": "function",
                        "function": ["name": "deleteTask", "arguments": #"{"taskIds":["t1"]}"#],
                    ]
                ],
            ])
        #expect(try json(.system("s")) == ["role": "system", "content": "s"])
        #expect(
            try json(.tool(toolCallId: "c1", content: #"[{"ok":true}]"#)) == [
                "role": "tool", "tool_call_id": "c1", "content": #"[{"ok":true}]"#,
            ])
    }

    @Test func messagesRoundTripThroughTheirEncoding() throws {
        let messages: [ChatMessage] =
            parallelRoundTripConversation + [
                .system("系統提示"), .assistant(content: "Fertig.", toolCalls: []),
            ]
        let data = try JSONCoding.encode(messages)
        #expect(try JSONDecoder().decode([ChatMessage].self, from: data) == messages)
    }

    @Test func nonFiniteNumberIsAnEncodingError() {
        let broken = ToolDefinition(name: "t", description: "d", parameters: ["maximum": .number(.infinity)])
        #expect(throws: ModelCallError.self) {
            try ChatCompletionRequest(model: "m", messages: [.user("x")], tools: [broken]).encoded()
        }
    }
}
