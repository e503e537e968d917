import Foundation

/// The one place where the placement rules live (docs/planning.md §1, §3, §4; docs/model.md §12 "the model
/// proposes, the rules dispose"): time order, completed history, the past, DST gaps, study
/// windows and overlaps. The postponer, the model's tool calls and undo all ask it, so a slot
/// the rules would never choose is also refused when someone else proposes it.
///
/// Busy means the timed intervals of open and completed occurrences other than the one being
/// placed; all-day sessions only collide with all-day sessions of the same chain key. Overlaps
/// that already exist between other sessions are not the candidate's problem.
package struct PlacementValidator: Sendable {
    /// How the study windows apply to a timed placement.
    package enum WindowRule: Hashable, Sendable {
        /// The session lies inside one window of its day.
        case required
        /// The session keeps a time of day the student chose outside the windows; any day that
        /// has a window will do (docs/planning.md §5.3, task chains).
        case anyDayWithWindow
        /// Windows do not apply (a series' own days, docs/planning.md §4.1, series chains).
        case ignored
    }

    package let plan: UserPlan
    package let now: CivilDateTime

    package init(plan: UserPlan, now: CivilDateTime) {
        self.plan = plan
        self.now = now
    }

    /// `now` read on the user's clock, rounded up to the minute as the postponer does.
    package init(plan: UserPlan, now: Date) {
        self.init(plan: plan, now: Postponer(now: now).civilNow(in: plan.zone))
    }

    /// Accepts the candidate, or throws the first rule it breaks.
    package func validate(_ candidate: PlacementCandidate, windows rule: WindowRule = .required) throws(PlacementError)
    {
        try PlacementValidator.checkOrder(start: candidate.start, end: candidate.end, allDay: candidate.allDay)
        let key: ChainKey
        var ignoring: Set<OccurrenceID> = []
        switch candidate.subject {
        case .occurrence(let id):
            guard let o = plan.occurrence(id) else { throw .unknownOccurrence(id) }
            switch o.state {
            case .completed: throw .completed(id)
            case .skipped: throw .skipped(id)
            case .open: break
            }
            key = ChainKey(o)
            ignoring = [id]
        case .newTask(let title, let category):
            key = ChainKey(title: title, category: category)
        }
        let lastDate = candidate.allDay ? candidate.end.date : candidate.end.adding(minutes: -1).date
        let busy = BusyIndex(plan.occurrences(from: candidate.start.date, through: max(lastDate, candidate.start.date)))
        if let error = PlacementValidator.check(
            start: candidate.start, end: candidate.end, allDay: candidate.allDay,
            key: key, ignoring: ignoring, busy: busy,
            windows: plan.settings.effectiveWindows, rule: rule,
            now: now, zone: plan.zone)
        {
            throw error
        }
    }

    /// The open and completed occurrences that occupy `day` (timed and all-day), by start.
    package func busyOccurrences(on day: CivilDate, excluding: Set<OccurrenceID> = []) -> [Occurrence] {
        plan.occurrences(from: day, through: day).filter { $0.state != .skipped && !excluding.contains($0.id) }
    }

    // MARK: - The rules, shared with the postponer (which keeps its own busy index)

    static func checkOrder(start: CivilDateTime, end: CivilDateTime, allDay: Bool) throws(PlacementError) {
        if allDay ? end.date < start.date : end <= start { throw .endNotAfterStart(start: start, end: end) }
    }

    /// The first rule a placement breaks (past, DST gap, windows, overlap), or nil.
    static func check(
        start: CivilDateTime, end: CivilDateTime, allDay: Bool, key: ChainKey,
        ignoring: Set<OccurrenceID>, busy: BusyIndex, windows: WeeklyWindows,
        rule: WindowRule, now: CivilDateTime, zone: UserZone?
    ) -> PlacementError? {
        if allDay {
            // An all-day session today is not "in the past": the day is still there to use.
            if start.date < now.date { return .startsInPast(now: now) }
            if let e = busy.allDayConflict(key: key, first: start.date, last: end.date, ignoring: ignoring) {
                return .overlapsAllDay(title: e.title, date: max(e.start.date, start.date))
            }
            return nil
        }
        if start < now { return .startsInPast(now: now) }
        if let skipped = zone?.skippedMinutes(on: start.date), skipped.contains(start.minuteNumber) {
            return .nonexistentTime(start: start, zone: zone?.identifier ?? "UTC")
        }
        // The end too (docs/planning.md §1.3, G7): a session ending inside a spring-forward gap would
        // show an end the clock never reads.
        if let skipped = zone?.skippedMinutes(on: end.date), skipped.contains(end.minuteNumber) {
            return .nonexistentTime(start: end, zone: zone?.identifier ?? "UTC")
        }
        if let error = windowError(start: start, end: end, windows: windows, rule: rule) { return error }
        if let e = busy.timedConflict(start: start.minuteNumber, end: end.minuteNumber, ignoring: ignoring) {
            return .overlaps(title: e.title, start: e.start, end: e.end)
        }
        return nil
    }

    /// Whether a timed session fits the windows of its start day under `rule`.
    static func windowError(start: CivilDateTime, end: CivilDateTime, windows: WeeklyWindows, rule: WindowRule)
        -> PlacementError?
    {
        let dayWindows = windows.windows(on: start.date.weekday)
        let fits: Bool
        switch rule {
        case .ignored: fits = true
        case .anyDayWithWindow: fits = !dayWindows.isEmpty
        case .required: fits = isInsideWindows(start: start, end: end, windows: windows)
        }
        return fits ? nil : .outsideWindows(weekday: start.date.weekday, windows: dayWindows)
    }

    /// Whether `start ..< end` lies inside one study window of its start day.
    package static func isInsideWindows(start: CivilDateTime, end: CivilDateTime, windows: WeeklyWindows) -> Bool {
        let base = start.date.dayNumber * 1440
        return windows.windows(on: start.date.weekday).contains {
            start.minuteNumber >= base + $0.start.minutes && end.minuteNumber <= base + $0.end.minutes
        }
    }
}
