/// A run of daily sessions with at least one missed, postponed as a whole (planning.md §3).
public struct Chain: Hashable, Sendable {
    public var key: ChainKey
    /// The whole linked run in start order, including completed (and kept stale) occurrences
    /// that link it but are not members.
    public var run: [Occurrence]
    /// s1…sn: the open occurrences from the first overdue one onward, in order.
    public var members: [Occurrence]

    public init(key: ChainKey, run: [Occurrence], members: [Occurrence]) {
        self.key = key; self.run = run; self.members = members
    }

    public var first: Occurrence { members[0] }
    public var memberIDs: Set<OccurrenceID> { Set(members.map(\.id)) }

    /// The series every member belongs to, when there is exactly one: such a chain slides the
    /// series instead of re-laying occurrences. A run mixing one-off tasks and series, or two
    /// series that share a title, is re-laid like a task chain.
    public var seriesID: String? {
        guard let firstID = members.first?.id, firstID.originalDate != nil,
              members.allSatisfy({ $0.id.taskID == firstID.taskID && $0.id.originalDate != nil }) else { return nil }
        return firstID.taskID
    }
}
