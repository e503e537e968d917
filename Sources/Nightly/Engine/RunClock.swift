import Foundation

/// The clock of one run: the run's `now` (the real time, or `--now` for a reproduction) plus
/// the time the run has taken so far, read from a monotonic clock.
///
/// Every time a run records (its start and finish, each student's finish) comes from here, so
/// a run started with `--now` records a finish on the same timeline as its start (`log` shows
/// its duration, `status` its age), and a wall clock stepped by NTP mid-run bends no duration.
package struct RunClock: Sendable {
    package let start: Date
    private let origin = ContinuousClock.now

    package init(start: Date) { self.start = start }

    /// Seconds since the run started.
    package var elapsed: TimeInterval {
        let d = ContinuousClock.now - origin
        return Double(d.components.seconds) + Double(d.components.attoseconds) / 1e18
    }

    /// The run's present moment.
    package func now() -> Date { start.addingTimeInterval(elapsed) }

    /// Milliseconds between an earlier reading of `elapsed` and now.
    package func milliseconds(since earlier: TimeInterval) -> Int {
        Int(((elapsed - earlier) * 1000).rounded(.down))
    }
}
