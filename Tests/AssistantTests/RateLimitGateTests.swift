import Assistant
import Foundation
import HTTP
import Testing

@Suite("The run-wide rate-limit gate (issue: nightly runs at scale)")
struct RateLimitGateTests {
    @Test("a rate limit halves the requests in flight, and successes ramp it back up")
    func multiplicativeDecreaseAdditiveIncrease() {
        let gate = RateLimitGate(maxInFlight: 8)
        #expect(gate.currentLimit == 8)
        #expect(gate.enter(cancellation: nil))
        gate.leave(rateLimitedFor: 0)
        #expect(gate.currentLimit == 4)
        #expect(gate.enter(cancellation: nil))
        gate.leave(rateLimitedFor: 0)
        #expect(gate.currentLimit == 2)
        for _ in 0..<2 { #expect(gate.enter(cancellation: nil)); gate.leave(rateLimitedFor: nil) }
        #expect(gate.currentLimit == 3)
        for _ in 0..<100 { #expect(gate.enter(cancellation: nil)); gate.leave(rateLimitedFor: nil) }
        #expect(gate.currentLimit == 8)
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
                if gate.enter(cancellation: nil) { entered.add(Date()); gate.leave(rateLimitedFor: nil) }
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

private final class Box: @unchecked Sendable {
    private let lock = NSLock()
    private var list: [Date] = []
    private var current = 0
    private var max = 0
    func add(_ d: Date) { lock.withLock { list.append(d) } }
    var dates: [Date] { lock.withLock { list } }
    func change(_ by: Int) { lock.withLock { current += by; max = Swift.max(max, current) } }
    var peak: Int { lock.withLock { max } }
}
