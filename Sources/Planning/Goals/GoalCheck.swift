/// The nightly check of a goal against the plan (docs/model.md §17): deterministic, pure, and
/// judged in the student's zone (the plan's civil times are the student's wall clock).
///
/// Decision: the days checked are today … today + 6 (`days`), never past the last day the
/// model may place a session on (`through`, today + `horizonDays`). A week holds every weekday
/// once, so a weekday goal is checked on each of its days, and the model can mend every day it
/// is told about. A total before a date is checked once its last day lies within `through`
/// (before that the model still has days it cannot see in full), over today … the day before,
/// plus the sessions of the category completed since the goal was stated (`countedFrom`): the
/// revision a student has done counts toward "10 hours before the exam" (counted from today
/// only, every hour done was asked for again the next night, issue 24's simulation planned up to
/// three times the total). Only what the plan holds is counted: the night loads the last
/// `deleteAfterDays` + 1 days of history (`PlanningRange`), so revision done before them is not.
///
/// What counts: timed sessions that are not skipped (open or completed; a deleted session is
/// not in the plan), by their start's day, of the goal's category (case-insensitive; `all`
/// counts every category). All-day entries have no minutes and are not sessions for the check.
/// A violation is an open timed session of the checked days that breaks `none-after` or
/// `none-on` (completed ones are history nobody changes).
package struct GoalCheck: Hashable, Sendable {
    /// The days checked from today.
    package static let days = 7
    /// A gap shorter than this is no room to mend a shortfall in.
    package static let shortestRoom = 15
    /// How near a total's date turns its shortfall soon (`Shortfall.soon`).
    package static let totalSoonDays = 3

    /// A day (or a run-up to a date) with fewer minutes than the goal asks.
    package struct Shortfall: Hashable, Sendable {
        package var term: GoalTerm
        /// The day short of an `at-least` term; the `before` date of a `total` term.
        package var date: CivilDate
        package var planned: Int
        package var wanted: Int
        /// Free minutes inside the windows, after now, where the missing minutes could go (the
        /// day itself; today … the day before a total's date), not counting time a `none-after`
        /// or `none-on` term of the same goal forbids.
        package var room: Int

        /// The day is today or tomorrow (a total: its date is at most `GoalCheck.totalSoonDays`
        /// away). A shortfall the model left as it was is asked about once more when it turns
        /// soon: a lazy answer days ahead should not cost the student the day itself.
        package var soon = false

        package var missing: Int { max(0, wanted - planned) }
        /// Whether the plan has room to mend it, at least in part.
        package var hasRoom: Bool { room >= min(missing, GoalCheck.shortestRoom) }

        /// Stable across nights while nothing changes: the day, the term, the amount, and
        /// whether it is soon.
        package var key: String { "s|\(date)|\(term)|\(planned)" + (soon ? "|soon" : "") }
    }

    /// An open session that breaks a `none-after` or `none-on` term.
    package struct Violation: Hashable, Sendable {
        package var term: GoalTerm
        package var id: OccurrenceID
        package var title: String
        package var start: CivilDateTime
        package var end: CivilDateTime

        package var key: String { "v|\(id)|\(start)|\(end)|\(term)" }
    }

    package let from: CivilDate
    package let through: CivilDate
    package private(set) var shortfalls: [Shortfall] = []
    package private(set) var violations: [Violation] = []

    /// Whether the goal holds on the checked days.
    package var holds: Bool { shortfalls.isEmpty && violations.isEmpty }

    /// Stable keys of everything found, for remembering what the model was asked about.
    package var keys: Set<String> { Set(shortfalls.map(\.key) + violations.map(\.key)) }

    /// - Parameters:
    ///   - now: the student's local time.
    ///   - through: the last day a session may be placed on (today + `horizonDays`).
    ///   - days: the days checked from today (`GoalCheck.days`; a model planning ahead may look
    ///     farther).
    ///   - countedFrom: the day the goal was stated: a total also counts the sessions completed
    ///     from then until yesterday (nil: from today only).
    package init(
        goal: Goal, plan: UserPlan, now: CivilDateTime, through: CivilDate, days: Int = GoalCheck.days,
        countedFrom: CivilDate? = nil
    ) {
        let today = now.date
        from = today
        self.through = min(through, today.adding(days: max(1, days) - 1))
        guard goal.isCheckable, self.through >= today else { return }
        let terms = goal.terms
        let last = terms.reduce(self.through) { acc, t in
            if case .totalBefore(_, _, let date) = t, date.adding(days: -1) <= through {
                return max(acc, date.adding(days: -1))
            }
            return acc
        }
        let sessions = plan.occurrences(from: today, through: last).filter {
            !$0.allDay && $0.state != .skipped && $0.start.date >= today
        }
        // The free time is worked out only for a plan that falls short (most nights none does).
        var counter: RoomCounter?
        func room(_ days: ClosedRange<CivilDate>) -> Int {
            if counter == nil { counter = RoomCounter(plan: plan, now: now, through: last, terms: terms) }
            return counter!.free(on: days)
        }
        func minutes(on days: ClosedRange<CivilDate>, category: String?) -> Int {
            sessions.filter { days.contains($0.start.date) && GoalCheck.matches($0.category, category) }
                .reduce(0) { $0 + $1.lengthMinutes }
        }
        for term in terms {
            switch term {
            case .atLeast(let wanted, let category, let weekdays):
                var day = today
                while day <= self.through {
                    if weekdays.contains(day.weekday) {
                        let planned = minutes(on: day...day, category: category)
                        if planned < wanted {
                            shortfalls.append(
                                Shortfall(
                                    term: term, date: day, planned: planned, wanted: wanted,
                                    room: room(day...day), soon: day <= today.adding(days: 1)))
                        }
                    }
                    day = day.adding(days: 1)
                }
            case .totalBefore(let wanted, let category, let date):
                let lastDay = date.adding(days: -1)
                guard lastDay >= today, lastDay <= through else { continue }
                var planned = minutes(on: today...lastDay, category: category)
                if let first = countedFrom, first < today {
                    let yesterday = today.adding(days: -1)
                    planned += plan.occurrences(from: first, through: yesterday).filter {
                        !$0.allDay && $0.state == .completed && (first...yesterday).contains($0.start.date)
                            && GoalCheck.matches($0.category, category)
                    }.reduce(0) { $0 + $1.lengthMinutes }
                }
                if planned < wanted {
                    shortfalls.append(
                        Shortfall(
                            term: term, date: date, planned: planned, wanted: wanted, room: room(today...lastDay),
                            soon: date <= today.adding(days: GoalCheck.totalSoonDays)))
                }
            case .noneAfter, .noneOn:
                for o in sessions where o.state == .open && o.start.date <= self.through && GoalCheck.breaks(o, term) {
                    violations.append(Violation(term: term, id: o.id, title: o.title, start: o.start, end: o.end))
                }
            }
        }
        shortfalls.sort { ($0.date, $0.term.description) < ($1.date, $1.term.description) }
        violations.sort { ($0.start, $0.id.description) < ($1.start, $1.id.description) }
    }

    static func matches(_ category: String, _ wanted: String?) -> Bool {
        guard let wanted else { return true }
        return category.lowercased() == wanted.lowercased()
    }

    /// Whether a timed session breaks a `none-after` or `none-on` term.
    static func breaks(_ o: Occurrence, _ term: GoalTerm) -> Bool {
        switch term {
        case .noneAfter(let time):
            // Ends after the time, or runs into the next day (the time is at most 23:59).
            return o.end.date > o.start.date || o.end.time > time
        case .noneOn(let days): return days.contains(o.start.date.weekday)
        case .atLeast, .totalBefore: return false
        }
    }
}

