import Foundation
import HTTP
import Synchronization

/// Shared by every conversation of a run: paces requests so the run fits the provider's rate
/// limits before the server has to say 429, and adapts how many requests are in flight.
///
/// Three mechanisms:
/// - **Budgets from the headers.** Every response (of any status) may carry
///   `x-ratelimit-limit-{requests,tokens}`, `x-ratelimit-remaining-{requests,tokens}` and
///   `x-ratelimit-reset-{requests,tokens}` (`1s`, `6m0s`, `20ms`). The gate keeps, per budget,
///   the last level the server reported, refills it at the rate the headers imply
///   (`(limit − remaining) / reset`) and subtracts what requests sent since then reserved. A
///   request reserves its estimated tokens (prompt bytes ÷ 4 plus `max_completion_tokens`, as
///   the provider counts them) and one request, and waits until both budgets hold them. A
///   server that sends no such headers (most local servers) is not paced.
/// - **Adaptive concurrency.** Requests in flight start at `initialInFlight` and grow by one
///   with each success up to `maxInFlight`: a model-bound night is I/O-bound, so the cap can be
///   far above the number of cores. A 429 halves the limit, at most once per reset window
///   (six 429s answered together are one signal, not six).
/// - **A pause** after a 429 with a retry-after: no request starts before it is over.
///
/// Numbers from headers never trap: unreadable, negative, huge or non-finite values are
/// ignored or clamped.
///
/// The state lives in a `Mutex`. A mutex cannot make a thread sleep until another signals, so
/// waiting uses a condition besides: every change of the state is made with the condition's
/// lock held and followed by a broadcast, and a waiter checks the state with that lock held
/// too, so no wake-up is lost between its check and its wait.
package final class RateLimitGate: Sendable {
    private let condition = NSCondition()
    private let maxInFlight: Int
    private let state: Mutex<State>
    private let clock: @Sendable () -> Date

    private struct State {
        var allowed: Int
        var inFlight = 0
        var pausedUntil = Date.distantPast
        var halvedUntil = Date.distantPast
        var requests = Budget()
        var tokens = Budget()
        var tally = Counters()
    }

    /// What the gate did, for reports and benchmarks.
    package struct Counters: Sendable, Hashable {
        /// Requests that waited for a budget before starting, and the seconds they waited.
        package var pacedRequests = 0
        package var pacedSeconds = 0.0
        /// 429 rate limits seen, and how often they halved the limit.
        package var rateLimited = 0
        package var halvings = 0
        /// The highest number of requests in flight at once.
        package var peakInFlight = 0
    }

    /// One budget (requests or tokens) as the server last reported it.
    struct Budget {
        var limit: Double?
        /// Level at `observedAt`, per the server.
        var level: Double?
        var observedAt = Date.distantPast
        /// Refill per second, derived from the headers.
        var rate: Double?
        /// Reserved by requests started since `observedAt` (the server had not counted them).
        var reservedSince = 0.0
        /// Recent reservations (start, amount): a report may have been written by the server
        /// just before it counted a request the client sent a moment earlier, so reservations
        /// younger than `RateLimitGate.reportSlack` stay counted after a report.
        var recent: [(Date, Double)] = []
        /// The highest level ever reported: the size of the bucket when no limit is sent.
        var largestLevel = 0.0

        /// The level now, after refill and the reservations since the server's report.
        func available(at now: Date) -> Double? {
            guard let level else { return nil }
            // Reservations were paid out of the bucket, which then kept refilling up to its size.
            let refill = (rate ?? 0) * max(0, now.timeIntervalSince(observedAt))
            return min(limit ?? .greatestFiniteMagnitude, level - reservedSince + refill)
        }

        /// Seconds until `amount` is available (nil: no pacing information).
        func wait(for amount: Double, at now: Date) -> Double? {
            // Without a known refill rate there is nothing to predict: the server decides.
            guard let rate, rate > 0, let available = available(at: now) else { return nil }
            // A request larger than the whole bucket waits for a full bucket, not forever.
            let amount = min(amount, limit ?? largestLevel)
            guard available < amount else { return nil }
            return min(60, (amount - available) / rate)
        }

        mutating func observe(limit: Double?, remaining: Double?, reset: Double?, at now: Date) {
            if let limit { self.limit = limit }
            guard let remaining else { return }
            if let limit = limit ?? self.limit, let reset, reset > 0, limit > remaining {
                rate = (limit - remaining) / reset
            }
            level = remaining
            largestLevel = max(largestLevel, remaining)
            observedAt = now
            recent.removeAll { now.timeIntervalSince($0.0) > RateLimitGate.reportSlack }
            reservedSince = recent.reduce(0) { $0 + $1.1 }
        }

        mutating func reserve(_ amount: Double, at now: Date) {
            reservedSince += amount
            recent.append((now, amount))
            if recent.count > 4096 { recent.removeFirst(recent.count - 4096) }
        }
    }

    /// - Parameters:
    ///   - maxInFlight: the most requests in flight at once.
    ///   - initialInFlight: where the adaptive limit starts (at most `maxInFlight`).
    package init(maxInFlight: Int, initialInFlight: Int? = nil, clock: @escaping @Sendable () -> Date = { Date() }) {
        self.maxInFlight = max(1, maxInFlight)
        self.state = Mutex(State(allowed: min(max(1, initialInFlight ?? maxInFlight), max(1, maxInFlight))))
        self.clock = clock
    }

    /// Seconds a reservation stays counted after a server report (see `Budget.recent`): more
    /// than the time between a server writing its headers and the client reading them.
    static let reportSlack = 0.25

    /// Requests the gate currently lets through at once.
    package var currentLimit: Int { state.withLock { $0.allowed } }

    package var counters: Counters { state.withLock { $0.tally } }

    /// Blocks until a request of `estimatedTokens` may start; false when cancelled while waiting.
    package func enter(estimatedTokens: Int = 0, cancellation: CancellationToken?) -> Bool {
        condition.lock()
        defer { condition.unlock() }
        let cost = Double(max(0, estimatedTokens))
        var waitedSince: Date?
        while true {
            if cancellation?.isCancelled == true { return false }
            let now = clock()
            // Nil: entered; otherwise when to look again.
            let wakeAt = state.withLock { (s) -> Date? in
                if now < s.pausedUntil {
                    waitedSince = waitedSince ?? now
                    return min(s.pausedUntil, now.addingTimeInterval(0.5))
                }
                guard s.inFlight < s.allowed else { return now.addingTimeInterval(0.5) }
                let wait = max(s.requests.wait(for: 1, at: now) ?? 0, s.tokens.wait(for: cost, at: now) ?? 0)
                if wait > 0 {
                    waitedSince = waitedSince ?? now
                    return now.addingTimeInterval(min(wait, 0.5))
                }
                s.inFlight += 1
                s.tally.peakInFlight = max(s.tally.peakInFlight, s.inFlight)
                s.requests.reserve(1, at: now)
                s.tokens.reserve(cost, at: now)
                if let waitedSince {
                    s.tally.pacedRequests += 1
                    s.tally.pacedSeconds += now.timeIntervalSince(waitedSince)
                }
                return nil
            }
            guard let wakeAt else { return true }
            _ = condition.wait(until: wakeAt)
        }
    }

    /// Reads the rate-limit headers of a response (names lowercased).
    package func observe(headers: [String: String]) {
        let number = { (name: String) -> Double? in RateLimitGate.number(headers["x-ratelimit-\(name)"]) }
        let duration = { (name: String) -> Double? in headers["x-ratelimit-\(name)"].flatMap(RateLimitGate.duration) }
        let remainingRequests = number("remaining-requests")
        let remainingTokens = number("remaining-tokens")
        guard remainingRequests != nil || remainingTokens != nil else { return }
        let limitRequests = number("limit-requests")
        let resetRequests = duration("reset-requests")
        let limitTokens = number("limit-tokens")
        let resetTokens = duration("reset-tokens")
        condition.lock()
        defer { condition.unlock() }
        let now = clock()
        state.withLock { s in
            s.requests.observe(limit: limitRequests, remaining: remainingRequests, reset: resetRequests, at: now)
            s.tokens.observe(limit: limitTokens, remaining: remainingTokens, reset: resetTokens, at: now)
        }
        condition.broadcast()
    }

    /// A request finished; `rateLimitedFor` is the server's retry-after when it said 429.
    package func leave(rateLimitedFor delay: Double?) {
        condition.lock()
        defer { condition.unlock() }
        let now = clock()
        let maxInFlight = maxInFlight
        state.withLock { s in
            s.inFlight = max(0, s.inFlight - 1)
            if let delay {
                s.tally.rateLimited += 1
                let pause = delay.isFinite ? min(max(0, delay), 3600) : 60
                s.pausedUntil = max(s.pausedUntil, now.addingTimeInterval(pause))
                // One halving per window: 429s answered together say the same thing once.
                if now >= s.halvedUntil {
                    s.allowed = max(1, s.allowed / 2)
                    s.tally.halvings += 1
                    let window = max(pause, s.requests.resetHint ?? 0, s.tokens.resetHint ?? 0, 1)
                    s.halvedUntil = now.addingTimeInterval(window)
                }
            } else if s.allowed < maxInFlight {
                s.allowed += 1
            }
        }
        condition.broadcast()
    }

    // MARK: - Header values

    /// A non-negative finite number, clamped to 10^12; nil when unreadable.
    static func number(_ text: String?) -> Double? {
        guard let text = text?.trimmingCharacters(in: .whitespaces), let value = Double(text), value.isFinite,
            value >= 0
        else {
            return nil
        }
        return min(value, 1e12)
    }

    /// OpenAI's durations: `1s`, `6m0s`, `20ms`, `1h2m3.5s`, or a bare number of seconds;
    /// clamped to a day. Nil when unreadable.
    static func duration(_ text: String) -> Double? {
        let s = text.trimmingCharacters(in: .whitespaces).lowercased()
        if s.isEmpty { return nil }
        if let seconds = Double(s) { return seconds.isFinite && seconds >= 0 ? min(seconds, 86_400) : nil }
        var total = 0.0
        var number = ""
        var chars = Array(s)[...]
        while let c = chars.first {
            if c.isNumber || c == "." {
                number.append(c)
                chars = chars.dropFirst()
                continue
            }
            guard let value = Double(number), value.isFinite else { return nil }
            number = ""
            if chars.starts(with: "ms") {
                total += value / 1000
                chars = chars.dropFirst(2)
            } else {
                switch c {
                case "h": total += value * 3600
                case "m": total += value * 60
                case "s": total += value
                default: return nil
                }
                chars = chars.dropFirst()
            }
        }
        guard number.isEmpty else { return nil }
        return min(total, 86_400)
    }
}

extension RateLimitGate.Budget {
    /// Seconds until the budget is full again, as the rate implies (for the halving window).
    var resetHint: Double? {
        guard let limit, let level, let rate, rate > 0 else { return nil }
        return max(0, limit - level) / rate
    }
}
