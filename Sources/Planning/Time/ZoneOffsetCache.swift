import Foundation
import Synchronization

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
/// and its working copies); a mutex makes it safe to share between threads.
final class ZoneOffsetCache: Sendable {
    /// `start ..< end` (seconds since 1970) all have `offset`.
    private struct Stretch {
        var start: Double
        var end: Double
        var offset: Int
    }

    /// What has been learnt so far.
    private struct Memo {
        /// Sorted by start, never overlapping.
        var stretches: [Stretch] = []
        /// Where the previous answer came from: probes come in runs close to each other.
        var last = 0
    }

    private let timeZone: TimeZone
    private let memo = Mutex(Memo())

    init(timeZone: TimeZone) { self.timeZone = timeZone }

    /// The zone's offset from UTC in seconds at `seconds` since 1970 (`secondsFromGMT`).
    func secondsFromGMT(at seconds: Double) -> Int {
        memo.withLock { offset(at: seconds, memo: &$0) }
    }

    /// The offsets at two instants, under one lock (`UserZone` probes a day either side).
    func secondsFromGMT(at a: Double, _ b: Double) -> (Int, Int) {
        memo.withLock { (offset(at: a, memo: &$0), offset(at: b, memo: &$0)) }
    }

    private func offset(at seconds: Double, memo: inout Memo) -> Int {
        if memo.last < memo.stretches.count, memo.stretches[memo.last].start <= seconds,
            seconds < memo.stretches[memo.last].end
        {
            return memo.stretches[memo.last].offset
        }
        // The first stretch that ends after `seconds`; it holds `seconds` unless it starts later.
        var low = 0
        var high = memo.stretches.count
        while low < high {
            let mid = (low + high) / 2
            if memo.stretches[mid].end <= seconds { low = mid + 1 } else { high = mid }
        }
        if low < memo.stretches.count, memo.stretches[low].start <= seconds {
            memo.last = low
            return memo.stretches[low].offset
        }
        let instant = Date(timeIntervalSince1970: seconds)
        let offset = timeZone.secondsFromGMT(for: instant)
        let end = timeZone.nextDaylightSavingTimeTransition(after: instant)?.timeIntervalSince1970 ?? .infinity
        if low < memo.stretches.count, memo.stretches[low].end == end {
            // An earlier probe of the same stretch: it now reaches back to here.
            memo.stretches[low].start = seconds
        } else {
            memo.stretches.insert(Stretch(start: seconds, end: end, offset: offset), at: low)
        }
        memo.last = low
        return offset
    }
}