/// Free minutes inside the windows after now, less what the goal's own `none-after` and
/// `none-on` terms forbid, memoised per day.
private struct RoomCounter {
    let finder: SlotFinder
    let busy: BusyIndex
    let now: CivilDateTime
    let latest: Int?
    let closedDays: Set<Weekday>
    var perDay: [CivilDate: Int] = [:]

    init(plan: UserPlan, now: CivilDateTime, through: CivilDate, terms: [GoalTerm]) {
        finder = SlotFinder(settings: plan.settings, now: now, zone: plan.zone)
        busy = BusyIndex(plan.occurrences(from: now.date.adding(days: -1), through: through))
        self.now = now
        var latest: Int?
        var closed: Set<Weekday> = []
        for t in terms {
            if case .noneAfter(let time) = t { latest = min(latest ?? time.minutes, time.minutes) }
            if case .noneOn(let days) = t { closed.formUnion(days) }
        }
        self.latest = latest
        closedDays = closed
    }

    mutating func free(on days: ClosedRange<CivilDate>) -> Int {
        var total = 0
        var day = days.lowerBound
        while day <= days.upperBound {
            total += free(on: day)
            day = day.adding(days: 1)
        }
        return total
    }

    mutating func free(on day: CivilDate) -> Int {
        if let known = perDay[day] { return known }
        var minutes = 0
        if !closedDays.contains(day.weekday) {
            let cap = latest.map { day.dayNumber * 1440 + $0 } ?? Int.max
            for gap in finder.gaps(on: day, notBefore: now.minuteNumber, busy: busy) {
                let end = min(gap.upperBound, cap)
                if end - gap.lowerBound >= GoalCheck.shortestRoom { minutes += end - gap.lowerBound }
            }
        }
        perDay[day] = minutes
        return minutes
    }
}
