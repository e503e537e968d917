extension PostponementPass {
    /// Shifts a series chain (planning.md §3.4, series chain): the series' tail slides by `k`
    /// days from s1's original date onward, stored as one slide on the series rather than a
    /// row per occurrence. The series defines its own days, so windows are not re-checked; a
    /// slid occurrence that now collides with something else is placed by the general search
    /// from its new day (and stays on its new day, flagged, when nothing fits).
    ///
    /// A slide moves what the series places, so two kinds of occurrences need an override to
    /// end up right: completed ones at or after s1 are pinned where they were (history never
    /// moves), and members the student had moved by hand are carried along by `k` days.
    ///
    /// Occurrences are checked and reported as far as the busy index reaches (at least
    /// today + 2 × horizonDays); further out the slide applies unreported, as a later night's
    /// rules would leave an overlap there alone too.
    mutating func slide(_ chain: Chain, series taskID: String, by k: Int) {
        guard let task = plan.tasks[taskID], let from = chain.first.id.originalDate else { return }
        let expander = OccurrenceExpander(zone: zone)
        let oldSlides = plan.slides[taskID] ?? []
        let tail = plan.unsortedOccurrences(ofSeries: task, from: range.lookback, through: coveredThrough)
            .filter { $0.state == .open && $0.id.originalDate! >= from }
        let pinned = plan.overrides.values.filter {
            $0.taskID == taskID && $0.originalDate >= from && $0.state == .completed && !$0.isMove
        }

        plan.addSlide(taskID: taskID, from: from, days: k)
        for o in pinned {
            let place = expander.scheduledPlace(of: task, originalDate: o.originalDate, slides: oldSlides)
            plan.move(o.occurrenceID, start: place.start, end: place.end)
        }
        // Where each open one sits now: members the student had moved are carried along by k
        // days, other moved ones stay at their move override, the rest go where the slid
        // series puts them (`UserPlan.occurrence`, without looking the task up again).
        let members = chain.memberIDs
        let newSlides = plan.slides[taskID] ?? []
        var moved: [(old: Occurrence, new: Occurrence)] = []
        for old in tail {
            var new = old
            let override = plan.overrides[old.id]
            if override?.isMove == true && members.contains(old.id) {
                new.start = old.allDay ? old.start.adding(days: k) : zone.existing(old.start.adding(days: k))
                new.end = old.allDay ? old.end.adding(days: k) : new.start.adding(minutes: old.lengthMinutes)
                plan.move(old.id, start: new.start, end: new.end)
            } else if let start = override?.start, let end = override?.end {
                new.start = start; new.end = end
            } else {
                (new.start, new.end) = expander.scheduledPlace(of: task, originalDate: old.id.originalDate!, slides: newSlides)
            }
            if TimeRange(new) != TimeRange(old) { moved.append((old, new)) }
        }
        // In the order they are placed (sorting positions: the pairs are large values).
        let moving = moved.indices.sorted {
            let a = moved[$0].new, b = moved[$1].new
            return a.start != b.start ? a.start < b.start : a.id < b.id
        }.map { moved[$0] }

        // Re-read the series into the busy index; the moving ones go in one by one below.
        let movingIDs = Set(moving.map(\.old.id))
        busy.removeAll(taskID: taskID)
        for o in plan.unsortedOccurrences(ofSeries: task, from: today, through: coveredThrough) where !movingIDs.contains(o.id) {
            busy.insert(o)
        }

        // Decision: a re-placed occurrence may land after its slid successors (its new day
        // had no room); those successors are then re-placed after it as well, so the series
        // keeps its order. Each search starts no earlier than the previous one's end.
        // Until an occurrence's turn has come it is being moved, so it is not busy: growing
        // the busy view meanwhile must not put it in at its slid place (`awaitingPlacement`).
        var previousEnd: CivilDateTime?
        awaitingPlacement = movingIDs
        // The busy view reaches every slid place at once (nothing else moves meanwhile, so
        // growing it now or occurrence by occurrence gives the same index).
        if let last = moving.map({ $0.new.lastDate }).max() { ensureCovered(through: last.adding(days: 1)) }
        defer { awaitingPlacement = [] }
        for (old, new) in moving {
            let reason = reason(for: old, in: chain)
            ensureCovered(through: new.lastDate.adding(days: 1))
            let collides = new.allDay
                ? busy.allDayConflict(key: chain.key, first: new.start.date, last: new.end.date, ignoring: [new.id]) != nil
                : busy.timedConflict(start: new.start.minuteNumber, end: new.end.minuteNumber, ignoring: [new.id]) != nil
            let outOfOrder = previousEnd.map { new.allDay ? new.start.date < $0.date : new.start < $0 } ?? false
            if collides || outOfOrder {
                let from = previousEnd.map { max($0.date, new.start.date) } ?? new.start.date
                searchAndPlace(new, from: from, reason: reason, before: TimeRange(old), notBefore: previousEnd)
            } else {
                move(new, to: TimeRange(new), reason: reason, before: TimeRange(old))
            }
            awaitingPlacement.remove(new.id)
            if let placed = plan.occurrence(new.id), placed.state == .open {
                previousEnd = placed.allDay ? CivilDateTime(date: placed.end.date.adding(days: 1), time: TimeOfDay(minutes: 0)) : placed.end
            }
        }
    }
}
