/// Finds the chains among a user's one-off sessions (docs/planning.md §5.1–5.2).
///
/// Occurrences are grouped by `ChainKey` and sorted by start. Two neighbours link when their
/// local dates differ by exactly one day, or when they carry consecutive part numbers (n, n+1)
/// and lie at most `maxPartGap` days apart; times of day do not matter. Completed occurrences
/// take part in linking (a run of daily lessons with one done in the middle is still one run)
/// but are never members; skipped ones are invisible. Series never chain: their missed
/// sessions follow the series' own policy (§4).
package struct ChainDetector: Sendable {
    /// Consecutive parts link when at most this many days apart.
    package var maxPartGap: Int

    package init(maxPartGap: Int = 7) { self.maxPartGap = maxPartGap }

    /// The chains among `occurrences` (series occurrences among them are ignored), ordered by
    /// the start of their first member.
    ///
    /// - Parameter classes: the overdue class of each open occurrence; open ones without a
    ///   class (stale ones kept for a decision) link but are not members.
    package func chains(in occurrences: [Occurrence], classes: [OccurrenceID: OverdueClass]) -> [Chain] {
        var groups: [ChainKey: [Occurrence]] = [:]
        for o in occurrences where !o.isSeriesOccurrence && o.state != .skipped {
            groups[ChainKey(o), default: []].append(o)
        }
        var chains: [Chain] = []
        for (key, group) in groups where group.count >= 2 {
            let sorted = group.sorted { ($0.start, $0.id) < ($1.start, $1.id) }
            let parts = sorted.map { ChainKey.partNumber($0.title) }
            var runStart = 0
            for i in 1...sorted.count {
                if i < sorted.count && linked(sorted[i - 1], parts[i - 1], sorted[i], parts[i]) { continue }
                if var chain = chain(key: key, run: Array(sorted[runStart..<i]), classes: classes) {
                    chain.later = sorted[i...].filter { $0.state == .open }
                    chains.append(chain)
                }
                runStart = i
            }
        }
        return chains.sorted { ($0.first.start, $0.first.id) < ($1.first.start, $1.first.id) }
    }

    /// Whether two neighbours (in start order) link.
    package func linked(_ a: Occurrence, _ b: Occurrence) -> Bool {
        linked(a, ChainKey.partNumber(a.title), b, ChainKey.partNumber(b.title))
    }

    private func linked(_ a: Occurrence, _ partA: Int?, _ b: Occurrence, _ partB: Int?) -> Bool {
        // Decision: an all-day note and a timed session are different things and never link.
        guard a.allDay == b.allDay else { return false }
        let gap = a.start.date.days(until: b.start.date)
        if gap == 1 { return true }
        if let partA, let partB, partB == partA + 1, (0...maxPartGap).contains(gap) { return true }
        return false
    }

    /// The chain of one linked run (in start order), if it is one: at least two open
    /// occurrences, one of them overdue, and at least two members from the first overdue one on.
    private func chain(key: ChainKey, run: [Occurrence], classes: [OccurrenceID: OverdueClass]) -> Chain? {
        guard run.count >= 2, run.filter({ $0.state == .open }).count >= 2 else { return nil }
        let memberClass = run.map { o -> OverdueClass? in
            guard o.state == .open, let c = classes[o.id], c == .current || c == .overdue else { return nil }
            return c
        }
        guard let firstOverdue = memberClass.firstIndex(of: .overdue) else { return nil }
        let members = (firstOverdue..<run.count).filter { memberClass[$0] != nil }.map { run[$0] }
        // Decision: a run whose only member is its last missed session (the rest done or kept
        // stale) is a single session: the general search places it.
        guard members.count >= 2 else { return nil }
        return Chain(key: key, run: run, members: members)
    }
}
