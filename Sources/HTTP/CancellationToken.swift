import Foundation
import Synchronization

/// A flag one thread raises to stop work another thread is blocked in: an HTTP transfer,
/// or a pause between retries. Signal handlers (SIGINT/SIGTERM) cancel a shared token.
///
/// Cancelling is one-way; a cancelled token stays cancelled.
package final class CancellationToken: Sendable {
    private let flag = Atomic<Bool>(false)

    package init() {}

    package var isCancelled: Bool {
        flag.load(ordering: .acquiring)
    }

    package func cancel() {
        flag.store(true, ordering: .releasing)
    }

    /// Blocks the calling thread for up to `seconds`, returning early once the token is
    /// cancelled. Returns whether it was cancelled.
    ///
    /// It polls in short slices instead of waiting on a condition: cancellation is rare,
    /// a 20 ms reaction time is plenty, and the token stays a lock-free atomic.
    @discardableResult
    package func wait(seconds: Double) -> Bool {
        let deadline = Date().addingTimeInterval(max(0, seconds))
        while !isCancelled {
            let remaining = deadline.timeIntervalSinceNow
            if remaining <= 0 { return false }
            Thread.sleep(forTimeInterval: min(remaining, 0.02))
        }
        return true
    }
}
