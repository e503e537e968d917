/// The general search of docs/planning.md §6: the best free slot for one session, near its old
/// time of day, as early as possible.
///
/// On each day from `from` to `from + horizonDays`, the candidate gaps are the day's study
/// windows minus busy intervals, minus everything before now (or `notBefore`), minus the
/// minutes a DST jump skips. In each gap long enough, the candidate start is the preferred time
/// of day clamped into the gap. Candidates rank by (day offset, |start − preferred|, smaller
/// gap, earlier start): the first day with any room wins, so a session is never pushed further
/// out than it has to be.
package struct SlotFinder: Sendable {
    package var windows: WeeklyWindows
    package var horizonDays: Int
    package var now: CivilDateTime
    /// The user's zone, for the minutes a spring-forward night skips; nil plans as if in UTC.
    package var zone: UserZone?

    package init(windows: WeeklyWindows, horizonDays: Int, now: CivilDateTime, zone: UserZone? = nil) {
        self.windows = windows
        self.horizonDays = horizonDays
        self.now = now
        self.zone = zone
    }

    package init(settings: UserSettings, now: CivilDateTime, zone: UserZone? = nil) {
        self.init(windows: settings.effectiveWindows, horizonDays: settings.horizonDays, now: now, zone: zone)
    }

    /// A timed slot of `length` minutes, or nil when nothing fits within the horizon.
    ///
    /// - Parameters:
    ///   - notBefore: an extra lower bound on the start (used to keep the parts of a split
    ///     session in order); the start is never before `now` either way.
    ///   - ignoring: occurrences that do not block, typically the one being placed.
    ///   - allowed: days the search may use (docs/planning.md §6.2: a day holding another open session
    ///     of the same course, or on or after the course's next session, is not a candidate).
    package func slot(
        length: Int, preferredTime: TimeOfDay, from: CivilDate, notBefore: CivilDateTime? = nil,
        busy: BusyIndex, ignoring: Set<OccurrenceID> = [],
        allowed: (CivilDate) -> Bool = { _ in true }
    ) -> TimeRange? {
        guard length > 0, horizonDays >= 0 else { return nil }
        let floor = max(now.minuteNumber, notBefore?.minuteNumber ?? Int.min)
        for offset in 0...horizonDays {
            let day = from.adding(days: offset)
            guard allowed(day) else { continue }
            let preferred = day.dayNumber * 1440 + preferredTime.minutes
            // (|start − preferred|, gap length, start): smaller is better.
            var best: (Int, Int, Int)?
            for gap in gaps(on: day, notBefore: floor, busy: busy, ignoring: ignoring) where gap.count >= length {
                let start = min(max(preferred, gap.lowerBound), gap.upperBound - length)
                let candidate = (abs(start - preferred), gap.count, start)
                if best.map({ candidate < $0 }) ?? true { best = candidate }
            }
            if let best {
                return TimeRange(
                    start: CivilDateTime(minuteNumber: best.2),
                    end: CivilDateTime(minuteNumber: best.2 + length))
            }
        }
        return nil
    }

    /// The first date from `from` (never before today) within the horizon on which an all-day
    /// occurrence of `days` days meets no other all-day occurrence of the same chain key.
    package func allDaySlot(
        days: Int, key: ChainKey, from: CivilDate, busy: BusyIndex,
        ignoring: Set<OccurrenceID> = [], allowed: (CivilDate) -> Bool = { _ in true }
    ) -> CivilDate? {
        guard horizonDays >= 0 else { return nil }
        for offset in 0...horizonDays {
            let day = from.adding(days: offset)
            guard day >= now.date, allowed(day) else { continue }
            if busy.allDayConflict(key: key, first: day, last: day.adding(days: max(days, 1) - 1), ignoring: ignoring)
                == nil
            {
                return day
            }
        }
        return nil
    }

    /// The free gaps of `day` in civil minute numbers, in order: windows minus busy, minus
    /// everything before `notBefore`, minus skipped DST minutes.
    package func gaps(on day: CivilDate, notBefore: Int, busy: BusyIndex, ignoring: Set<OccurrenceID> = []) -> [Range<
        Int
    >] {
        let base = day.dayNumber * 1440
        let dayWindows = windows.windows(on: day.weekday)
        guard !dayWindows.isEmpty else { return [] }
        // The order of blockers with equal starts does not change the gaps, so the busy
        // index's intervals need no ordering by id first.
        var blockers = busy.timedIntervals(on: day, ignoring: ignoring)
        if notBefore > base { blockers.append(base..<min(notBefore, base + 1440)) }
        // The skipped minutes, and the minute before them: a session may neither start nor end
        // at a wall time the clock skips (docs/planning.md §1.3), and an end at the gap's first minute
        // names one.
        if let skipped = zone?.skippedMinutes(on: day) {
            blockers.append((skipped.lowerBound - 1)..<skipped.upperBound)
        }
        blockers.sort { $0.lowerBound < $1.lowerBound }
        var result: [Range<Int>] = []
        for w in dayWindows {
            var cursor = base + w.start.minutes
            let end = base + w.end.minutes
            for b in blockers where b.upperBound > cursor && b.lowerBound < end {
                if b.lowerBound > cursor { result.append(cursor..<b.lowerBound) }
                cursor = max(cursor, b.upperBound)
                if cursor >= end { break }
            }
            if cursor < end { result.append(cursor..<end) }
        }
        return result
    }
}
