import Foundation
import HTTP

/// Shared by every conversation of a run: when the server says "slow down" (429 with a
/// retry-after), the whole run backs off, not just the user who got the answer, and then
/// ramps up again.
///
/// Two mechanisms: a pause (no request starts before `pausedUntil`), and an additive-increase
/// / multiplicative-decrease limit on requests in flight (halved on every rate limit, one
/// more after each window of successes), so a run does not rush back at full concurrency
/// into the same limit.
public final class RateLimitGate: @unchecked Sendable {
    private let condition = NSCondition()
    private let maxInFlight: Int
    private var allowed: Int
    private var inFlight = 0
    private var pausedUntil = Date.distantPast
    private var successesSinceChange = 0
    private let clock: @Sendable () -> Date

    public init(maxInFlight: Int, clock: @escaping @Sendable () -> Date = { Date() }) {
        self.maxInFlight = max(1, maxInFlight)
        self.allowed = max(1, maxInFlight)
        self.clock = clock
    }

    /// Requests the gate currently lets through at once.
    public var currentLimit: Int { condition.withLock { allowed } }

    /// Blocks until a request may start; false when cancelled while waiting.
    public func enter(cancellation: CancellationToken?) -> Bool {
        condition.lock(); defer { condition.unlock() }
        while true {
            if cancellation?.isCancelled == true { return false }
            let now = clock()
            if now < pausedUntil {
                _ = condition.wait(until: min(pausedUntil, now.addingTimeInterval(0.5)))
                continue
            }
            if inFlight < allowed { inFlight += 1; return true }
            _ = condition.wait(until: now.addingTimeInterval(0.5))
        }
    }

    /// A request finished; `rateLimitedFor` is the server's retry-after when it said 429.
    public func leave(rateLimitedFor delay: Double?) {
        condition.lock(); defer { condition.unlock() }
        inFlight -= 1
        if let delay {
            pausedUntil = max(pausedUntil, clock().addingTimeInterval(delay))
            allowed = max(1, allowed / 2)
            successesSinceChange = 0
        } else {
            successesSinceChange += 1
            if allowed < maxInFlight && successesSinceChange >= allowed {
                allowed += 1
                successesSinceChange = 0
            }
        }
        condition.broadcast()
    }
}
