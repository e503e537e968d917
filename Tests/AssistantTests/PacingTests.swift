import Foundation
import HTTP
import ReplanTestSupport
import Testing

@testable import Assistant

/// Pacing by the rate-limit headers against the mock's token bucket (issue 16): a run whose
/// requests would overrun the bucket without pacing keeps within it with the gate.
@Suite(.serialized) struct PacingTests {
    /// 32 requests of about 2,000 tokens (1,000 of prompt, 1,000 of `max_completion_tokens`)
    /// from 16 threads, against a bucket of 16,000 tokens refilled per second: about 4 s of
    /// budget, requested within the first fraction of a second.
    static let script = """
        {"bucket": {"tokens": 16000, "requests": 100000, "window": 1},
         "rules": [{"match": null, "repeat": true, "responses": [{"status": 200, "delay": 0.05, "body":
           {"id": "c", "object": "chat.completion", "model": "mock",
            "choices": [{"index": 0, "finish_reason": "stop", "message": {"role": "assistant", "content": "ok"}}],
            "usage": {"prompt_tokens": 1000, "completion_tokens": 5, "total_tokens": 1005}}}]}]}
        """

    struct Outcome {
        var succeeded = 0
        var failed = 0
        var stats: [String: Any] = [:]
        var rateLimitedShare: Double {
            let requests = stats["requests"] as? Double ?? Double(stats["requests"] as? Int ?? 0)
            let limited = stats["rate_limited"] as? Double ?? Double(stats["rate_limited"] as? Int ?? 0)
            return requests > 0 ? limited / requests : 0
        }
    }

    /// The same bucket with answers after 0.4 s and headers written when the request was
    /// admitted (as a provider may): by the time a report arrives, the requests sent after its
    /// own are missing from it.
    static let admissionScript =
        script
        .replacingOccurrences(of: #""window": 1}"#, with: #""window": 1, "headersAt": "admission"}"#)
        .replacingOccurrences(of: #""delay": 0.05"#, with: #""delay": 0.4"#)

    func night(paced: Bool, script: String = PacingTests.script) throws -> Outcome {
        let server = try MockOpenAIServer(script: script)
        let configuration = ModelConfiguration(
            apiKey: Secret("sk-pacing"), baseURL: server.baseURL, maxCompletionTokens: 1000,
            connectTimeout: 2, requestTimeout: 10)
        let gate = paced ? RateLimitGate(maxInFlight: 16, initialInFlight: 8) : nil
        let client = ChatCompletionsClient(
            configuration: configuration, retryPolicy: RetryPolicy(maxRetries: 4, retryAfterCap: 2),
            gate: gate)
        let request = ChatCompletionRequest(
            configuration: configuration,
            messages: [.user(String(repeating: "study plan ", count: 330))], tools: [])
        let tally = Tally()
        let group = DispatchGroup()
        for _ in 0..<16 {
            group.enter()
            Thread {
                for _ in 0..<2 {
                    let exchange = client.complete(request)
                    if case .success = exchange.result { tally.add(ok: true) } else { tally.add(ok: false) }
                }
                group.leave()
            }.start()
        }
        group.wait()
        var outcome = Outcome()
        (outcome.succeeded, outcome.failed) = tally.counts
        let root = server.baseURL.replacingOccurrences(of: "/v1", with: "")
        let stats = try HTTPClient().send(HTTPRequest(url: root + "/_stats", method: "GET"))
        outcome.stats = try JSONSerialization.jsonObject(with: stats.body) as? [String: Any] ?? [:]
        return outcome
    }

    @Test("a bucket that unpaced requests overrun is kept by pacing: few 429s, nobody fails")
    func pacingKeepsTheBucket() throws {
        let unpaced = try night(paced: false)
        #expect(unpaced.rateLimitedShare > 0.3, "\(unpaced.stats)")
        let paced = try night(paced: true)
        #expect(paced.failed == 0)
        #expect(paced.succeeded == 32)
        #expect(paced.rateLimitedShare <= 0.1, "\(paced.stats)")
    }

    @Test("headers written at admission are read as of the request's sending: still few 429s, nobody fails")
    func pacingWithHeadersFromAdmission() throws {
        #expect(Self.admissionScript.contains(#""headersAt": "admission""#))
        let paced = try night(paced: true, script: Self.admissionScript)
        #expect(paced.failed == 0)
        #expect(paced.succeeded == 32)
        #expect(paced.rateLimitedShare <= 0.1, "\(paced.stats)")
    }
}

/// Whether each request succeeded, from the threads that sent them.
private typealias Tally = Shared<[Bool]>

extension Shared<[Bool]> {
    fileprivate func add(ok success: Bool) { append(success) }
    /// Succeeded, failed.
    fileprivate var counts: (Int, Int) { (all.filter { $0 }.count, all.filter { !$0 }.count) }
}
