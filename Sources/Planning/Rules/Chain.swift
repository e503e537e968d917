/// A linked run of one-off sessions of one course with at least one missed, re-laid as a
/// whole (docs/planning.md §5).
package struct Chain: Hashable, Sendable {
    package var key: ChainKey
    /// The whole linked run in start order, including completed (and kept stale) occurrences
    /// that link it but are not members.
    package var run: [Occurrence]
    /// s1…sn: the open occurrences from the first overdue one onward, in order.
    package var members: [Occurrence]
    /// The key's open one-off occurrences after the run, in start order: the next runs of the
    /// same course, which join the re-lay when a member's new date reaches them (§5.5).
    package var later: [Occurrence]

    package init(key: ChainKey, run: [Occurrence], members: [Occurrence], later: [Occurrence] = []) {
        self.key = key
        self.run = run
        self.members = members
        self.later = later
    }

    package var first: Occurrence { members[0] }
    package var memberIDs: Set<OccurrenceID> { Set(members.map(\.id)) }
}
