import Foundation
import HTTP
import Synchronization

/// Shared by every conversation of a run: paces requests so the run fits the provider's rate
/// limits before the server has to say 429, and adapts how many requests are in flight.
///
/// Four mechanisms (docs/model.md §8):
/// - **Budgets from the headers.** Every response (of any status) may carry
///   `x-ratelimit-limit-{requests,tokens}`, `x-ratelimit-remaining-{requests,tokens}` and
///   `x-ratelimit-reset-{requests,tokens}` (`1s`, `6m0s`, `20ms`). The gate keeps, per budget,
///   the last level the server reported, refills it at the rate the headers imply
///   (`(limit − remaining) / reset`) and subtracts what requests sent since then reserved. A
///   request reserves its estimated tokens (prompt bytes ÷ 4 plus `max_completion_tokens`, as
///   the provider counts them) and one request, and waits until both budgets hold them. A
///   server that sends no such headers (most local servers) is not paced.
/// - **Reports of either age.** A provider may write the headers when it admits a request or
///   when it answers it; the gate cannot tell which. A report is read both ways (as of now,
///   and as of the moment its request was sent, with the refill and the reservations since
///   then) and the lower level is kept: right for headers written at admission, and at most a
///   little cautious for headers written with the answer.
/// - **Adaptive concurrency under a ceiling from the headers.** Requests in flight start at
///   `initialInFlight` and grow with each success up to a ceiling (straight to it until the
///   first 429, then by one per success): by Little's law, the
///   requests in flight that spend the limit are its refill rate × the measured answer time
///   ÷ the tokens a request reserves (and the request limit's rate × the answer time), with
///   `ceilingHeadroom` on top, never above `maxInFlight` (the operator's hard maximum). A
///   server without headers gets `unpacedCeiling` at most. A 429 halves the limit, at most
///   once per reset window (six 429s answered together are one signal, not six).
/// - **Shared limits.** With `workers` workers on the same organisation's limit, the start
///   and the ceiling from the headers are divided among them (`setWorkers`).
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
    private let initialInFlight: Int
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
        /// Workers sharing the limit (this one included).
        var workers = 1
        /// Seconds from sending a request to its answer, averaged over recent successes.
        var latency: Double?
        /// Tokens a request reserves, averaged over recent requests.
        var cost: Double?
        /// Requests admitted so far.
        var admitted = 0
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
        /// The highest ceiling the headers allowed.
        package var peakCeiling = 0
        /// Tokens reserved by the requests admitted so far.
        package var reservedTokens = 0
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
        /// younger than `RateLimitGate.reportSlack` stay counted after a report; and a report
        /// written when its request was admitted counts none sent after that request.
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

        /// - Parameter sentAt: when the request this report answers was sent (nil: unknown).
        mutating func observe(limit: Double?, remaining: Double?, reset: Double?, at now: Date, sentAt: Date? = nil) {
            if let limit { self.limit = limit }
            guard let remaining else { return }
            if let limit = limit ?? self.limit, let reset, reset > 0, limit > remaining {
                rate = (limit - remaining) / reset
            }
            level = remaining
            largestLevel = max(largestLevel, remaining)
            observedAt = now
            recent.removeAll { now.timeIntervalSince($0.0) > RateLimitGate.reservationMemory }
            // As of now: the server has counted everything but the last moment's requests.
            var pending = 0.0
            for (at, amount) in recent where now.timeIntervalSince(at) <= RateLimitGate.reportSlack {
                pending += amount
            }
            // As of the request's sending: the server had counted none sent after it, and the
            // bucket refilled since. The lower level of the two readings is kept.
            if let sentAt, sentAt < now {
                var after = 0.0
                for (at, amount) in recent where at > sentAt { after += amount }
                let refill = (rate ?? 0) * now.timeIntervalSince(sentAt)
                pending = max(pending, after - refill)
            }
            reservedSince = pending
        }

        mutating func reserve(_ amount: Double, at now: Date) {
            reservedSince += amount
            recent.append((now, amount))
            if recent.count > 8192 { recent.removeFirst(recent.count - 8192) }
        }
    }

    /// - Parameters:
    ///   - maxInFlight: the most requests in flight at once, whatever the headers allow.
    ///   - initialInFlight: where the adaptive limit starts (at most `maxInFlight`).
    package init(maxInFlight: Int, initialInFlight: Int? = nil, clock: @escaping @Sendable () -> Date = { Date() }) {
        self.maxInFlight = max(1, maxInFlight)
        self.initialInFlight = min(max(1, initialInFlight ?? maxInFlight), max(1, maxInFlight))
        self.state = Mutex(State(allowed: self.initialInFlight))
        self.clock = clock
    }

    /// Seconds a reservation stays counted after a server report (see `Budget.recent`): more
    /// than the time between a server writing its headers and the client reading them.
    static let reportSlack = 0.25
    /// Seconds a reservation is remembered for reading a report as of its request's sending:
    /// longer than a request may take.
    static let reservationMemory = 600.0
    /// The ceiling for a server that sends no rate-limit headers (nothing to derive one from).
    package static let unpacedCeiling = 64
    /// Room above the Little's-law estimate, for answers slower than the average.
    static let ceilingHeadroom = 1.25
    /// Weight of a new sample in the running averages of answer time and request size.
    static let averageWeight = 0.05

    /// Requests the gate currently lets through at once.
    package var currentLimit: Int { state.withLock { $0.allowed } }

    /// The most requests in flight the gate would grow to now.
    package var currentCeiling: Int { state.withLock { ceiling($0) } }

    package var counters: Counters { state.withLock { $0.tally } }

    /// The token limit's refill per second, over all workers, as the headers imply (nil: no
    /// headers yet).
    package var tokenRate: Double? { state.withLock { $0.tokens.rate } }

    /// Tells the gate how many workers (this one included) share the provider's limit: the
    /// start and the ceiling from the headers are divided among them. Before the first request
    /// the start is set anew; later the limit only shrinks to the new ceiling, if need be.
    package func setWorkers(_ count: Int) {
        condition.lock()
        defer { condition.unlock() }
        let initial = initialInFlight
        state.withLock { s in
            s.workers = min(max(1, count), 10_000)
            if s.admitted == 0 { s.allowed = max(1, initial / s.workers) }
            s.allowed = max(1, min(s.allowed, ceiling(s)))
        }
        condition.broadcast()
    }

    /// The ceiling of the adaptive limit: Little's law on each budget whose rate the headers
    /// gave, divided among the workers; `unpacedCeiling` without headers; never above
    /// `maxInFlight` nor below the start.
    private func ceiling(_ s: State) -> Int {
        let floor = max(1, initialInFlight / s.workers)
        guard let derived = derivedCeiling(s) else {
            // Nothing measured yet: the start and growth decide; without headers at all, the cap
            // of a server that is not paced.
            let paced = s.tokens.rate != nil || s.requests.rate != nil
            return paced ? maxInFlight : min(maxInFlight, Self.unpacedCeiling)
        }
        let share = (derived * Self.ceilingHeadroom / Double(s.workers)).rounded(.up)
        return min(maxInFlight, max(floor, Int(min(share, 1e6))))
    }

    /// Little's law on the budgets whose rates the headers gave, over all workers; nil before
    /// an answer time and a rate are known.
    private func derivedCeiling(_ s: State) -> Double? {
        var derived: Double?
        if let latency = s.latency, latency > 0 {
            if let rate = s.tokens.rate, rate > 0, let cost = s.cost, cost > 0 {
                derived = rate * latency / cost
            }
            if let rate = s.requests.rate, rate > 0 {
                derived = min(derived ?? .greatestFiniteMagnitude, rate * latency)
            }
        }
        return derived
    }

    /// Blocks until a request of `estimatedTokens` may start; false when cancelled while waiting.
    package func enter(estimatedTokens: Int = 0, cancellation: CancellationToken?) -> Bool {
        admit(estimatedTokens: estimatedTokens, cancellation: cancellation) != nil
    }

    /// Blocks until a request of `estimatedTokens` may start, and returns when it was admitted
    /// (on the gate's clock: pass it to `observe` and `leave`); nil when cancelled while waiting.
    package func admit(estimatedTokens: Int = 0, cancellation: CancellationToken?) -> Date? {
        condition.lock()
        defer { condition.unlock() }
        let cost = Double(max(0, estimatedTokens))
        var waitedSince: Date?
        while true {
            if cancellation?.isCancelled == true { return nil }
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
                s.admitted += 1
                s.tally.reservedTokens = Int.saturating(s.tally.reservedTokens, plus: Int(min(cost, 1e12)))
                s.cost = s.cost.map { $0 + (cost - $0) * Self.averageWeight } ?? cost
                if let waitedSince {
                    s.tally.pacedRequests += 1
                    s.tally.pacedSeconds += now.timeIntervalSince(waitedSince)
                }
                return nil
            }
            guard let wakeAt else { return now }
            _ = condition.wait(until: wakeAt)
        }
    }

    /// Reads the rate-limit headers of a response (names lowercased); `sentAt` is what `admit`
    /// returned for its request (nil: unknown, the report is read as of now).
    package func observe(headers: [String: String], sentAt: Date? = nil) {
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
            s.requests.observe(
                limit: limitRequests, remaining: remainingRequests, reset: resetRequests, at: now, sentAt: sentAt)
            s.tokens.observe(
                limit: limitTokens, remaining: remainingTokens, reset: resetTokens, at: now, sentAt: sentAt)
        }
        condition.broadcast()
    }

    /// A request finished; `rateLimitedFor` is the server's retry-after when it said 429, and
    /// `sentAt` what `admit` returned for a request that was answered (its answer time is
    /// measured; nil: not a sample).
    package func leave(rateLimitedFor delay: Double?, sentAt: Date? = nil) {
        condition.lock()
        defer { condition.unlock() }
        let now = clock()
        state.withLock { s in
            if delay == nil, let sentAt {
                let seconds = min(max(0, now.timeIntervalSince(sentAt)), 3600)
                s.latency = s.latency.map { $0 + (seconds - $0) * Self.averageWeight } ?? seconds
            }
            let ceiling = ceiling(s)
            s.tally.peakCeiling = max(s.tally.peakCeiling, ceiling)
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
            } else if s.allowed < ceiling {
                // Until the first 429 the headers are trusted: the budgets pace the requests, so
                // the limit goes straight to the ceiling they allow instead of climbing one answer
                // at a time (at 30 s answers a climb from 8 took five answer times). After a 429 it
                // climbs again by one per success.
                s.allowed = s.tally.halvings == 0 && derivedCeiling(s) != nil ? ceiling : s.allowed + 1
            } else {
                s.allowed = max(1, ceiling)
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
