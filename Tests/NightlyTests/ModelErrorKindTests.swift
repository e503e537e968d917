import Assistant
import HTTP
import Testing

@testable import Nightly

/// Model errors get a short countable kind, read from the wording the Assistant and HTTP
/// modules use (pinned here through their own descriptions).
@Suite struct ModelErrorKindTests {
    @Test func httpErrorsAreNamedByStatusAndTheAPIsErrorCode() {
        let body = APIErrorBody(
            message: "Incorrect API key provided: sk-…", type: "invalid_request_error", param: nil,
            code: "invalid_api_key")
        #expect(
            ModelErrorKind.of(ModelCallError.http(status: 401, body: body).description) == "HTTP 401 invalid_api_key")
        #expect(ModelErrorKind.of(ModelCallError.http(status: 503, body: nil).description) == "HTTP 503")
        #expect(
            ModelErrorKind.of("model failed: " + ModelCallError.http(status: 401, body: body).description)
                == "HTTP 401 invalid_api_key",
            "the --on-model-error=skip wording")
    }

    @Test func transportQuotaAndResponseErrorsHaveTheirOwnKinds() {
        #expect(ModelErrorKind.of(ModelCallError.transport(.timedOut).description) == "timeout")
        #expect(
            ModelErrorKind.of(ModelCallError.transport(.connectionFailed("refused")).description) == "connection failed"
        )
        #expect(
            ModelErrorKind.of(
                ModelCallError.transport(.transport(code: 60, message: "SSL certificate problem")).description)
                == "curl error 60")
        #expect(
            ModelErrorKind.of(ModelCallError.quotaExhausted("You exceeded your current quota").description)
                == "insufficient_quota")
        #expect(
            ModelErrorKind.of(ModelCallError.quotaExhausted("x").description + "; no more model calls in this run")
                == "insufficient_quota",
            "students not asked after the quota ran out count under the same kind")
        #expect(ModelErrorKind.of(ModelCallError.invalidResponse("not JSON").description) == "invalid response")
        #expect(ModelErrorKind.of(ModelCallError.cancelled.description) == "cancelled")
        #expect(
            ModelErrorKind.of("the model did not finish within 15 requests (turn-limit); its validated edits are kept")
                == "turn-limit")
        #expect(ModelErrorKind.of("something new: with detail") == "something new")
    }

    @Test func kindsAreRankedByCountThenName() {
        let ranked = ModelErrorKind.ranked(["timeout": 2, "HTTP 503": 2, "HTTP 401 invalid_api_key": 5])
        #expect(ranked.map(\.kind) == ["HTTP 401 invalid_api_key", "HTTP 503", "timeout"])
    }
}
