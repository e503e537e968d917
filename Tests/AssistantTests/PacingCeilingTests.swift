import Foundation
import ReplanTestSupport
import Testing

@testable import Assistant

/// The night fits (issue 24): the in-flight ceiling from the rate headers, shared limits, and
/// headers computed when the provider admitted the request.
@Suite("Pacing: the ceiling from the headers, several workers, reports written at admission")
struct PacingCeilingTests {
    /// 60,000 tokens a minute (1,000 a second), plenty of requests; the bucket is full.
    static let headers = [
        "x-ratelimit-limit-tokens": "60000", "x-ratelimit-remaining-tokens": "59000",
        "x-ratelimit-reset-tokens": "1s", "x-ratelimit-limit-requests": "100000",
        "x-ratelimit-remaining-requests": "99999", "x-ratelimit-reset-requests": "1s",
    ]

    /// Requests of 1,000 tokens answered after 10 s, one after another, `count` times.
    static func answer(_ gate: RateLimitGate, clock: TestClock, count: Int) {
        for _ in 0..<count {
            guard let sentAt = gate.admit(estimatedTokens: 1000, cancellation: nil) else { return }
            clock.advance(10)
            gate.observe(headers: headers, sentAt: sentAt)
            gate.leave(rateLimitedFor: nil, sentAt: sentAt)
        }
    }

    @Test("the limit grows to what the headers and the answer time allow (Little's law), not to the hard maximum")
    func ceilingFromTheHeaders() {
        let clock = TestClock()
        let gate = RateLimitGate(maxInFlight: 256, initialInFlight: 8, clock: clock.now)
        gate.observe(headers: Self.headers)
        Self.answer(gate, clock: clock, count: 100)
        // 1,000 tokens a second × 10 s per answer ÷ 1,000 tokens a request = 10 in flight spend
        // the limit; a quarter more for slower answers.
        #expect(gate.currentCeiling == 13)
        #expect(gate.currentLimit == 13)
        #expect(gate.counters.reservedTokens == 100_000)
        #expect(gate.tokenRate == 1000)
    }

    @Test("until the first 429 the limit goes straight to the ceiling; after one it climbs by one per answer")
    func straightToTheCeilingUntilA429() {
        let clock = TestClock()
        let gate = RateLimitGate(maxInFlight: 256, initialInFlight: 8, clock: clock.now)
        gate.observe(headers: Self.headers)
        #expect(gate.currentLimit == 8)
        Self.answer(gate, clock: clock, count: 1)
        #expect(gate.currentLimit == 13)
        #expect(gate.enter(estimatedTokens: 1000, cancellation: nil))
        gate.leave(rateLimitedFor: 0)
        #expect(gate.currentLimit == 6)
        Self.answer(gate, clock: clock, count: 1)
        #expect(gate.currentLimit == 7)
    }

    @Test("the hard maximum still bounds the ceiling, and a server without headers gets 64 at most")
    func hardMaximumAndUnpaced() {
        let clock = TestClock()
        let capped = RateLimitGate(maxInFlight: 9, initialInFlight: 8, clock: clock.now)
        capped.observe(headers: Self.headers)
        Self.answer(capped, clock: clock, count: 50)
        #expect(capped.currentLimit == 9)
        let unpaced = RateLimitGate(maxInFlight: 256, initialInFlight: 8, clock: clock.now)
        for _ in 0..<200 {
            #expect(unpaced.enter(cancellation: nil))
            unpaced.leave(rateLimitedFor: nil)
        }
        #expect(unpaced.currentLimit == RateLimitGate.unpacedCeiling)
    }

    @Test("three workers on one limit start together with no more in flight than one would, and share its ceiling")
    func threeWorkersShareTheLimit() {
        let clock = TestClock()
        let alone = RateLimitGate(maxInFlight: 256, initialInFlight: 8, clock: clock.now)
        let workers = (0..<3).map { _ in RateLimitGate(maxInFlight: 256, initialInFlight: 8, clock: clock.now) }
        for gate in workers {
            gate.setWorkers(3)
            gate.observe(headers: Self.headers)
        }
        // Opening: 8 alone, 2 + 2 + 2 together.
        #expect(alone.currentLimit == 8)
        #expect(workers.map(\.currentLimit).reduce(0, +) <= alone.currentLimit)
        alone.observe(headers: Self.headers)
        Self.answer(alone, clock: clock, count: 100)
        for gate in workers { Self.answer(gate, clock: clock, count: 100) }
        // The ceiling of 12.5 is shared: 5 each (rounded up), 15 in all against 13 alone.
        #expect(workers.map(\.currentCeiling) == [5, 5, 5])
        #expect(workers.map(\.currentLimit).reduce(0, +) <= alone.currentLimit + 3)
        // A worker that leaves gives its share back at the next count; one that joins late
        // shrinks the others' limits at once.
        workers[0].setWorkers(1)
        #expect(workers[0].currentCeiling == 13)
        workers[0].setWorkers(4)
        #expect(workers[0].currentLimit <= 4)
    }

