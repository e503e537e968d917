import Foundation

/// The UTC offsets of one time zone, remembered per stretch of time between two of its
/// transitions, so a night's planning asks ICU a few times per user instead of hundreds.
///
/// Expanding a plan converts every series occurrence (`UserZone.existing`, two offset probes
/// each), and Foundation's `TimeZone.secondsFromGMT` goes through ICU behind one lock for the
/// whole process, which multi-threaded runs queue on. An offset holds from one transition to
/// the next, so the first probe of a stretch learns the whole stretch: from the probed instant
/// up to the next transition ICU reports (`nextDaylightSavingTimeTransition`, which reports
/// every change of offset, standard-time changes included). Later probes inside a learned
/// stretch are answered here; the answers are exactly ICU's.
///
/// A class, because the memo is shared by every copy of the `UserZone` that owns it (a plan
/// and its working copies); the lock makes it safe to share between threads.
final class ZoneOffsetCache: @unchecked Sendable {
    /// `start ..< end` (seconds since 1970) all have `offset`.
    private struct Stretch {
        var start: Double
        var end: Double
        var offset: Int
    }

    private let timeZone: TimeZone
    private let lock = NSLock()
    /// Sorted by start, never overlapping.
    private var stretches: [Stretch] = []
    /// Where the previous answer came from: probes come in runs close to each other.
    private var last = 0

    init(timeZone: TimeZone) { self.timeZone = timeZone }

    /// The zone's offset from UTC in seconds at `seconds` since 1970 (`secondsFromGMT`).
    func secondsFromGMT(at seconds: Double) -> Int {
        lock.lock()
        defer { lock.unlock() }
        if last < stretches.count, stretches[last].start <= seconds, seconds < stretches[last].end {
            return stretches[last].offset
        }
        // The first stretch that ends after `seconds`; it holds `seconds` unless it starts later.
        var low = 0, high = stretches.count
        while low < high {
            let mid = (low + high) / 2
            if stretches[mid].end <= seconds { low = mid + 1 } else { high = mid }
        }
        if low < stretches.count, stretches[low].start <= seconds {
            last = low
            return stretches[low].offset
        }
        let instant = Date(timeIntervalSince1970: seconds)
        let offset = timeZone.secondsFromGMT(for: instant)
        let end = timeZone.nextDaylightSavingTimeTransition(after: instant)?.timeIntervalSince1970 ?? .infinity
        if low < stretches.count, stretches[low].end == end {
            // An earlier probe of the same stretch: it now reaches back to here.
            stretches[low].start = seconds
        } else {
            stretches.insert(Stretch(start: seconds, end: end, offset: offset), at: low)
        }
        last = low
        return offset
    }
}
