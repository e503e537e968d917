import Foundation
import HTTP

/// Sends chat completion requests to an OpenAI-compatible server, retrying transient
/// failures as `RetryPolicy` decides, and reports everything that happened as a
/// `ChatExchange`.
///
/// Blocking: `complete` holds its thread through the requests and the pauses between them
/// (see `HTTPClient`). Safe to share between threads.
package final class ChatCompletionsClient: Sendable {
    /// Blocks for the given seconds, returning early when the token is cancelled.
    package typealias Pause = @Sendable (_ seconds: Double, _ cancellation: CancellationToken?) -> Void

    package let configuration: ModelConfiguration
    private let http: HTTPClient
    private let retryPolicy: RetryPolicy
    private let pause: Pause
    private let random: @Sendable () -> Double
    private let clock: @Sendable () -> Date
    private let gate: RateLimitGate?
    private let breaker: ProviderBreaker?
    private let outputCap: OutputCap?

    /// - Parameters:
    ///   - gate: shared by all conversations of a run, so a rate limit slows the whole run.
    ///   - outputCap: shared by the run too: sizes each request's `max_completion_tokens` from
    ///     the answers measured so far (nil: the request's own cap is sent).
    ///   - sleep: waits between attempts; tests inject one that records and returns at once.
    ///   - random: numbers in `0..<1` for retry jitter.
    ///   - clock: the current time, for `retry-after` given as a date.
    package init(
        configuration: ModelConfiguration,
        http: HTTPClient = HTTPClient(),
        retryPolicy: RetryPolicy = RetryPolicy(),
        sleep: @escaping Pause = ChatCompletionsClient.cancellableSleep,
        random: @escaping @Sendable () -> Double = { Double.random(in: 0..<1) },
        clock: @escaping @Sendable () -> Date = { Date() },
        gate: RateLimitGate? = nil,
        breaker: ProviderBreaker? = nil,
        outputCap: OutputCap? = nil
    ) {
        self.outputCap = outputCap
        self.gate = gate
        self.breaker = breaker
        self.configuration = configuration
        self.http = http
        self.retryPolicy = retryPolicy
        self.pause = sleep
        self.random = random
        self.clock = clock
    }

    /// The real pause: sleeps, but wakes as soon as the run is cancelled.
    package static let cancellableSleep: Pause = { seconds, cancellation in
        if let cancellation {
            cancellation.wait(seconds: seconds)
        } else if seconds > 0 {
            Thread.sleep(forTimeInterval: seconds)
        }
    }

    /// Posts `request` to `{baseURL}/chat/completions` until it succeeds, fails for good or
    /// runs out of retries. Never throws: the outcome is `ChatExchange.result`.
    ///
    /// With an `OutputCap`, the request goes out with the sized `max_completion_tokens` (never
    /// above its own); an answer cut at that smaller cap is asked once more at the request's
    /// own cap, in the same exchange, so sizing the cap never costs a student their answer.
    package func complete(_ request: ChatCompletionRequest, cancellation: CancellationToken? = nil) -> ChatExchange {
        guard let outputCap else { return send(request, cancellation: cancellation) }
        let own = request.maxCompletionTokens ?? configuration.maxCompletionTokens
        var sized = request
        sized.maxCompletionTokens = min(own, outputCap.current)
        let first = send(sized, cancellation: cancellation)
        guard case .success(let answer) = first.result else { return first }
        let cut = answer.finishReason == "length"
        outputCap.record(
            completionTokens: cut
                ? max(answer.usage.completion, sized.maxCompletionTokens ?? 0) : answer.usage.completion)
        guard cut, let sent = sized.maxCompletionTokens, sent < own else { return first }
        var again = send(request, cancellation: cancellation)
        if case .success(let full) = again.result {
            outputCap.record(completionTokens: full.usage.completion)
        }
        again.attempts = first.attempts + again.attempts
        again.usage = first.usage + again.usage
        return again
    }

    private func send(_ request: ChatCompletionRequest, cancellation: CancellationToken?) -> ChatExchange {
        let body: Data
        do {
            body = try request.encoded()
        } catch {
            return ChatExchange(requestBody: Data(), attempts: [], usage: .zero, result: .failure(error))
        }
        let httpRequest = HTTPRequest(
            url: configuration.completionsURL,
            headers: headers,
            body: body,
            connectTimeout: configuration.connectTimeout,
            totalTimeout: configuration.requestTimeout,
            maxResponseBytes: configuration.maxResponseBytes
        )

        var exchange = ChatExchange(requestBody: body, attempts: [], usage: .zero, result: .failure(.cancelled))
        var retries = 0
        let estimate = Self.estimatedTokens(bodyBytes: body.count, maxCompletionTokens: request.maxCompletionTokens)
        let started = clock()
        while true {
            if let breaker, breaker.isOpen {
                exchange.result = .failure(.providerRefusing(breaker.reason))
                return exchange
            }
            if cancellation?.isCancelled == true {
                exchange.result = .failure(.cancelled)
                return exchange
            }
            var sentAt: Date?
            if let gate {
                guard let admitted = gate.admit(estimatedTokens: estimate, cancellation: cancellation) else {
                    exchange.result = .failure(.cancelled)
                    return exchange
                }
                sentAt = admitted
            }
            let result = attempt(httpRequest, sentAt: sentAt, cancellation: cancellation, recordingInto: &exchange)
            guard case .failed(let outcome, let failure) = result else {
                gate?.leave(rateLimitedFor: nil, sentAt: sentAt)
                return exchange
            }

            // A rate limit (429 that is not the quota) says "later", not "broken": it does not
            // use up the retries, only the patience (`rateLimitPatience` seconds per request).
            var rateLimited = false
            if case .response(429, _, let body) = outcome, body?.isInsufficientQuota != true { rateLimited = true }
            let patient = rateLimited && clock().timeIntervalSince(started) < rateLimitPatience
            let decision = retryPolicy.decide(
                retriesSoFar: patient ? 0 : retries, outcome: outcome, random: random(), now: clock())
            if case .response(429, _, _) = outcome, case .retry(let delay) = decision {
                gate?.leave(rateLimitedFor: delay, sentAt: nil)
            } else {
                gate?.leave(rateLimitedFor: nil, sentAt: nil)
            }
            guard case .retry(let delay) = decision else {
                exchange.result = .failure(failure)
                return exchange
            }
            exchange.attempts[exchange.attempts.count - 1].retryDelay = delay
            pause(delay, cancellation)
            if !patient { retries += 1 }
        }
    }

    /// Seconds one request may keep meeting rate limits (429 `rate_limit_exceeded`) before it
    /// fails; other failures are bounded by the retry policy's count.
    package var rateLimitPatience: Double { 600 }

    /// The tokens a request counts against a tokens-per-minute limit before it is answered:
    /// the provider estimates the prompt from its characters (about four per token) and counts
    /// the whole `max_completion_tokens`. The gate reserves this much before sending.
    package static func estimatedTokens(bodyBytes: Int, maxCompletionTokens: Int?) -> Int {
        (max(0, bodyBytes) + 3) / 4 + max(0, maxCompletionTokens ?? 0)
    }

    /// How one attempt ended.
    private enum AttemptResult {
        /// `exchange.result` holds the final answer or error; retrying cannot change it.
        case settled
        /// A failure the retry policy must judge, and the error to report if it gives up.
        case failed(RetryPolicy.Outcome, ModelCallError)
    }

    /// Performs one HTTP request and records it in `exchange`.
    private func attempt(
        _ httpRequest: HTTPRequest,
        sentAt: Date?,
        cancellation: CancellationToken?,
        recordingInto exchange: inout ChatExchange
    ) -> AttemptResult {
        let response: HTTPResponse
        do {
            response = try http.send(httpRequest, cancellation: cancellation)
        } catch {
            exchange.attempts.append(.init(outcome: .failure(error)))
            return .failed(.transport(error), error == .cancelled ? .cancelled : .transport(error))
        }

        gate?.observe(headers: response.headers, sentAt: sentAt)
        breaker?.record(status: response.status)
        // Redacted before anything is kept or decoded, in case the server echoes the key.
        let body = configuration.apiKey.redact(response.body)
        exchange.attempts.append(.init(outcome: .response(status: response.status, body: body)))

        if (200..<300).contains(response.status) {
            do {
                let decoded = try ChatCompletionResponse.decode(body)
                exchange.usage += decoded.usage
                exchange.result = .success(decoded)
            } catch {
                exchange.result = .failure(error)
            }
            return .settled
        }
        let errorBody = APIErrorBody.decode(body)
        let failure: ModelCallError
        if response.status == 429, let errorBody, errorBody.isInsufficientQuota {
            failure = .quotaExhausted(errorBody.message)
        } else {
            failure = .http(status: response.status, body: errorBody)
        }
        return .failed(.response(status: response.status, headers: response.headers, error: errorBody), failure)
    }

    private var headers: [HTTPHeader] {
        var headers = [
            HTTPHeader(name: "Content-Type", value: "application/json"),
            HTTPHeader(name: "Accept", value: "application/json"),
        ]
        // Local servers often need no key; sending "Bearer " with nothing after it would
        // only confuse them.
        if !configuration.apiKey.isEmpty {
            headers.append(HTTPHeader(name: "Authorization", value: "Bearer \(configuration.apiKey.unredactedValue)"))
        }
        return headers
    }
}
