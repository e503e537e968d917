import Foundation
import JSON
import Testing

@testable import Assistant

/// The full recordings: every response body decodes (as a completion or an error body)
/// and every request conversation round-trips through `ChatMessage`.
@Suite struct RecordingTests {
    /// What each entry's response must decode to, in recording order.
    enum Expected {
        case toolCalls([String: String], id: String) // name → arguments
        case text(prefix: String, id: String)
        case refusal(String)
        case legacyFunctionCall(String)
        case error(status: Int, code: String)
    }

    static let expectations: [String: [Expected]] = [
        "AuthFailure": [.error(status: 401, code: "invalid_api_key")],
        "ConsecutiveToolCalls": [
            .toolCalls(
                ["get_weather_for_city": #"{"city_name":"Osaka"}"#], id: "chatcmpl-CGSWnIzTQDWDruoo2X3qgJkQW8OFk"),
            .toolCalls(["get_mood_for_weather": #"{"weather":"rainy"}"#], id: "chatcmpl-CGSWowKC4SKnr67bsHnX0vJMZt3vW"),
            .text(prefix: "Given that the weather in Osaka is rainy", id: "chatcmpl-CGSWoeWd78hhKAXyd18WDeeEUsrnD"),
        ],
        "ConstraintsWork": [
            .toolCalls(["get_number_for_word": #"{"word":"banana"}"#], id: "chatcmpl-CGSWpgv2liNopYOnACne3iO9W1FLr"),
            .text(prefix: "I will find the number", id: "chatcmpl-CGSWqfvTzmk7kuqZJm4YT35I8FD1C"),
            .toolCalls(["get_number_for_word": #"{"word":"banana"}"#], id: "chatcmpl-CGSWrnMdaguHM4Jw5sIWF8MDAFiHN"),
            .toolCalls(["get_number_for_word": #"{"word":"banana"}"#], id: "chatcmpl-CGSWrS3wZO7GCox0tA46Aa8KfNDwa"),
        ],
        "FunctionsWork": [
            .legacyFunctionCall("get_favorite_color_for_month"),
            .text(
                prefix: "Your favorite color in February is chartreuse.", id: "chatcmpl-CGSWuFeeLzsvjOL3IDRsHEPebNYmW"),
        ],
        "NoParameterToolWorks": [
            .toolCalls(["get_favorite_color": "{}"], id: "chatcmpl-CGSWvSfZspntgvW7krR1fRBK6O12W"),
            .text(prefix: "Your favorite color is green.", id: "chatcmpl-CGSWwOmVC3QDFsDq1h7np3pB9cVur"),
        ],
        "ParallelToolCalls": [
            .toolCalls(
                ["get_weather_for_city": #"{"city_name": "Santiago"}"#], id: "chatcmpl-CGSWwwIbC20wpBWz1VQVhj5SqUeQD"),
            .text(prefix: "The current weather is as follows:", id: "chatcmpl-CGSWzKKuB0tOwJH5DSxx02kDDPh0C"),
        ],
        "ReasoningTokensWork": [
            .text(prefix: "A review of popular media", id: "chatcmpl-D8dUvtOLRKeiFeDWpaZG2K6JNsxsq")
        ],
        "StructuredOutputsWithoutSchemaStrictFailureExpected": [
            .error(status: 400, code: "invalid_function_parameters")
        ],
        "StructuredRefusalWorks": [
            .refusal("I'm very sorry, but I can't assist with that request."),
            .text(prefix: "I can't assist with that request", id: "chatcmpl-D8dV7SLGPodYxc09jC6uQMcF1TpgU"),
        ],
    ]

    @Test func everyRecordingIsCovered() throws {
        let files = try FileManager.default.contentsOfDirectory(
            atPath: Fixtures.directory.appendingPathComponent("recordings").path)
        let names = Set(files.map { String($0.dropFirst("dotnet_".count).dropLast(".json".count)) })
        #expect(names == Set(Self.expectations.keys))
    }

    @Test(arguments: expectations.keys.sorted())
    func responsesDecode(recording: String) throws {
        let entries = try Fixtures.recording(recording)
        let expected = try #require(Self.expectations[recording])
        #expect(entries.count == expected.count)
        for (entry, expectation) in zip(entries, expected) {
            let body = try #require(entry["ResponseBody"]).data
            switch expectation {
            case .error(let status, let code):
                #expect(entry["StatusCode"] == .int(status))
                #expect(APIErrorBody.decode(body)?.code == code)
            case .toolCalls(let calls, let id):
                let response = try ChatCompletionResponse.decode(body)
                #expect(response.id == id)
                #expect(response.callsTools)
                for call in response.toolCalls {
                    #expect(call.id.hasPrefix("call_"))
                }
                for (name, arguments) in calls {
                    #expect(response.toolCalls.contains { $0.name == name && $0.arguments == arguments })
                }
            case .text(let prefix, let id):
                let response = try ChatCompletionResponse.decode(body)
                #expect(response.id == id)
                #expect(!response.callsTools)
                #expect(response.content?.hasPrefix(prefix) == true)
            case .refusal(let text):
                let response = try ChatCompletionResponse.decode(body)
                #expect(response.content == nil)
                #expect(response.refusal == text)
            case .legacyFunctionCall(let name):
                let response = try ChatCompletionResponse.decode(body)
                #expect(response.legacyFunctionCall?.name == name)
                #expect(!response.callsTools)
            }
        }
    }

    @Test func reasoningRecordingCountsReasoningTokens() throws {
        let entry = try #require(try Fixtures.recording("ReasoningTokensWork").first)
        let response = try ChatCompletionResponse.decode(try #require(entry["ResponseBody"]).data)
        #expect(response.usage.reasoning == 128)
    }

    /// Conversations the real API accepted come out of our encoder unchanged.
    @Test(arguments: [
        "ConsecutiveToolCalls", "ConstraintsWork", "NoParameterToolWorks", "ParallelToolCalls", "ReasoningTokensWork",
    ])
    func requestConversationsRoundTrip(recording: String) throws {
        for entry in try Fixtures.recording(recording) {
            let recorded = try #require(entry["RequestBody"]?["messages"])
            let messages = try JSONDecoder().decode([ChatMessage].self, from: recorded.data)
            let reencoded = try JSONValue(parsing: JSONCoding.encode(messages))
            #expect(reencoded == recorded)
        }
    }

    @Test func deprecatedFunctionRoleIsRefusedByName() throws {
        let entry = try #require(try Fixtures.recording("FunctionsWork").last)
        let recorded = try #require(entry["RequestBody"]?["messages"])
        do {
            _ = try JSONDecoder().decode([ChatMessage].self, from: recorded.data)
            Issue.record("a 'function' message decoded")
        } catch DecodingError.dataCorrupted(let context) {
            #expect(context.debugDescription.contains("unsupported message role 'function'"))
        }
    }
}
