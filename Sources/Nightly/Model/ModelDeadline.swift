import Assistant
import Foundation
import HTTP
import Synchronization

/// How long the model stage may take: per run and per student (issue 13, item 10).
///
/// A server that answers 429 for ever made a run serial, about three minutes per student at
/// the 60 s retry-after cap, so a night of many students never ended. A student whose
/// conversation passes `perStudent` seconds gets their local edits only; once the run's
/// model stage passes `perRun` seconds (counted from `startedAt`), the conversation in
/// flight is stopped the same way and the remaining students are not asked at all (the
/// run's `ModelShutoff` says why, and the run's summary shows it).
package struct ModelDeadline: Sendable {
    package var perRun: TimeInterval
    package var perStudent: TimeInterval
    package var startedAt: Date
    /// How long the provider may refuse everything (429 or 5xx) before the run stops asking
    /// it (`ProviderBreaker`).
    package var refusalBreaker: TimeInterval

    package static let defaultPerRun: TimeInterval = 2 * 3600
    package static let defaultPerStudent: TimeInterval = 300
    package static let defaultRefusalBreaker: TimeInterval = ProviderBreaker.defaultOpenAfter

    package init(
        perRun: TimeInterval = defaultPerRun, perStudent: TimeInterval = defaultPerStudent, startedAt: Date = Date(),
        refusalBreaker: TimeInterval = defaultRefusalBreaker
    ) {
        self.perRun = perRun
        self.perStudent = perStudent
        self.startedAt = startedAt
        self.refusalBreaker = refusalBreaker
    }

    /// When the run's model stage ends.
    package var runEnd: Date { startedAt.addingTimeInterval(perRun) }

    /// Why the run's model stage is over at `now`, or nil while it is not.
    package func runExpired(at now: Date) -> String? {
        now >= runEnd
            ? "the model stage's deadline for this run (\(Self.seconds(perRun))) passed; the remaining students get their local edits only"
            : nil
    }

    static func seconds(_ value: TimeInterval) -> String {
        value >= 60 && value.truncatingRemainder(dividingBy: 60) == 0 ? "\(Int(value / 60)) min" : "\(value) s"
    }
}

/// A cancellation token for one student's conversation: cancelled when the run is
/// interrupted (`parent`) or when `end` passes, whichever comes first. Checked every 50 ms
/// on a timer of its own, which `finish()` stops.
///
/// Unchecked only for the timer: `DispatchSourceTimer` is not `Sendable` in swift-corelibs-
/// libdispatch, though `resume()` and `cancel()` may be called from any thread; the one piece
/// of mutable state is in a `Mutex`.
final class DeadlineWatch: @unchecked Sendable {
    let token = CancellationToken()
    private let timer: DispatchSourceTimer
    private let expired: Mutex<Bool>

    init(end: Date, parent: CancellationToken?, breaker: ProviderBreaker? = nil) {
        timer = DispatchSource.makeTimerSource(queue: .global())
        let expiredAtStart = Date() >= end
        expired = Mutex(expiredAtStart)
        if expiredAtStart { token.cancel() }
        timer.schedule(deadline: .now(), repeating: .milliseconds(50))
        timer.setEventHandler { [token] in
            if parent?.isCancelled == true || breaker?.isOpen == true {
                token.cancel()
                return
            }
            if Date() >= end {
                self.expired.withLock { $0 = true }
                token.cancel()
            }
        }
        timer.resume()
    }

    /// Whether the deadline (not the parent) cancelled the token.
    var deadlinePassed: Bool { expired.withLock { $0 } }

    func finish() { timer.cancel() }
}
