import Foundation

extension UserZone {
    /// The civil minutes of `date` that never show on the clock because it jumps forward (a
    /// spring-forward DST gap), as civil minute numbers; nil on every other day.
    ///
    /// Planning works in civil minutes, and a session placed inside these minutes would show at a
    /// different time than planned (or run shorter than its length), so the slot search and the
    /// placement rules treat them as unavailable. Zones change their offset at most once in a few
    /// days, which is what makes two offset probes around the day enough to rule a day out.
    package func skippedMinutes(on date: CivilDate) -> Range<Int>? {
        let dayStart = date.dayNumber * 86_400
        let dayEnd = dayStart + 86_400
        // Instants that can show a wall-clock time of this day lie within ±14 h of its UTC reading.
        let low = dayStart - 50_400
        let high = dayEnd + 50_400
        let before = offset(at: low)
        let after = offset(at: high)
        guard after > before else { return nil } // no change, or clocks fall back (nothing skipped)
        // First instant (to the second) that already has the later offset.
        var lo = low
        var hi = high
        while hi - lo > 1 {
            let mid = lo + (hi - lo) / 2
            if offset(at: mid) == after { hi = mid } else { lo = mid }
        }
        // Wall clock reads `hi + before` just before the jump and `hi + after` just after it.
        let from = Swift.max(hi + before, dayStart)
        let to = Swift.min(hi + after, dayEnd)
        guard from < to else { return nil }
        return (from / 60)..<((to + 59) / 60)
    }

    private func offset(at seconds: Int) -> Int {
        secondsFromGMT(at: Double(seconds))
    }
}
