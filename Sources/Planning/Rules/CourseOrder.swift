/// G2 (docs/planning.md §3, order and pace) for a move proposed from outside the rules — the
/// model's tool calls (docs/model.md §13). The rules keep G2 through the bounds of their own
/// search (docs/planning.md §6); this is the same reading for one move at a time, so a move the
/// rules would never make is refused when the model proposes it:
///
/// - a session goes after the last day held by a session of its course that came before it in
///   `reference` and now lies ahead (one with the same title does not hold it back: identical
///   titles are interchangeable), and before the first day held by one that came after it
///   (for a weekly series: before next week's session);
/// - no day gets a second open session of the key unless it held that many in `reference`;
/// - a date the student skipped in a series never receives a session of that series (G3).
///
/// A course is the one-off sessions of a key, or one series. `reference` is the plan whose
/// order counts (for the model: the plan it was shown, after tonight's rules); a session that
/// is not in it (one the model created) ranks by where it is now.
package struct CourseOrder: Sendable {
    /// A session that bounds another: its title and day, for the refusal's words.
    package struct Neighbour: Hashable, Sendable {
        package var title: String
        package var date: CivilDate
    }

    /// Where one session may go.
    package struct Bounds: Hashable, Sendable {
        /// The first day it may use.
        package var from: CivilDate
        /// The session ahead of it in the course that sets `from`, if any.
        package var after: Neighbour?
        /// The course's next session: from its day on, this one may not go.
        package var before: Neighbour?
        /// Days that already hold as many sessions of the key as they may, with one's title.
        package var taken: [CivilDate: String] = [:]
        /// Days the student skipped in the series.
        package var skipped: Set<CivilDate> = []

        package init(from: CivilDate) { self.from = from }

        /// The rule a placement on `day` breaks, or nil.
        package func error(for day: CivilDate) -> PlacementError? {
            if day < from, let a = after { return .beforeEarlierSession(title: a.title, date: a.date) }
            if let b = before, day >= b.date { return .notBeforeNextSession(title: b.title, date: b.date) }
            if let title = taken[day] { return .courseDayTaken(title: title, date: day) }
            if skipped.contains(day) { return .skippedDay(date: day) }
            return nil
        }

        package func allows(_ day: CivilDate) -> Bool { error(for: day) == nil }
    }

    package let reference: UserPlan
    package let today: CivilDate
    /// The last day a placement can use: sessions beyond it bound nothing that could be placed.
    package let through: CivilDate

    package init(reference: UserPlan, today: CivilDate, through: CivilDate) {
        self.reference = reference
        self.today = today
        self.through = through
    }

    /// Where `o` may go in `plan` (the plan as it is now, other moves included).
    package func bounds(of o: Occurrence, in plan: UserPlan) -> Bounds {
        let key = ChainKey(o)
        let rank = self.rank(o)
        var bounds = Bounds(from: today)
        var others: [CivilDate: [Occurrence]] = [:]
        for x in plan.occurrences(from: today, through: through)
        where x.state == .open && x.id != o.id && x.start.date >= today && ChainKey(x) == key {
            others[x.start.date, default: []].append(x)
            // The order is kept within a course: the one-off sessions of the key, or one series.
            guard o.isSeriesOccurrence ? x.taskID == o.taskID : !x.isSeriesOccurrence else { continue }
            if self.rank(x) < rank {
                if x.title != o.title, x.lastDate >= bounds.from {
                    bounds.from = x.lastDate.adding(days: 1)
                    bounds.after = Neighbour(title: x.title, date: x.start.date)
                }
            } else if bounds.before.map({ x.start.date < $0.date }) ?? true {
                bounds.before = Neighbour(title: x.title, date: x.start.date)
            }
        }
        for (day, sessions) in others {
            let held = reference.occurrences(from: day, through: day).count {
                $0.state == .open && $0.start.date == day && ChainKey($0) == key
            }
            if sessions.count >= max(1, held) { bounds.taken[day] = sessions[0].title }
        }
        if o.isSeriesOccurrence {
            for mark in plan.overrides.values where mark.taskID == o.taskID && mark.state == .skipped {
                bounds.skipped.insert(mark.originalDate)
                if let start = mark.start { bounds.skipped.insert(start.date) }
            }
        }
        return bounds
    }

    /// A session's place in its course's order: where `reference` had it.
    private func rank(_ o: Occurrence) -> (CivilDateTime, OccurrenceID) {
        (reference.occurrence(o.id)?.start ?? o.start, o.id)
    }
}
