import Foundation
import HTTP
import ReplanTestSupport
import Synchronization
import Testing

@testable import Assistant

/// Records the pauses the client asks for instead of sleeping, so retry tests run instantly.
final class PauseRecorder: Sendable {
    private let delays = Mutex<[Double]>([])

    var recorded: [Double] { delays.withLock { $0 } }

    var pause: ChatCompletionsClient.Pause {
        { [self] seconds, _ in delays.withLock { $0.append(seconds) } }
    }
}

@Suite struct ChatCompletionsClientTests {
    static let apiKey = "sk-test-Zq8w3RkT5yUvXa1b"
    static let okBody = """
        {"id": "chatcmpl-ok", "choices": [{"index": 0, "finish_reason": "stop",
          "message": {"role": "assistant", "content": "All set.", "refusal": null}}],
         "usage": {"prompt_tokens": 120, "completion_tokens": 30, "total_tokens": 150,
                   "prompt_tokens_details": {"cached_tokens": 64}, "completion_tokens_details": {"reasoning_tokens": 20}}}
        """
    static let request = ChatCompletionRequest(
        configuration: ModelConfiguration(apiKey: Secret(apiKey)),
        messages: [.system("You are a tutor."), .user("Move my missed sessions.")],
        tools: [endConversationTool]
    )

    let pauses = PauseRecorder()

    private func client(
        _ server: MockOpenAIServer,
        baseURL: String? = nil,
        apiKey: String = apiKey,
        requestTimeout: Double = 10,
        maxResponseBytes: Int = 8 * 1024 * 1024,
        sleep: ChatCompletionsClient.Pause? = nil
    ) -> ChatCompletionsClient {
        let configuration = ModelConfiguration(
            apiKey: Secret(apiKey), baseURL: baseURL ?? server.baseURL, connectTimeout: 5,
            requestTimeout: requestTimeout, maxResponseBytes: maxResponseBytes)
        return ChatCompletionsClient(
            configuration: configuration, sleep: sleep ?? pauses.pause, random: { 0 },
            clock: { Date(timeIntervalSince1970: 1_790_000_000) })
    }

    private func statuses(_ exchange: ChatExchange) -> [Int?] {
        exchange.attempts.map {
            if case .response(let status, _) = $0.outcome { return status }
            return nil
        }
    }

    /// The key may only ever travel in the Authorization header.
    private func expectKeyNowhere(_ exchange: ChatExchange, _ server: MockOpenAIServer) throws {
        let key = Self.apiKey
        #expect(!String(decoding: exchange.requestBody, as: UTF8.self).contains(key))
        for attempt in exchange.attempts {
            if case .response(_, let body) = attempt.outcome {
                #expect(!String(decoding: body, as: UTF8.self).contains(key))
            }
        }
        if case .failure(let error) = exchange.result {
            #expect(!error.description.contains(key))
            #expect(!String(reflecting: error).contains(key))
        }
        for recorded in try server.requests() {
            #expect(!recorded.raw.contains(key))
            #expect(recorded.headers["authorization"] == "Bearer \(key)")
        }
    }

