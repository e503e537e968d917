import Foundation
import HTTP
import ReplanTestSupport
import Testing

@testable import Assistant

@Suite("The run-wide rate-limit gate (issue: nightly runs at scale)")
struct RateLimitGateTests {
    @Test("a rate limit halves the requests in flight once per window, and successes ramp it back up")
    func multiplicativeDecreaseOncePerWindowAdditiveIncrease() {
        let clock = TestClock()
        let gate = RateLimitGate(maxInFlight: 8, clock: clock.now)
        #expect(gate.currentLimit == 8)
        // Six 429s answered together (one window) halve once, not six times.
        for _ in 0..<6 { #expect(gate.enter(cancellation: nil)) }
        for _ in 0..<6 { gate.leave(rateLimitedFor: 0) }
        #expect(gate.currentLimit == 4)
        #expect(gate.counters.halvings == 1 && gate.counters.rateLimited == 6)
        clock.advance(2)
        #expect(gate.enter(cancellation: nil))
        gate.leave(rateLimitedFor: 0)
        #expect(gate.currentLimit == 2)
        for _ in 0..<1 {
            #expect(gate.enter(cancellation: nil))
            gate.leave(rateLimitedFor: nil)
        }
        #expect(gate.currentLimit == 3)
        for _ in 0..<100 {
            #expect(gate.enter(cancellation: nil))
            gate.leave(rateLimitedFor: nil)
        }
        #expect(gate.currentLimit == 8)
    }

    @Test("the rate-limit headers pace requests before the server has to say 429")
    func headersPaceRequests() {
        let clock = TestClock()
        let gate = RateLimitGate(maxInFlight: 64, clock: clock.now)
        // 1,000 tokens per 10 s; 300 left, full again in 7 s: 100 tokens per second.
        gate.observe(headers: [
            "x-ratelimit-limit-tokens": "1000", "x-ratelimit-remaining-tokens": "300",
            "x-ratelimit-reset-tokens": "7s", "x-ratelimit-remaining-requests": "50",
            "x-ratelimit-limit-requests": "60", "x-ratelimit-reset-requests": "1m0s",
        ])
        #expect(gate.enter(estimatedTokens: 250, cancellation: nil))
        // 50 left: the next 250-token request must wait 2 s of refill.
        let entered = Box()
        let done = DispatchSemaphore(value: 0)
        let thread = Thread {
            if gate.enter(estimatedTokens: 250, cancellation: nil) { entered.add(clock.now()) }
            done.signal()
        }
        thread.start()
        usleep(100_000)
        #expect(entered.dates.isEmpty)
        clock.advance(1)
        usleep(700_000)
        #expect(entered.dates.isEmpty)
        clock.advance(1.1)
        // Waits for the event, not for a time: the bound only keeps a broken gate from hanging the suite.
        #expect(done.wait(timeout: .now() + 30) == .success)
        #expect(entered.dates.count == 1)
        #expect(gate.counters.pacedRequests == 1)
    }

    @Test("header values from the wire never trap: garbage, negative and huge numbers are ignored or clamped")
    func headerValuesNeverTrap() {
        let gate = RateLimitGate(maxInFlight: 4)
        gate.observe(headers: [
            "x-ratelimit-limit-tokens": "1e400", "x-ratelimit-remaining-tokens": "-5",
            "x-ratelimit-reset-tokens": "99999999999h", "x-ratelimit-remaining-requests": "NaN",
            "x-ratelimit-reset-requests": "3x",
        ])
        gate.observe(headers: [
            "x-ratelimit-remaining-tokens": "9223372036854775808000", "x-ratelimit-reset-tokens": "1m2.5s",
        ])
        #expect(gate.enter(estimatedTokens: Int.max, cancellation: nil))
        gate.leave(rateLimitedFor: .infinity)
        #expect(RateLimitGate.duration("6m0s") == 360)
        #expect(RateLimitGate.duration("20ms") == 0.02)
        #expect(RateLimitGate.duration("1h2m3.5s") == 3723.5)
        #expect(RateLimitGate.duration("abc") == nil)
        #expect(RateLimitGate.number("12") == 12)
        #expect(RateLimitGate.number("-1") == nil)
    }

    @Test("after a 429 with retry-after nobody starts a request before the pause is over")
    func pauseHoldsEveryone() {
        let gate = RateLimitGate(maxInFlight: 4)
        #expect(gate.enter(cancellation: nil))
        let pausedAt = Date()
        gate.leave(rateLimitedFor: 0.3)
        let entered = Box()
        let group = DispatchGroup()
        for _ in 0..<3 {
            group.enter()
            Thread {
                if gate.enter(cancellation: nil) {
                    entered.add(Date())
                    gate.leave(rateLimitedFor: nil)
                }
                group.leave()
            }.start()
        }
        group.wait()
        #expect(entered.dates.count == 3)
        #expect(entered.dates.allSatisfy { $0.timeIntervalSince(pausedAt) >= 0.29 })
    }

    @Test("no more requests are in flight than the limit allows")
    func limitHolds() {
        let gate = RateLimitGate(maxInFlight: 2)
        let inFlight = Box()
        let group = DispatchGroup()
        for _ in 0..<8 {
            group.enter()
            Thread {
                _ = gate.enter(cancellation: nil)
                inFlight.change(+1)
                usleep(20_000)
                inFlight.change(-1)
                gate.leave(rateLimitedFor: nil)
                group.leave()
            }.start()
        }
        group.wait()
        #expect(inFlight.peak <= 2)
    }

    @Test("a cancelled run stops waiting at the gate")
    func cancellationWakesWaiters() {
        let gate = RateLimitGate(maxInFlight: 1)
        #expect(gate.enter(cancellation: nil))
        gate.leave(rateLimitedFor: 30)
        let token = CancellationToken()
        token.cancel()
        #expect(gate.enter(cancellation: token) == false)
    }
}

/// When requests entered the gate, and how many were inside at most.
private struct Traffic {
    var dates: [Date] = []
    var inside = 0
    var peak = 0
}

private typealias Box = Shared<Traffic>

extension Shared<Traffic> {
    fileprivate convenience init() { self.init(Traffic()) }
    fileprivate func add(_ d: Date) { update { $0.dates.append(d) } }
    fileprivate var dates: [Date] { value.dates }
    fileprivate func change(_ by: Int) {
        update {
            $0.inside += by
            $0.peak = max($0.peak, $0.inside)
        }
    }
    fileprivate var peak: Int { value.peak }
}
