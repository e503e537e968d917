import Foundation
import Synchronization

/// The run's circuit breaker on the model provider (issue 28, item 12): once every answer
/// for `openAfter` seconds was a refusal (429 or 5xx), it opens and stays open for the rest
/// of the run, so a provider that answers nothing else no longer holds the night until the
/// model deadline. Any other answer (a 2xx, a 4xx that is about the request) closes the
/// count; transport failures neither start nor close it. Shared by every conversation of a
/// run; the client reports each answer, and a student's deadline watch stops a conversation
/// waiting on a retry once the breaker opens.
package final class ProviderBreaker: Sendable {
    package static let defaultOpenAfter: TimeInterval = 120

    package let openAfter: TimeInterval
    private let clock: @Sendable () -> Date
    private let state = Mutex<(refusingSince: Date?, open: Bool)>((nil, false))

    package init(
        openAfter: TimeInterval = ProviderBreaker.defaultOpenAfter, clock: @escaping @Sendable () -> Date = { Date() }
    ) {
        self.openAfter = openAfter
        self.clock = clock
    }

    /// Whether `status` is a refusal: the provider is overloaded, rate limiting or broken.
    static func isRefusal(_ status: Int) -> Bool { status == 429 || (500...599).contains(status) }

    /// Records one answer of the provider.
    package func record(status: Int) {
        let now = clock()
        state.withLock { s in
            guard !s.open else { return }
            if Self.isRefusal(status) {
                if s.refusingSince == nil { s.refusingSince = now }
                if now.timeIntervalSince(s.refusingSince!) >= openAfter { s.open = true }
            } else {
                s.refusingSince = nil
            }
        }
    }

    /// Whether the breaker is open: refusals only, for `openAfter` seconds by now.
    package var isOpen: Bool {
        let now = clock()
        return state.withLock { s in
            if !s.open, let since = s.refusingSince, now.timeIntervalSince(since) >= openAfter { s.open = true }
            return s.open
        }
    }

    /// Why no model calls are made any more, for the students' records and the run's.
    package var reason: String {
        let limit =
            openAfter >= 60 && openAfter.truncatingRemainder(dividingBy: 60) == 0
            ? "\(Int(openAfter / 60)) min" : "\(openAfter) s"
        return
            "the model server refused every request (429 or 5xx) for \(limit); no more model calls in this run, the remaining students get their local edits only"
    }
}
