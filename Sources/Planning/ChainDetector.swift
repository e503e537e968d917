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
        // Everything below works on positions in `occurrences`, and each occurrence's key,
        // class and time of day is looked up once: a plan has a few hundred occurrences, and
        // hashing ids and titles again for every comparison was most of the cost.
        let visible = occurrences.indices.filter { occurrences[$0].state != .skipped }
        var groups: [[Int]] = []
        var groupOfKey: [ChainKey: Int] = [:]
        // A series repeats its title and category: its key is normalised once, and found again
        // by task id. A one-off task is the only one with its id, so it is not remembered.
        var groupOfSeries: [String: Int] = [:]
        var keys: [ChainKey] = []
        for i in visible {
            let group: Int
            let isSeries = occurrences[i].isSeriesOccurrence
            if isSeries, let known = groupOfSeries[occurrences[i].id.taskID] {
                group = known
            } else {
                let key = ChainKey(occurrences[i])
                if let known = groupOfKey[key] {
                    group = known
                } else {
                    group = groups.count
                    groupOfKey[key] = group
                    groups.append([])
                    keys.append(key)
                }
                if isSeries { groupOfSeries[occurrences[i].id.taskID] = group }
            }
            groups[group].append(i)
        }

        var chains: [Chain] = []
        for (group, positions) in groups.enumerated() where positions.count >= 2 {
            let sorted = inStartOrder(positions, of: occurrences)
            // What linking compares, read once per occurrence: an occurrence is a large value,
            // and handing it around copies its strings.
            let days = sorted.map { occurrences[$0].start.date.dayNumber }
            let allDay = sorted.map { occurrences[$0].allDay }
            let times = sorted.indices.map { allDay[$0] ? nil : timeOfDay(occurrences[sorted[$0]]) }
            var runStart = 0
            for i in 1...sorted.count {
                if i < sorted.count && linked(day: days[i - 1], allDay: allDay[i - 1], time: times[i - 1],
                                              to: days[i], allDay: allDay[i], time: times[i]) { continue }
                if let chain = chain(key: keys[group], run: sorted[runStart..<i], of: occurrences, classes: classes) {
                    chains.append(chain)
                }
                runStart = i
            }
        }
        return chains.sorted { ($0.first.start, $0.first.id) < ($1.first.start, $1.first.id) }
    }

    /// `positions` sorted by the occurrences' (start, id). The planner hands them over in that
    /// order already, so that is checked first.
    private func inStartOrder(_ positions: [Int], of occurrences: [Occurrence]) -> [Int] {
        func before(_ a: Int, _ b: Int) -> Bool {
            let x = occurrences[a].start.minuteNumber, y = occurrences[b].start.minuteNumber
            return x != y ? x < y : occurrences[a].id < occurrences[b].id
        }
        for i in positions.indices.dropFirst() where !before(positions[i - 1], positions[i]) {
            return positions.sorted(by: before)
        }
        return positions
    }

    /// Whether two neighbours (in start order) link.
    public func linked(_ a: Occurrence, _ b: Occurrence, timeOfDay: (Occurrence) -> TimeOfDay = { $0.start.time }) -> Bool {
        linked(day: a.start.date.dayNumber, allDay: a.allDay, time: a.allDay ? nil : timeOfDay(a),
               to: b.start.date.dayNumber, allDay: b.allDay, time: b.allDay ? nil : timeOfDay(b))
    }

    /// The link rule on what it compares: local day numbers, all-day flags and start times of
    /// day (nil for all-day ones, which link by date alone).
    private func linked(day a: Int, allDay allDayA: Bool, time timeA: TimeOfDay?,
                        to b: Int, allDay allDayB: Bool, time timeB: TimeOfDay?) -> Bool {
        guard allDayA == allDayB else { return false } // an all-day note and a timed session are different things
        let gap = b - a
        guard gap >= 1, gap <= maxDayGap else { return false }
        guard let timeA, let timeB else { return true }
        return abs(timeA.minutes - timeB.minutes) <= maxTimeDifference
    }

    /// The chain of one linked run (positions in `occurrences`, in start order), if it is one.
    private func chain(key: ChainKey, run: ArraySlice<Int>, of occurrences: [Occurrence],
                       classes: [OccurrenceID: OverdueClass]) -> Chain? {
        guard run.count >= 2 else { return nil } // a chain has two members at least
        // Members are open and current or overdue; nil marks the ones that only link.
        let memberClass = run.map { i -> OverdueClass? in
            guard occurrences[i].state == .open, let c = classes[occurrences[i].id], c == .current || c == .overdue else { return nil }
            return c
        }
        guard let firstOverdue = memberClass.firstIndex(of: .overdue) else { return nil }
        let members = memberClass[firstOverdue...].indices.filter { memberClass[$0] != nil }
        guard members.count >= 2 else { return nil }
        return Chain(key: key, run: run.map { occurrences[$0] }, members: members.map { occurrences[run[run.startIndex + $0]] })
    }
}