    @Test func successSendsTheRequestOnceWithBearerKey() throws {
        let server = try MockOpenAIServer(
            script: #"[{"match": null, "responses": [{"status": 200, "body": \#(Self.okBody)}]}]"#)
        let exchange = client(server).complete(Self.request)

        let response = try exchange.response()
        #expect(response.content == "All set.")
        #expect(exchange.attemptCount == 1)
        #expect(exchange.usage == TokenUsage(prompt: 120, completion: 30, reasoning: 20, cached: 64, total: 150))
        #expect(pauses.recorded.isEmpty)

        let recorded = try server.requests()
        #expect(recorded.count == 1)
        #expect(recorded.first?.path == "/v1/chat/completions")
        #expect(recorded.first?.headers["content-type"] == "application/json")
        #expect(recorded.first?.raw == String(decoding: exchange.requestBody, as: UTF8.self))
        #expect(exchange.requestBody == (try Self.request.encoded()))
        try expectKeyNowhere(exchange, server)
    }

    @Test func trailingSlashInBaseURLIsTolerated() throws {
        let server = try MockOpenAIServer(
            script: #"[{"match": null, "responses": [{"status": 200, "body": \#(Self.okBody)}]}]"#)
        let exchange = client(server, baseURL: server.baseURL + "/").complete(Self.request)
        #expect(throws: Never.self) { try exchange.response() }
        #expect(try server.requests().first?.path == "/v1/chat/completions")
    }

    @Test func emptyKeySendsNoAuthorizationHeader() throws {
        let server = try MockOpenAIServer(
            script: #"[{"match": null, "responses": [{"status": 200, "body": \#(Self.okBody)}]}]"#)
        _ = client(server, apiKey: "").complete(Self.request)
        #expect(try server.requests().first?.headers["authorization"] == nil)
    }

    @Test func serverErrorsAreRetriedUntilSuccess() throws {
        let server = try MockOpenAIServer(
            script: """
                [{"match": null, "responses": [
                  {"status": 500, "body": {"error": {"message": "boom", "type": "server_error", "code": null}}},
                  {"status": 500, "text": "<html>upstream error</html>"},
                  {"status": 200, "body": \(Self.okBody)}]}]
                """)
        let exchange = client(server).complete(Self.request)

        #expect(try exchange.response().id == "chatcmpl-ok")
        #expect(try server.requests().count == 3)
        #expect(statuses(exchange) == [500, 500, 200])
        #expect(pauses.recorded == [0.5, 1.0])
        #expect(exchange.attempts.map(\.retryDelay) == [0.5, 1.0, nil])
        // Every attempt carried the very same body.
        #expect(Set(try server.requests().map(\.raw)).count == 1)
        try expectKeyNowhere(exchange, server)
    }

    @Test func retryAfterMillisecondsIsHonoured() throws {
        let server = try MockOpenAIServer(
            script: """
                [{"match": null, "responses": [
                  {"status": 429, "headers": {"retry-after-ms": "10"},
                   "body": {"error": {"message": "Rate limit reached", "type": "tokens", "code": "rate_limit_exceeded"}}},
                  {"status": 200, "body": \(Self.okBody)}]}]
                """)
        let exchange = client(server).complete(Self.request)
        #expect(throws: Never.self) { try exchange.response() }
        #expect(pauses.recorded == [0.01])
        #expect(try server.requests().count == 2)
    }

    @Test func rateLimitsDoNotUseUpTheRetries() throws {
        // Seven 429s in a row: more than the four retries, yet the request is answered in the end
        // (a rate limit says "later"; the patience is time, not a count).
        let limited =
            #"{"status": 429, "headers": {"retry-after-ms": "5"}, "body": {"error": {"message": "Rate limit reached", "type": "tokens", "code": "rate_limit_exceeded"}}}"#
        let server = try MockOpenAIServer(
            script: """
                [{"match": null, "responses": [\(Array(repeating: limited, count: 7).joined(separator: ",")),
                  {"status": 200, "body": \(Self.okBody)}]}]
                """)
        let exchange = client(server).complete(Self.request)
        #expect(throws: Never.self) { try exchange.response() }
        #expect(exchange.attemptCount == 8)
        #expect(pauses.recorded == Array(repeating: 0.005, count: 7))
    }

    @Test func insufficientQuotaStopsAtOnce() throws {
        let quota = String(decoding: try Fixtures.data("error_429_insufficient_quota.json"), as: UTF8.self)
        let server = try MockOpenAIServer(
            script: #"[{"match": null, "repeat": true, "responses": [{"status": 429, "body": \#(quota)}]}]"#)
        let exchange = client(server).complete(Self.request)

        guard case .failure(.quotaExhausted(let message)) = exchange.result else {
            Issue.record("expected quotaExhausted, got \(exchange.result)")
            return
        }
        #expect(message.hasPrefix("You exceeded your current quota"))
        #expect(try server.requests().count == 1)
        #expect(pauses.recorded.isEmpty)
    }

    @Test func unauthorizedIsNotRetried() throws {
        let unauthorized = String(decoding: try Fixtures.data("error_401_invalid_api_key.json"), as: UTF8.self)
        let server = try MockOpenAIServer(
            script: #"[{"match": null, "repeat": true, "responses": [{"status": 401, "body": \#(unauthorized)}]}]"#)
        let exchange = client(server).complete(Self.request)

        guard case .failure(.http(401, let body)) = exchange.result else {
            Issue.record("expected HTTP 401, got \(exchange.result)")
            return
        }
        #expect(body?.code == "invalid_api_key")
        #expect(try server.requests().count == 1)
        #expect(pauses.recorded.isEmpty)
        try expectKeyNowhere(exchange, server)
    }

    @Test func givesUpAfterFourRetries() throws {
        let server = try MockOpenAIServer(
            script: """
                [{"match": null, "repeat": true, "responses": [{"status": 503, "body": {"error": {"message": "overloaded", "code": 503}}}]}]
                """)
        let exchange = client(server).complete(Self.request)

        #expect(
            exchange.result.failureValue == .http(status: 503, body: APIErrorBody(message: "overloaded", code: "503")))
        #expect(try server.requests().count == 5)
        #expect(exchange.attemptCount == 5)
        #expect(pauses.recorded == [0.5, 1, 2, 4])
        try expectKeyNowhere(exchange, server)
    }

    @Test func droppedConnectionIsRetried() throws {
        let server = try MockOpenAIServer(
            script: """
                [{"match": null, "responses": [{"fault": "drop"}, {"status": 200, "body": \(Self.okBody)}]}]
                """)
        let exchange = client(server).complete(Self.request)
        #expect(throws: Never.self) { try exchange.response() }
        #expect(statuses(exchange) == [nil, 200])
        guard case .failure(.connectionFailed) = exchange.attempts.first?.outcome else {
            Issue.record("first attempt should have failed to connect")
            return
        }
    }

    @Test func timeoutIsRetried() throws {
        let server = try MockOpenAIServer(
            script: """
                [{"match": null, "responses": [{"fault": "hang"}, {"status": 200, "body": \(Self.okBody)}]}]
                """)
        let exchange = client(server, requestTimeout: 0.5).complete(Self.request)
        #expect(throws: Never.self) { try exchange.response() }
        #expect(exchange.attempts.first?.outcome == .failure(.timedOut))
    }

    @Test func unusableSuccessIsNotRetried() throws {
        let server = try MockOpenAIServer(
            script:
                #"[{"match": null, "repeat": true, "responses": [{"fault": "raw", "status": 200, "text": "not json"}]}]"#
        )
        let exchange = client(server).complete(Self.request)
        #expect(exchange.result.failureValue == .invalidResponse("the body is not JSON: not json"))
        #expect(try server.requests().count == 1)
    }

    @Test func oversizedResponseIsNotRetried() throws {
        let server = try MockOpenAIServer(
            script: #"[{"match": null, "repeat": true, "responses": [{"fault": "huge", "bytes": 5000}]}]"#)
        let exchange = client(server, maxResponseBytes: 1000).complete(Self.request)
        #expect(exchange.result.failureValue == .transport(.responseTooLarge(limit: 1000)))
        #expect(try server.requests().count == 1)
    }

    @Test func cancellationCutsARetryPauseShort() throws {
        let server = try MockOpenAIServer(
            script: """
                [{"match": null, "repeat": true, "responses": [{"status": 503, "headers": {"retry-after": "30"}, "body": {}}]}]
                """)
        let token = CancellationToken()
        DispatchQueue.global().asyncAfter(deadline: .now() + 0.2) { token.cancel() }
        let start = Date()
        let exchange = client(server, sleep: ChatCompletionsClient.cancellableSleep).complete(
            Self.request, cancellation: token)
        #expect(exchange.result.failureValue == .cancelled)
        // Well before the 30 s retry pause ended (the margin is for a loaded machine).
        #expect(Date().timeIntervalSince(start) < 20)
        #expect(try server.requests().count == 1)
    }

    @Test func keyEchoedByTheServerIsRedacted() throws {
        let server = try MockOpenAIServer(
            script: """
                [{"match": null, "repeat": true, "responses": [{"status": 401,
                  "body": {"error": {"message": "Incorrect API key provided: \(Self.apiKey).", "code": "invalid_api_key"}}}]}]
                """)
        let exchange = client(server).complete(Self.request)
        guard case .failure(.http(401, let body)) = exchange.result else {
            Issue.record("expected HTTP 401, got \(exchange.result)")
            return
        }
        #expect(body?.message == "Incorrect API key provided: <redacted>.")
        try expectKeyNowhere(exchange, server)
    }
}

extension Result {
    var failureValue: Failure? {
        if case .failure(let error) = self { return error }
        return nil
    }
}
