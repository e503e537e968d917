import Foundation
import Testing

@testable import Assistant

/// Every recorded response body in the shared fixtures decodes, with its concrete values.
@Suite struct ChatCompletionResponseFixtureTests {
    @Test func everyResponseFixtureDecodes() throws {
        let names = try Fixtures.files().filter { !$0.hasPrefix("error_") && !$0.hasPrefix("request_") }
        #expect(names.count == 15)
        for name in names {
            #expect(throws: Never.self, "\(name)") { _ = try Fixtures.response(name) }
        }
    }

    @Test func plainTextAnswer() throws {
        let response = try Fixtures.response("chat_completion_stop_basic.json")
        #expect(response.id == "chatcmpl-ABfvaueLEMLNYbT8YzpJxsmiQ6HSY")
        #expect(response.model == "gpt-4o-2024-08-06")
        #expect(response.content?.hasPrefix("I'm unable to provide real-time weather updates.") == true)
        #expect(response.refusal == nil)
        #expect(response.toolCalls.isEmpty)
        #expect(!response.callsTools)
        #expect(response.finishReason == "stop")
        #expect(response.usage == TokenUsage(prompt: 14, completion: 37, reasoning: 0, cached: 0, total: 51))
    }

    @Test func singleToolCallWithNullContent() throws {
        let response = try Fixtures.response("tool_calls_single.json")
        #expect(response.content == nil)
        #expect(
            response.toolCalls == [
                ToolCall(
                    id: "call_Y6qJ7ofLgOrBnMD5WbVAeiRV", name: "GetWeatherArgs",
                    arguments: #"{"city":"Edinburgh","country":"UK","units":"c"}"#)
            ])
        #expect(response.finishReason == "tool_calls")
        #expect(response.usage.total == 100)
    }

    @Test func parallelCallsToTwoFunctions() throws {
        let response = try Fixtures.response("tool_calls_parallel_two_functions.json")
        #expect(
            response.toolCalls == [
                ToolCall(
                    id: "call_fdNz3vOBKYgOIpMdWotB9MjY", name: "GetWeatherArgs",
                    arguments: #"{"city": "Edinburgh", "country": "GB", "units": "c"}"#),
                ToolCall(
                    id: "call_h1DWI1POMJLb0KwIyQHWXD4p", name: "get_stock_price",
                    arguments: #"{"ticker": "AAPL", "exchange": "NASDAQ"}"#),
            ])
        #expect(response.usage == TokenUsage(prompt: 149, completion: 60, total: 209))
    }

    @Test func parallelCallsToTheSameFunction() throws {
        let response = try Fixtures.response("tool_calls_parallel_same_function.json")
        #expect(response.toolCalls.map(\.id) == ["call_SKQEHo7QVlJRoCtEzcrYZM9C", "call_CkjljlLr7IebPc4hnvetfiZ8"])
        #expect(response.toolCalls.map(\.name) == ["get_weather_for_city", "get_weather_for_city"])
        #expect(response.toolCalls.map(\.arguments) == [#"{"city_name": "Santiago"}"#, #"{"city_name": "Karachi"}"#])
        #expect(response.usage == TokenUsage(prompt: 81, completion: 52, reasoning: 0, cached: 0, total: 133))
    }

    @Test func toolCallsDecideTheBranchEvenWithFinishReasonStop() throws {
        let response = try Fixtures.response("tool_choice_named_finish_reason_stop.json")
        #expect(response.finishReason == "stop")
        #expect(response.callsTools)
        #expect(
            response.toolCalls == [
                ToolCall(
                    id: "call_367XCv5N6u1Sp2TWLlP9xoRU", name: "get_number_for_word", arguments: #"{"word":"banana"}"#)
            ])
        #expect(response.assistantMessage == .assistant(content: nil, toolCalls: response.toolCalls))
    }

    @Test func textOnlyAnswerWhenToolsAreDeclined() throws {
        let response = try Fixtures.response("tool_choice_none_text_only.json")
        #expect(response.content == #"I will find the number assigned to the word "banana" for you."#)
        #expect(!response.callsTools)
        #expect(response.usage == TokenUsage(prompt: 59, completion: 15, total: 74))
    }

    @Test func truncatedByLength() throws {
        let response = try Fixtures.response("finish_reason_length.json")
        #expect(response.content == #"{""#)
        #expect(response.finishReason == "length")
        #expect(response.usage == TokenUsage(prompt: 79, completion: 1, total: 80))
    }

    @Test func refusalWithNullContent() throws {
        let response = try Fixtures.response("refusal.json")
        #expect(response.content == nil)
        #expect(response.refusal == "I'm very sorry, but I can't assist with that.")
        #expect(!response.callsTools)
        #expect(response.finishReason == "stop")
    }

    @Test func firstOfSeveralChoicesIsUsed() throws {
        let response = try Fixtures.response("multiple_choices_n3.json")
        #expect(response.content == #"{"city":"San Francisco","temperature":64,"units":"f"}"#)
        #expect(response.usage.total == 123)
    }

    @Test func legacyFunctionCallIsToleratedButIsNoToolCall() throws {
        let response = try Fixtures.response("deprecated_function_call_response.json")
        #expect(response.legacyFunctionCall?.name == "get_favorite_color_for_month")
        #expect(response.legacyFunctionCall?.arguments == #"{"month_name":"February"}"#)
        #expect(response.toolCalls.isEmpty)
        #expect(!response.callsTools)
        #expect(response.finishReason == "function_call")
    }

    @Test func reasoningTokensAreCounted() throws {
        let response = try Fixtures.response("usage_reasoning_tokens_o3mini.json")
        #expect(response.model == "o3-mini-2025-01-31")
        #expect(response.content?.hasPrefix("A review of popular media from the 1970s and 1980s") == true)
        #expect(response.usage == TokenUsage(prompt: 34, completion: 863, reasoning: 128, cached: 0, total: 897))
    }

    @Test func gpt5AnswerWithoutLogprobsKey() throws {
        let response = try Fixtures.response("gpt5_response_no_logprobs_key.json")
        #expect(response.id == "chatcmpl-C3IW4xlMbxWk92VDDKNyaEJjJrTmh")
        #expect(response.content == "Paris.")
        #expect(response.usage == TokenUsage(prompt: 13, completion: 11, total: 24))
    }

    @Test func unknownUsageDetailsAreIgnored() throws {
        let response = try Fixtures.response("gpt5_6_response_cache_write_tokens.json")
        #expect(response.model == "gpt-5.6-luna")
        #expect(response.content == "4")
        #expect(response.usage == TokenUsage(prompt: 13, completion: 4, total: 17))
    }

    @Test func documentationExamples() throws {
        let toolCall = try Fixtures.response("openapi_example_tool_calls.json")
        #expect(toolCall.refusal == nil)
        #expect(
            toolCall.toolCalls == [
                ToolCall(
                    id: "call_abc123", name: "get_current_weather", arguments: "{\n\"location\": \"Boston, MA\"\n}")
            ])
        let text = try Fixtures.response("openapi_example_default.json")
        #expect(text.content == "Hello! How can I assist you today?")
        #expect(text.usage == TokenUsage(prompt: 19, completion: 10, total: 29))
    }
}