    @Test("a report written when its request was admitted does not forget the requests sent after it")
    func admissionReport() {
        let t0 = Date(timeIntervalSince1970: 1_000_000)
        var budget = RateLimitGate.Budget()
        budget.observe(limit: 10000, remaining: 10000, reset: nil, at: t0)
        budget.reserve(4000, at: t0) // request A
        budget.reserve(4000, at: t0.addingTimeInterval(1)) // request B, while A is answered
        // A's answer at t0 + 8 s, its headers written when A was admitted: A counted, B not;
        // 100 tokens a second refill.
        var asOfAdmission = budget
        asOfAdmission.observe(
            limit: 10000, remaining: 6000, reset: 40, at: t0.addingTimeInterval(8), sentAt: t0)
        // 6,000 − B's 4,000 + 8 s of refill.
        #expect(asOfAdmission.available(at: t0.addingTimeInterval(8)) == 2800)
        #expect(asOfAdmission.wait(for: 4000, at: t0.addingTimeInterval(8)) == 12)
        // Read as of now only (no sending time), the same report would let B's tokens be spent twice.
        var asOfNow = budget
        asOfNow.observe(limit: 10000, remaining: 6000, reset: 40, at: t0.addingTimeInterval(8))
        #expect(asOfNow.available(at: t0.addingTimeInterval(8)) == 6000)
    }

    @Test("a report written with the answer is never read as more than it says")
    func answerReport() {
        let t0 = Date(timeIntervalSince1970: 1_000_000)
        var budget = RateLimitGate.Budget()
        budget.observe(limit: 10000, remaining: 10000, reset: nil, at: t0)
        budget.reserve(4000, at: t0)
        budget.reserve(4000, at: t0.addingTimeInterval(1))
        // Written at t0 + 8 s with both counted: 10,000 − 8,000 + 800 of refill.
        budget.observe(limit: 10000, remaining: 2800, reset: 72, at: t0.addingTimeInterval(8), sentAt: t0)
        let available = budget.available(at: t0.addingTimeInterval(8)) ?? .infinity
        #expect(available <= 2800)
    }
}

@Suite("The output cap follows the night's measured answers")
struct OutputCapTests {
    @Test("the prior until enough answers are measured, then 1.5 × the 95th percentile, within floor and safety cap")
    func sizedFromMeasuredUse() {
        let cap = OutputCap(safetyCap: 8000)
        #expect(cap.current == OutputCap.defaultPrior)
        for _ in 0..<19 { cap.record(completionTokens: 1000) }
        #expect(cap.current == OutputCap.defaultPrior)
        cap.record(completionTokens: 1000)
        #expect(cap.current == 1500)
        for _ in 0..<20 { cap.record(completionTokens: 100) }
        #expect(cap.current == 1500) // the 95th percentile of 20 × 100 and 20 × 1,000
        let small = OutputCap(safetyCap: 8000)
        for _ in 0..<40 { small.record(completionTokens: 50) }
        #expect(small.current == OutputCap.defaultFloor)
        let tight = OutputCap(safetyCap: 3000)
        #expect(tight.current == 3000)
        for _ in 0..<40 { tight.record(completionTokens: 7000) }
        #expect(tight.current == 3000)
    }

    @Test("answers that hit the cap raise it: the percentile climbs past a cap that is too tight")
    func cutsRaiseTheCap() {
        let cap = OutputCap(safetyCap: 8000, minimumSamples: 20, window: 20)
        for _ in 0..<20 { cap.record(completionTokens: 1000) }
        #expect(cap.current == 1500)
        for _ in 0..<2 { cap.record(completionTokens: 1500) }
        #expect(cap.current == 2250)
    }
}

/// The client sends the sized cap, and an answer cut at it once more at the safety cap.
@Suite(.serialized) struct OutputCapClientTests {
    static func answer(finish: String, completion: Int) -> String {
        """
        {"status": 200, "body": {"id": "c", "object": "chat.completion", "model": "mock",
         "choices": [{"index": 0, "finish_reason": "\(finish)", "message": {"role": "assistant", "content": "ok"}}],
         "usage": {"prompt_tokens": 10, "completion_tokens": \(completion), "total_tokens": \(10 + completion)}}}
        """
    }

    @Test("a request goes out at the sized cap; an answer cut there is asked again at the safety cap, in one exchange")
    func cutAtTheSizedCapIsSentAgain() throws {
        let server = try MockOpenAIServer(
            script: """
                [{"match": "\\"max_completion_tokens\\":4000", "responses": [\(Self.answer(finish: "length", completion: 4000))]},
                 {"match": null, "repeat": true, "responses": [\(Self.answer(finish: "stop", completion: 5000))]}]
                """)
        let configuration = ModelConfiguration(
            apiKey: Secret("sk-cap"), baseURL: server.baseURL, connectTimeout: 2, requestTimeout: 10)
        let cap = OutputCap(safetyCap: configuration.maxCompletionTokens)
        let client = ChatCompletionsClient(configuration: configuration, outputCap: cap)
        let request = ChatCompletionRequest(configuration: configuration, messages: [.user("plan")], tools: [])
        let exchange = client.complete(request)
        let answer = try exchange.response()
        #expect(answer.finishReason == "stop")
        #expect(exchange.attempts.count == 2)
        #expect(exchange.usage.completion == 9000)
        let caps = try server.requests().map { ($0.json as? [String: Any])?["max_completion_tokens"] as? Int }
        #expect(caps == [4000, 8000])
        // An answer that is not cut is sent once.
        _ = client.complete(request)
        #expect(try server.requests().count == 3)
    }
}
