import Foundation
import Testing

@testable import Assistant

@Suite struct APIErrorBodyTests {
    @Test func everyErrorFixtureDecodes() throws {
        let names = try Fixtures.files(withPrefix: "error_")
        #expect(names.count == 7)
        for name in names {
            #expect(APIErrorBody.decode(try Fixtures.data(name)) != nil, "\(name)")
        }
    }

    @Test func invalidFunctionParameters() throws {
        let body = try Fixtures.errorBody("error_400_invalid_function_parameters.json")
        #expect(body.code == "invalid_function_parameters")
        #expect(body.type == "invalid_request_error")
        #expect(body.param == "tools[0].function.parameters")
        #expect(body.message.hasPrefix("Invalid schema for function 'get_favorite_color_for_day_of_week'"))
    }

    @Test func unsupportedParameterAndValue() throws {
        let maxTokens = try Fixtures.errorBody("error_400_max_tokens_unsupported_parameter.json")
        #expect(maxTokens.code == "unsupported_parameter")
        #expect(maxTokens.param == "max_tokens")
        let temperature = try Fixtures.errorBody("error_400_temperature_unsupported_value.json")
        #expect(temperature.code == "unsupported_value")
        #expect(temperature.param == "temperature")
    }

    @Test func nullCode() throws {
        let body = try Fixtures.errorBody("error_400_tools_with_reasoning_effort.json")
        #expect(body.code == nil)
        #expect(body.param == "reasoning_effort")
        #expect(body.message.hasPrefix("Function tools with reasoning_effort are not supported"))
    }

    @Test func invalidAPIKey() throws {
        let body = try Fixtures.errorBody("error_401_invalid_api_key.json")
        #expect(body.code == "invalid_api_key")
        #expect(body.param == nil)
        #expect(!body.isInsufficientQuota)
    }

    @Test func insufficientQuotaIsRecognised() throws {
        let body = try Fixtures.errorBody("error_429_insufficient_quota.json")
        #expect(body.code == "insufficient_quota")
        #expect(body.type == "insufficient_quota")
        #expect(body.isInsufficientQuota)
        #expect(APIErrorBody(message: "old style", type: "insufficient_quota").isInsufficientQuota)
    }

    @Test func rateLimitIsNotQuota() throws {
        let body = try Fixtures.errorBody("error_429_rate_limit_tokens.json")
        #expect(body.code == "rate_limit_exceeded")
        #expect(body.type == "tokens")
        #expect(!body.isInsufficientQuota)
    }

    @Test func numericCodeIsKeptAsText() {
        let body = APIErrorBody.decode(Data(#"{"error": {"message": "busy", "code": 503, "param": null}}"#.utf8))
        #expect(body == APIErrorBody(message: "busy", code: "503"))
    }

    @Test func plainStringErrorIsUnderstood() {
        let body = APIErrorBody.decode(Data(#"{"error": "model 'x' not found"}"#.utf8))
        #expect(body == APIErrorBody(message: "model 'x' not found"))
    }

    @Test func otherBodiesAreNoErrorBody() {
        #expect(APIErrorBody.decode(Data("<html>502</html>".utf8)) == nil)
        #expect(APIErrorBody.decode(Data(#"{"detail": "nope"}"#.utf8)) == nil)
        #expect(APIErrorBody.decode(Data()) == nil)
    }
}
