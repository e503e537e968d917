/// What a `could-not-fit` flag leaves the model that the rules lack (docs/model.md §1): the
/// rules place a missed session only whole, so a flag means no gap before the course's next
/// session holds it. A shorter gap there (at least `GoalCheck.shortestRoom` minutes, on a day
/// without another session of the course, inside the windows and after now) is an option: the
/// model may shorten the session into it. Without one the flag is the student's, and asking the
/// model would give it nothing to do.
package enum FlagRoom {
    /// The longest such gap for `session` on `plan`, through `through` (the last day the model
    /// may place on), or nil.
    package static func shortened(
        for session: Occurrence, in plan: UserPlan, now: CivilDateTime, through: CivilDate
    ) -> TimeRange? {
        guard session.state == .open, !session.allDay else { return nil }
        let key = ChainKey(session)
        let ahead = plan.occurrences(from: now.date, through: through).filter {
            $0.state == .open && $0.id != session.id && ChainKey($0) == key
        }
        // Days that hold a session of the course are not candidates, and the course's next
        // session bounds the search (G2).
        let held = Set(ahead.map(\.start.date))
        let course = ahead.filter { session.isSeriesOccurrence ? $0.taskID == session.taskID : !$0.isSeriesOccurrence }
        let before = course.map(\.start.date).filter { $0 >= now.date }.min() ?? through.adding(days: 1)
        let finder = SlotFinder(settings: plan.settings, now: now, zone: plan.zone)
        let busy = BusyIndex(plan.occurrences(from: now.date.adding(days: -1), through: through))
        var longest: Range<Int>?
        var day = now.date
        while day < before && day <= through {
            defer { day = day.adding(days: 1) }
            guard !held.contains(day) else { continue }
            for gap in finder.gaps(on: day, notBefore: now.minuteNumber, busy: busy, ignoring: [session.id])
            where gap.count >= GoalCheck.shortestRoom && gap.count > (longest?.count ?? 0) {
                longest = gap
            }
        }
        return longest.map {
            TimeRange(
                start: CivilDateTime(minuteNumber: $0.lowerBound), end: CivilDateTime(minuteNumber: $0.upperBound))
        }
    }
}
