import Foundation
import HTTP
import ReplanTestSupport
import Testing

@testable import Assistant

@Suite struct RetryPolicyTests {
    let policy = RetryPolicy()
    let now = Date(timeIntervalSince1970: 1_790_000_000)

    private func status(_ code: Int, _ headers: [String: String] = [:], error: String? = nil) -> RetryPolicy.Outcome {
        .response(status: code, headers: headers, error: error.map { APIErrorBody(message: "m", code: $0) })
    }

    private func decide(_ outcome: RetryPolicy.Outcome, retries: Int = 0, random: Double = 0) -> RetryPolicy.Decision {
        policy.decide(retriesSoFar: retries, outcome: outcome, random: random, now: now)
    }

    struct Case: CustomTestStringConvertible, Sendable {
        var outcome: RetryPolicy.Outcome
        var retried: Bool
        var testDescription: String { "\(outcome) → \(retried ? "retry" : "give up")" }
    }

    static let cases: [Case] = [
        Case(outcome: .transport(.connectionFailed("refused")), retried: true),
        Case(outcome: .transport(.timedOut), retried: true),
        Case(outcome: .transport(.responseTooLarge(limit: 8)), retried: false),
        Case(outcome: .transport(.cancelled), retried: false),
        Case(outcome: .transport(.invalidURL("x")), retried: false),
        Case(outcome: .transport(.transport(code: 60, message: "SSL certificate problem")), retried: false),
        Case(outcome: .response(status: 408, headers: [:], error: nil), retried: true),
        Case(outcome: .response(status: 409, headers: [:], error: nil), retried: true),
        Case(
            outcome: .response(
                status: 429, headers: [:], error: APIErrorBody(message: "m", code: "rate_limit_exceeded")),
            retried: true),
        Case(outcome: .response(status: 429, headers: [:], error: nil), retried: true),
        Case(
            outcome: .response(status: 429, headers: [:], error: APIErrorBody(message: "m", code: "something_new")),
            retried: true),
        Case(
            outcome: .response(
                status: 429, headers: [:], error: APIErrorBody(message: "m", code: "insufficient_quota")),
            retried: false),
        Case(
            outcome: .response(
                status: 429, headers: [:], error: APIErrorBody(message: "m", type: "insufficient_quota")),
            retried: false),
        Case(outcome: .response(status: 500, headers: [:], error: nil), retried: true),
        Case(outcome: .response(status: 502, headers: [:], error: nil), retried: true),
        Case(outcome: .response(status: 503, headers: [:], error: nil), retried: true),
        Case(outcome: .response(status: 504, headers: [:], error: nil), retried: true),
        Case(outcome: .response(status: 599, headers: [:], error: nil), retried: true),
        Case(
            outcome: .response(
                status: 400, headers: [:], error: APIErrorBody(message: "m", code: "unsupported_parameter")),
            retried: false),
        Case(
            outcome: .response(status: 401, headers: [:], error: APIErrorBody(message: "m", code: "invalid_api_key")),
            retried: false),
        Case(outcome: .response(status: 403, headers: [:], error: nil), retried: false),
        Case(outcome: .response(status: 404, headers: [:], error: nil), retried: false),
        Case(outcome: .response(status: 422, headers: [:], error: nil), retried: false),
        Case(outcome: .response(status: 302, headers: [:], error: nil), retried: false),
        // A server's retry-after never makes an unretryable status retryable.
        Case(outcome: .response(status: 400, headers: ["retry-after": "1"], error: nil), retried: false),
    ]

    @Test(arguments: cases)
    func whatIsRetried(_ testCase: Case) {
        let decision = decide(testCase.outcome)
        if testCase.retried {
            #expect(decision == .retry(afterSeconds: 0.5))
        } else {
            #expect(decision == .giveUp)
        }
    }

    @Test func fixtureErrorBodiesAreClassified() throws {
        let quota = try Fixtures.errorBody("error_429_insufficient_quota.json")
        let rateLimit = try Fixtures.errorBody("error_429_rate_limit_tokens.json")
        #expect(decide(.response(status: 429, headers: [:], error: quota)) == .giveUp)
        #expect(decide(.response(status: 429, headers: [:], error: rateLimit)) == .retry(afterSeconds: 0.5))
    }

    @Test func atMostFourRetries() {
        let outcome = status(503)
        for retries in 0..<4 {
            #expect(decide(outcome, retries: retries) != .giveUp)
        }
        #expect(decide(outcome, retries: 4) == .giveUp)
        #expect(decide(status(503, ["retry-after": "1"]), retries: 4) == .giveUp)
    }

    @Test func backoffDoublesFromHalfASecondUpToEight() {
        let unlimited = RetryPolicy(maxRetries: 10)
        let delays = (0..<7).map {
            unlimited.decide(retriesSoFar: $0, outcome: .transport(.timedOut), random: 0, now: now)
        }
        #expect(delays == [0.5, 1, 2, 4, 8, 8, 8].map { .retry(afterSeconds: $0) })
    }

    @Test func jitterTakesOffAtMostAQuarter() {
        for retries in 0..<4 {
            let full = 0.5 * pow(2, Double(retries))
            for random in stride(from: 0.0, to: 1.0, by: 0.05) {
                guard case .retry(let delay) = decide(.transport(.timedOut), retries: retries, random: random) else {
                    Issue.record("no retry")
                    continue
                }
                #expect(delay <= full)
                #expect(delay > full * 0.75)
                #expect(abs(delay - full * (1 - 0.25 * random)) < 1e-9)
            }
        }
    }

    @Test func retryAfterMillisecondsIsHonoured() {
        #expect(
            decide(status(429, ["retry-after-ms": "10"], error: "rate_limit_exceeded")) == .retry(afterSeconds: 0.01))
        // Exactly as asked: no jitter on a server's instruction.
        #expect(decide(status(503, ["retry-after-ms": "1500"]), retries: 3, random: 0.9) == .retry(afterSeconds: 1.5))
    }

    @Test func retryAfterSecondsIsHonoured() {
        #expect(decide(status(429, ["retry-after": "3"])) == .retry(afterSeconds: 3))
        #expect(decide(status(503, ["retry-after": " 1.5 "])) == .retry(afterSeconds: 1.5))
        #expect(decide(status(503, ["retry-after": "0"])) == .retry(afterSeconds: 0))
    }

    @Test func millisecondsWinOverSeconds() {
        #expect(decide(status(429, ["retry-after-ms": "250", "retry-after": "1"])) == .retry(afterSeconds: 0.25))
    }

    @Test func retryAfterAsHTTPDate() {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "GMT")
        formatter.dateFormat = "EEE, dd MMM yyyy HH:mm:ss 'GMT'"
        let later = formatter.string(from: now.addingTimeInterval(30))
        let earlier = formatter.string(from: now.addingTimeInterval(-30))
        #expect(decide(status(503, ["retry-after": later])) == .retry(afterSeconds: 30))
        #expect(decide(status(503, ["retry-after": earlier])) == .retry(afterSeconds: 0))
    }

    @Test func serverDelaysAreCappedAtSixtySeconds() {
        #expect(decide(status(429, ["retry-after": "3600"])) == .retry(afterSeconds: 60))
        #expect(decide(status(429, ["retry-after-ms": "90000"])) == .retry(afterSeconds: 60))
    }

    @Test func unreadableRetryAfterFallsBackToBackoff() {
        #expect(decide(status(503, ["retry-after": "soon"]), retries: 1) == .retry(afterSeconds: 1))
        #expect(decide(status(503, ["retry-after-ms": "-5"]), retries: 1) == .retry(afterSeconds: 1))
    }
}
