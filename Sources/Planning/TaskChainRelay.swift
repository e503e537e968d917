extension PostponementPass {
    /// Re-lays a chain of one-off tasks (planning.md §3.4, task chain): s1 goes to today's slot
    /// and each next member to the day after the day its predecessor now holds, at its own time
    /// of day and length. A target that is past, taken by a non-member or outside the windows
    /// sends that member to the general search from that day, and the members after it
    /// continue from the day after the one it got. So the order is kept and no day holds two
    /// members.
    ///
    /// A member that finds no slot at all stays where it was (flagged); the members after it
    /// continue from the day after its target, as if it had taken that day.
    mutating func relay(_ chain: Chain, firstAt first: TimeRange) {
        var day = today
        var pending = chain.memberIDs
        for (i, m) in chain.members.enumerated() {
            let target = i == 0 ? first : slot(for: m, on: day)
            ensureCovered(through: target.end.date.adding(days: 1))
            let usable = i == 0 || PlacementValidator.check(
                start: target.start, end: target.end, allDay: m.allDay, key: chain.key, ignoring: pending,
                busy: busy, windows: windows, rule: windowRule(for: m), now: now, zone: zone) == nil
            pending.remove(m.id)
            let reason = reason(for: m, in: chain)
            if usable {
                move(m, to: target, reason: reason)
                day = (m.allDay ? target.end.date : target.end.adding(minutes: -1).date).adding(days: 1)
            } else if let last = searchAndPlace(m, from: day, reason: reason, alsoMoving: pending) {
                day = last.adding(days: 1)
            } else {
                day = day.adding(days: 1)
            }
        }
    }
}
