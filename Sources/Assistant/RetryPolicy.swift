import Foundation
import HTTP

/// Decides whether a failed model request is tried again, and after how long.
///
/// A pure value: the decision depends only on its arguments, including the random draw
/// for jitter and the current time (for an HTTP-date `retry-after`), so every case is
/// testable with fixed numbers.
///
/// Retried: connection failures, timeouts, 408, 409, 429 (unless `insufficient_quota`) and
/// 5xx. Never retried: other statuses (400, 401, 403, 404, …), a 429 `insufficient_quota`
/// (no retry can refill the account), an oversized response (it would be as large again),
/// cancellation, an invalid URL, and other transport failures (TLS trust problems do not
/// cure themselves within seconds).
package struct RetryPolicy: Sendable, Equatable {
    /// What the last attempt produced.
    package enum Outcome: Sendable, Equatable {
        case transport(HTTPError)
        /// A non-2xx response, its lowercased headers and its error body if it had one.
        case response(status: Int, headers: [String: String], error: APIErrorBody?)
    }

    /// Try again after a pause, or report the failure.
    package enum Decision: Sendable, Equatable {
        case retry(afterSeconds: Double)
        case giveUp
    }

    /// Retries after the first attempt; 4 means at most 5 requests.
    package var maxRetries: Int
    /// Longest wait a server's `retry-after` may impose.
    package var retryAfterCap: Double
    /// Backoff before the first retry; it doubles for each further one.
    package var initialBackoff: Double
    package var maxBackoff: Double
    /// Share of the backoff that random jitter may take off, so that many clients failing
    /// together do not retry in lockstep.
    package var jitter: Double

    package init(
        maxRetries: Int = 4,
        retryAfterCap: Double = 60,
        initialBackoff: Double = 0.5,
        maxBackoff: Double = 8,
        jitter: Double = 0.25
    ) {
        self.maxRetries = maxRetries
        self.retryAfterCap = retryAfterCap
        self.initialBackoff = initialBackoff
        self.maxBackoff = maxBackoff
        self.jitter = jitter
    }

    /// - Parameters:
    ///   - retriesSoFar: how many retries were already made (0 after the first attempt).
    ///   - random: a number in `0..<1` for the jitter.
    ///   - now: the current time, to turn an HTTP-date `retry-after` into seconds.
    package func decide(retriesSoFar: Int, outcome: Outcome, random: Double, now: Date) -> Decision {
        guard retriesSoFar < maxRetries, isRetryable(outcome) else { return .giveUp }
        if case .response(_, let headers, _) = outcome, let requested = serverDelay(headers, now: now) {
            return .retry(afterSeconds: min(requested, retryAfterCap))
        }
        let backoff = min(initialBackoff * pow(2, Double(retriesSoFar)), maxBackoff)
        let draw = min(max(random, 0), 1)
        return .retry(afterSeconds: backoff * (1 - jitter * draw))
    }

    private func isRetryable(_ outcome: Outcome) -> Bool {
        switch outcome {
        case .transport(.connectionFailed), .transport(.timedOut):
            return true
        case .transport:
            return false
        case .response(429, _, let error):
            return error?.isInsufficientQuota != true
        case .response(let status, _, _):
            return status == 408 || status == 409 || (500...599).contains(status)
        }
    }

    /// The wait the server asked for: `retry-after-ms` (OpenAI's, in milliseconds) first,
    /// then `retry-after` in seconds or as an HTTP date. Unreadable values are ignored.
    private func serverDelay(_ headers: [String: String], now: Date) -> Double? {
        if let text = headers["retry-after-ms"], let milliseconds = Double(text.trimmed), milliseconds.isFinite,
            milliseconds >= 0
        {
            return milliseconds / 1000
        }
        guard let text = headers["retry-after"]?.trimmed else { return nil }
        if let seconds = Double(text), seconds.isFinite, seconds >= 0 {
            return seconds
        }
        if let date = Self.httpDate(text) {
            return max(0, date.timeIntervalSince(now))
        }
        return nil
    }

    /// Parses the IMF-fixdate form of RFC 9110 (`Sun, 06 Nov 1994 08:49:37 GMT`), the only
    /// one servers are allowed to send.
    private static func httpDate(_ text: String) -> Date? {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "GMT")
        formatter.dateFormat = "EEE, dd MMM yyyy HH:mm:ss 'GMT'"
        return formatter.date(from: text)
    }
}

extension String {
    fileprivate var trimmed: String { trimmingCharacters(in: .whitespaces) }
}
