import Foundation
import HTTP
import Testing

@testable import Assistant

/// Issue 13, item 7: numbers from a model server (token usage, retry headers) never trap,
/// however large, negative or malformed they are.
@Suite struct ExtremeNumbersTests {
    static let extremes: [String] = [
        "0", "1", "-1", "6000000000000000000", "9223372036854775807", "9223372036854775808", "-9223372036854775808",
        "18446744073709551615", "1e30", "-1e30", "1e308", "6e18", "5e-324", "0.5", "123456789012345678901234567890",
        "\"many\"", "null", "true", "[]", "{}",
    ]

    static func body(prompt: String, completion: String, total: String?, reasoning: String, cached: String) -> Data {
        let totalPart = total.map { #","total_tokens":\#($0)"# } ?? ""
        return Data(
            """
            {"id":"x","model":"m","choices":[{"index":0,"message":{"role":"assistant","content":"ok"},"finish_reason":"stop"}],
             "usage":{"prompt_tokens":\(prompt),"completion_tokens":\(completion)\(totalPart),
                      "prompt_tokens_details":{"cached_tokens":\(cached)},
                      "completion_tokens_details":{"reasoning_tokens":\(reasoning)}}}
            """.utf8)
    }

    @Test func hugeTokenCountsDecodeAndSumWithoutTrapping() throws {
        // The reproduction: 6e18 prompt and completion tokens and no total.
        let huge = try ChatCompletionResponse.decode(
            Self.body(prompt: "6e18", completion: "6e18", total: nil, reasoning: "6e18", cached: "6e18"))
        #expect(huge.usage.prompt == 6_000_000_000_000_000_000)
        #expect(huge.usage.total == Int.max, "saturates instead of trapping")
        var sum = TokenUsage.zero
        for _ in 0..<4 { sum += huge.usage }
        #expect(sum.prompt == Int.max && sum.completion == Int.max && sum.total == Int.max)
    }

    @Test func everyExtremeValueInEveryUsageFieldDecodesToACount() throws {
        var g = SystemRandomNumberGenerator()
        var total = TokenUsage.zero
        for _ in 0..<400 {
            let pick = { Self.extremes.randomElement(using: &g)! }
            let response = try ChatCompletionResponse.decode(
                Self.body(
                    prompt: pick(), completion: pick(),
                    total: Bool.random(using: &g) ? pick() : nil,
                    reasoning: pick(), cached: pick()))
            let u = response.usage
            #expect(u.prompt >= 0 && u.completion >= 0 && u.reasoning >= 0 && u.cached >= 0 && u.total >= 0, "\(u)")
            total += u
        }
        #expect(total.prompt >= 0)
    }

    @Test func extremeRetryHeadersGiveACappedWaitOrNone() {
        let policy = RetryPolicy()
        let now = Date(timeIntervalSince1970: 1_790_000_000)
        let values =
            Self.extremes + [
                "inf", "-inf", "nan", "Infinity", "1e400", "Sun, 06 Nov 1994 08:49:37 GMT",
                "Fri, 31 Dec 9999 23:59:59 GMT", String(repeating: "9", count: 400),
            ]
        for name in ["retry-after", "retry-after-ms"] {
            for value in values {
                let decision = policy.decide(
                    retriesSoFar: 0, outcome: .response(status: 429, headers: [name: value], error: nil),
                    random: 0.5, now: now)
                guard case .retry(let seconds) = decision else {
                    Issue.record("\(name): \(value) → \(decision)")
                    continue
                }
                #expect(
                    seconds.isFinite && seconds >= 0 && seconds <= policy.retryAfterCap,
                    "\(name): \(value) → \(seconds)")
            }
        }
        // Retry counts far beyond the limit give up, never overflow the backoff.
        #expect(policy.decide(retriesSoFar: Int.max, outcome: .transport(.timedOut), random: 0, now: now) == .giveUp)
    }

    @Test func saturatingArithmetic() {
        #expect(Int.saturating(.max, plus: 1) == .max)
        #expect(Int.saturating(.min, plus: -1) == .min)
        #expect(Int.saturating(2, plus: 3) == 5)
        #expect(
            Int.count(clamping: .nan) == 0 && Int.count(clamping: -.infinity) == 0
                && Int.count(clamping: .infinity) == .max)
        #expect(Int.count(clamping: 9.3e18) == .max && Int.count(clamping: -3) == 0 && Int.count(clamping: 41.9) == 41)
    }
}