/// Lenient decoding of what other OpenAI-compatible servers send.
@Suite struct ChatCompletionResponseLeniencyTests {
    private func decode(_ json: String) throws(ModelCallError) -> ChatCompletionResponse {
        try ChatCompletionResponse.decode(Data(json.utf8))
    }

    private func failure(_ json: String) -> String {
        do {
            _ = try decode(json)
            return "decoded"
        } catch {
            guard case .invalidResponse(let detail) = error else { return "\(error)" }
            return detail
        }
    }

    @Test func cachedTokensAndEmptyContent() throws {
        let response = try decode(
            """
            {"choices": [{"message": {"role": "assistant", "content": ""}}],
             "usage": {"prompt_tokens": 2006, "completion_tokens": 300,
                       "prompt_tokens_details": {"cached_tokens": 1920},
                       "completion_tokens_details": {"reasoning_tokens": 256}}}
            """)
        #expect(response.content == "")
        #expect(response.usage == TokenUsage(prompt: 2006, completion: 300, reasoning: 256, cached: 1920, total: 2306))
    }

    @Test func argumentsGivenAsAnObjectAreReserialised() throws {
        let response = try decode(
            """
            {"choices": [{"message": {"tool_calls": [
              {"id": "c1", "type": "function", "function": {"name": "saveTask", "arguments": {"b": 1, "a": {"c": [true, null, 2.5]}}}}]}}]}
            """)
        #expect(
            response.toolCalls == [
                ToolCall(id: "c1", name: "saveTask", arguments: #"{"a":{"c":[true,null,2.5]},"b":1}"#)
            ])
    }

    @Test func missingIdsAndArgumentsAreFilledIn() throws {
        let response = try decode(
            """
            {"choices": [{"message": {"content": null, "tool_calls": [
              {"function": {"name": "end_conversation"}},
              {"id": "", "function": {"name": "deleteTask", "arguments": null}}]}}]}
            """)
        #expect(
            response.toolCalls == [
                ToolCall(id: "call_0", name: "end_conversation", arguments: "{}"),
                ToolCall(id: "call_1", name: "deleteTask", arguments: "{}"),
            ])
    }

    @Test func contentPartsAreJoined() throws {
        let response = try decode(
            """
            {"choices": [{"message": {"content": [{"type": "text", "text": "Hello, "}, {"type": "text", "text": "there."}]}}]}
            """)
        #expect(response.content == "Hello, there.")
    }

    @Test func unknownKeysAndMissingOptionalsAreIgnored() throws {
        let response = try decode(
            """
            {"vendor_extension": {"x": 1}, "choices": [{"message": {"content": "ok", "audio": null,
              "reasoning_content": "thinking…"}, "extra": true}]}
            """)
        #expect(response.content == "ok")
        #expect(response.id == nil)
        #expect(response.finishReason == nil)
        #expect(response.usage == .zero)
    }

    @Test func missingChoicesIsAClearError() {
        #expect(failure(#"{"id": "x", "object": "chat.completion"}"#) == "'choices' is missing")
    }

    @Test func emptyChoicesIsAClearError() {
        #expect(failure(#"{"choices": []}"#) == "the response has an empty list of choices at 'choices'")
    }

    @Test func choiceWithoutMessageIsAClearError() {
        #expect(failure(#"{"choices": [{"finish_reason": "stop"}]}"#) == "'choices[0].message' is missing")
    }

    @Test func bodyThatIsNotJSONIsAClearError() {
        #expect(failure("<html>Bad gateway</html>") == "the body is not JSON: <html>Bad gateway</html>")
    }
}
