/// Finds the chains among a user's occurrences (planning.md §3.1–3.3).
///
/// Occurrences are grouped by `ChainKey` and sorted by start; neighbours link when their local
/// dates are one day apart and their start times of day are close. Completed occurrences take
/// part in linking (a run of daily lessons with one done in the middle is still one run) but
/// are never members; skipped ones are invisible.
public struct ChainDetector: Sendable {
    /// Neighbours link when their dates differ by at least one and at most this many days.
    public var maxDayGap: Int
    /// …and their start times of day differ by at most this many minutes (timed ones only).
    public var maxTimeDifference: Int

    public init(maxDayGap: Int = 1, maxTimeDifference: Int = 30) {
        self.maxDayGap = maxDayGap; self.maxTimeDifference = maxTimeDifference
    }

    /// The chains among `occurrences`, ordered by the start of their first member.
    ///
    /// - Parameters:
    ///   - classes: the overdue class of each open occurrence; open ones without a class (for
    ///     example stale ones kept for a decision) link but are not members.
    ///   - timeOfDay: the start time of day used for linking. The planner passes a series'
    ///     own time for unmoved series occurrences, so a session pushed forward by a DST gap
    ///     (02:30 → 03:30) still links with its neighbours.
    public func chains(in occurrences: [Occurrence], classes: [OccurrenceID: OverdueClass],
                       timeOfDay: (Occurrence) -> TimeOfDay = { $0.start.time }) -> [Chain] {
        var byKey: [ChainKey: [Occurrence]] = [:]
        var keys: [String: [String: ChainKey]] = [:] // a series repeats its title; normalise it once
        for o in occurrences where o.state != .skipped {
            let key = keys[o.category, default: [:]][o.title] ?? ChainKey(o)
            keys[o.category, default: [:]][o.title] = key
            byKey[key, default: []].append(o)
        }
        var chains: [Chain] = []
        for (key, group) in byKey where group.count >= 2 {
            let sorted = group.sorted { ($0.start, $0.id) < ($1.start, $1.id) }
            var runStart = 0
            for i in 1...sorted.count {
                if i < sorted.count && linked(sorted[i - 1], sorted[i], timeOfDay: timeOfDay) { continue }
                if let chain = chain(key: key, run: Array(sorted[runStart..<i]), classes: classes) {
                    chains.append(chain)
                }
                runStart = i
            }
        }
        return chains.sorted { ($0.first.start, $0.first.id) < ($1.first.start, $1.first.id) }
    }

    /// Whether two neighbours (in start order) link.
    public func linked(_ a: Occurrence, _ b: Occurrence, timeOfDay: (Occurrence) -> TimeOfDay = { $0.start.time }) -> Bool {
        guard a.allDay == b.allDay else { return false } // an all-day note and a timed session are different things
        let gap = a.start.date.days(until: b.start.date)
        guard gap >= 1, gap <= maxDayGap else { return false }
        if a.allDay { return true }
        return abs(timeOfDay(a).minutes - timeOfDay(b).minutes) <= maxTimeDifference
    }

    private func chain(key: ChainKey, run: [Occurrence], classes: [OccurrenceID: OverdueClass]) -> Chain? {
        func isMember(_ o: Occurrence) -> Bool {
            o.state == .open && (classes[o.id] == .current || classes[o.id] == .overdue)
        }
        guard let firstOverdue = run.firstIndex(where: { isMember($0) && classes[$0.id] == .overdue }) else { return nil }
        guard run.lazy.filter(isMember).count >= 2 else { return nil }
        let members = run[firstOverdue...].filter(isMember)
        guard members.count >= 2 else { return nil }
        return Chain(key: key, run: run, members: members)
    }
}
