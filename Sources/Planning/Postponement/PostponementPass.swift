import Foundation

/// One pass of the night's rules (docs/planning.md, version 3) over a working copy (see `Postponer`):
/// drop every stale session (§2), then work through the chains (§5), the series' missed
/// sessions (§4) and the other missed sessions (§6) by original start, each placement busy for
/// the items after it at once (§7).
///
/// The busy view has no horizon: it starts at today and grows on demand to whatever day a
/// placement or a check touches (`ensureCovered`), from the working copy itself, so a day
/// seven weeks out is known as well as tomorrow (G1). That stays cheap because the loaded plan
/// holds every one-off task that lies ahead (they are few) and series are expanded only for
/// the days asked about.
struct PostponementPass {
    let now: CivilDateTime
    let createdAt: Date
    let settings: UserSettings
    let zone: UserZone
    let windows: WeeklyWindows
    let classifier: OverdueClassifier
    var plan: UserPlan
    var busy: BusyIndex
    /// How far the busy index holds every occurrence.
    private var indexedThrough: CivilDate
    /// Days past `indexedThrough` whose occurrences are in the busy index too.
    private var sparselyIndexed: Set<Int> = []
    var edits: [PlanEdit] = []
    var flags: [PlanFlag] = []
    /// How many stale sessions this pass may still drop (the night's budget less what earlier
    /// passes dropped).
    var staleBudget = StaleLimits.dropsPerNight
    /// Stale sessions found but left for a later night (over the budget).
    var staleLeft = 0
    /// The open occurrences this pass found overdue (the postponer runs another pass while one
    /// of them is left without a place).
    var overdueIDs: Set<OccurrenceID> = []
    /// Occurrences a work item of this pass has placed or decided on (chain members and the
    /// runs a cascade took in): no later item touches them again.
    private var handled: Set<OccurrenceID> = []
    /// The plan as the night found it (before any pass): a course's order is its sessions'
    /// order there, however earlier passes of the night have moved them (G2).
    private let nightStart: UserPlan
    /// Task ids by chain key, built the first time a search needs the open sessions of a course.
    private var keyIndex: [ChainKey: [String]]?
    /// Each timed series' own time of day, by task id (series never change time in a pass).
    private let seriesTimes: [String: TimeOfDay]
    /// For a later pass of the night: the only missed sessions it may place (what the first
    /// pass flagged could-not-fit), and the sessions earlier passes placed, which are settled:
    /// they join no new chain and move no more (rules version 3). Nil for the first pass.
    var laterPass: (place: Set<OccurrenceID>, settled: Set<OccurrenceID>)?

    var today: CivilDate { now.date }

    /// - Parameter nightStart: the plan before the night's first pass (the same as `plan` for it).
    init(plan: UserPlan, now: CivilDateTime, createdAt: Date, nightStart: UserPlan? = nil) {
        self.now = now
        self.nightStart = nightStart ?? plan
        self.createdAt = createdAt
        self.plan = plan
        self.settings = plan.settings
        self.zone = plan.zone
        self.windows = plan.settings.effectiveWindows
        self.classifier = OverdueClassifier(now: now, settings: plan.settings)
        var seriesTimes: [String: TimeOfDay] = [:]
        for task in plan.tasks.values where task.isSeries && !task.allDay { seriesTimes[task.id] = task.start.time }
        self.seriesTimes = seriesTimes
        let through = now.date.adding(days: 2 * max(plan.settings.horizonDays, 1))
        // Yesterday too: an overnight session that started then still blocks this morning.
        self.busy = BusyIndex(
            plan.unsortedOccurrences(from: now.date.adding(days: -1), through: through)
                .filter { $0.lastDate >= now.date })
        self.indexedThrough = through
    }

    var finder: SlotFinder { SlotFinder(windows: windows, horizonDays: settings.horizonDays, now: now, zone: zone) }

    // MARK: - The pass

    /// A unit of work of docs/planning.md §7.
    private enum WorkItem {
        case chain(Chain)
        case series(Occurrence)
        case single(Occurrence)

        var start: (CivilDateTime, OccurrenceID) {
            switch self {
            case .chain(let c): return (c.first.start, c.first.id)
            case .series(let o), .single(let o): return (o.start, o.id)
            }
        }
    }

    mutating func run() {
        if laterPass == nil { dropStale() }
        let settled = laterPass?.settled ?? []
        let place = laterPass?.place
        let mayPlace = { (id: OccurrenceID) in place?.contains(id) ?? true }

        // One-off sessions: all of them are in the plan (the loaded plan holds every open one
        // and everything ahead), so runs link across any distance.
        var oneOffs: [Occurrence] = []
        var classes: [OccurrenceID: OverdueClass] = [:]
        for task in plan.tasks.values where !task.isSeries && !settled.contains(OccurrenceID(taskID: task.id)) {
            let o = OccurrenceExpander.oneOff(task)
            oneOffs.append(o)
            if let c = classifier.classify(o) { classes[o.id] = c }
        }
        let chains = ChainDetector().chains(in: oneOffs, classes: classes).filter {
            $0.members.contains { mayPlace($0.id) }
        }
        let chained = Set(chains.flatMap { $0.members.map(\.id) })

        var items = chains.map(WorkItem.chain)
        for o in oneOffs where classes[o.id] == .overdue {
            overdueIDs.insert(o.id)
            if !chained.contains(o.id), mayPlace(o.id) { items.append(.single(o)) }
        }
        let deleteAfter = max(settings.deleteAfterDays, 0)
        for o in plan.unsortedOccurrences(from: today.adding(days: -deleteAfter), through: today)
        where o.isSeriesOccurrence && classifier.classify(o) == .overdue {
            overdueIDs.insert(o.id)
            if mayPlace(o.id) { items.append(.series(o)) }
        }
        items.sort { $0.start < $1.start }
        for item in items {
            switch item {
            case .chain(let c): relay(c)
            case .series(let o): applyMissedPolicy(o)
            case .single(let o): placeSingle(o)
            }
        }
    }

    // MARK: - Stale sessions (docs/planning.md §2)

    /// Drops the stale open occurrences the plan knows of, however old, oldest first: a
    /// one-off task is deleted, a series occurrence skipped. A kept category's stale sessions
    /// stay and are flagged `needs-decision` once per task, with their number.
    ///
    /// At most `staleBudget` are dropped (`StaleLimits.dropsPerNight` a night): each drop is a
    /// row of the changeset, and one daily series started in year 1 made a first night write
    /// 740,000 of them (issue 28, item 8). The rest are counted in `staleLeft` and dropped on
    /// the following nights. Only the first `staleBudget` of each series are materialised;
    /// the others are only counted.
    private mutating func dropStale() {
        let cutoff = today.adding(days: -max(settings.deleteAfterDays, 0))
        let budget = max(staleBudget, 0)
        var stale: [Occurrence] = []
        var keptCount: [String: Int] = [:]
        var uncollected = 0
        var moved: [String: [OccurrenceOverride]] = [:]
        for o in plan.overrides.values where o.isMove && o.state == .open { moved[o.taskID, default: []].append(o) }
        for task in plan.tasks.values {
            guard task.isSeries else {
                if !task.completed, task.start.date < cutoff {
                    let o = OccurrenceExpander.oneOff(task)
                    if classifier.classify(o) == .stale { stale.append(o) }
                }
                continue
            }
            let kept = classifier.keeps(category: task.category)
            var collected = 0
            // Series: every recurrence date the plan knows of before the cutoff that has no
            // mark (a history settled by earlier nights is a lookup per date), and the moved
            // ones that sit before it.
            let from =
                plan.wholeHistory.contains(task.id)
                ? task.start.date : max(task.start.date, plan.historyFrom ?? task.start.date)
            var last = cutoff.adding(days: -1)
            if let until = task.repeatRule?.until, until < last { last = until }
            if from <= last {
                var n = OccurrenceExpander.firstIndex(onOrAfter: from, of: task)
                while true {
                    let date = OccurrenceExpander.recurrenceDate(of: task, index: n)
                    n += 1
                    guard date <= last else { break }
                    let id = OccurrenceID(taskID: task.id, originalDate: date)
                    if let mark = plan.overrides[id], mark.state != .open || mark.isMove { continue }
                    if kept {
                        if let o = plan.occurrence(id), classifier.classify(o) == .stale {
                            keptCount[task.id, default: 0] += 1
                        }
                    } else if collected >= budget {
                        uncollected += 1
                    } else if let o = plan.occurrence(id), classifier.classify(o) == .stale {
                        stale.append(o)
                        collected += 1
                    }
                }
            }
            for mark in moved[task.id] ?? [] where (mark.start?.date ?? cutoff) < cutoff {
                if let o = plan.occurrence(mark.occurrenceID), classifier.classify(o) == .stale { stale.append(o) }
            }
        }
        stale.sort { ($0.start, $0.id) < ($1.start, $1.id) }
        var dropped = 0
        for o in stale {
            if classifier.keeps(category: o.category) {
                keptCount[o.taskID, default: 0] += 1
            } else if dropped < budget {
                drop(o)
                dropped += 1
            } else {
                uncollected += 1
            }
        }
        staleBudget -= dropped
        staleLeft = uncollected
        for taskID in keptCount.keys.sorted() {
            flags.append(
                PlanFlag(
                    id: OccurrenceID(taskID: taskID), kind: .needsDecision, count: keptCount[taskID]!,
                    title: plan.tasks[taskID]?.title ?? ""))
        }
    }

    /// Drops a stale occurrence: a one-off task is deleted, a series occurrence skipped (the
    /// series and its history stay).
    private mutating func drop(_ o: Occurrence) {
        let op: PlanEdit.Operation
        if o.isSeriesOccurrence {
            plan.skip(o.id)
            op = .skip
        } else {
            plan.deleteTask(o.taskID)
            op = .delete
        }
        busy.remove(o.id)
        edits.append(
            PlanEdit(op: op, id: o.id, title: o.title, before: TimeRange(o), after: nil, reason: .droppedStale))
    }

    // MARK: - Missed sessions of a series (docs/planning.md §4)

    private mutating func applyMissedPolicy(_ o: Occurrence) {
        guard let task = plan.tasks[o.taskID], let rule = task.repeatRule else { return }
        switch rule.effectiveMissed {
        case .skip:
            plan.skip(o.id)
            busy.remove(o.id)
            edits.append(
                PlanEdit(op: .skip, id: o.id, title: o.title, before: TimeRange(o), after: nil, reason: .missed))
        case .shift:
            if !appendAfterEnd(o, of: task) { flag(o, .couldNotFit) }
        case .makeUp:
            if searchAndPlace(o, reason: .rescheduled, allowSplit: true) == nil { flag(o, .couldNotFit) }
        }
    }

    /// `shift`: the first date of the series' cadence after its last occurrence (sessions
    /// appended by earlier nights included) and after today whose slot at the series' own time
    /// and length is free (G1), holds no other session of the course (G2) and was not skipped
    /// by the student (G3). Windows are not checked: the series defines its own days and time.
    private mutating func appendAfterEnd(_ o: Occurrence, of task: StudyTask) -> Bool {
        guard let until = task.repeatRule?.until else { return false }
        let lastIndex = OccurrenceExpander.firstIndex(onOrAfter: until.adding(days: 1), of: task) - 1
        let lastDate = OccurrenceExpander.recurrenceDate(of: task, index: max(lastIndex, 0))
        // Where the last session sits (a version-1 slide may have put it a day or more later).
        var last =
            plan.occurrence(OccurrenceID(taskID: task.id, originalDate: lastDate)).map {
                task.allDay ? $0.end.date : $0.start.date
            } ?? lastDate
        var skipped: Set<CivilDate> = []
        for mark in plan.overrides.values where mark.taskID == task.id {
            if mark.state == .skipped {
                skipped.insert(mark.originalDate)
                if let start = mark.start { skipped.insert(start.date) }
            } else if let start = mark.start, mark.occurrenceID != o.id, start.date > last {
                last = task.allDay ? (mark.end ?? start).date : start.date
            }
        }
        let key = ChainKey(o)
        var n = OccurrenceExpander.firstIndex(onOrAfter: max(last, today).adding(days: 1), of: task)
        // No bound on the dates tried (version 2 tried 2 × horizonDays and left a course whose
        // dates were taken that long, or a tiny horizon after downtime, open in the past). Up to
        // the last date the plan's own rows name, each date of the cadence is checked as it is;
        // past it only open-ended series can take a slot, and they repeat (`regularDate`).
        let finite = lastNamedDate
        while true {
            let day = OccurrenceExpander.recurrenceDate(of: task, index: n)
            n += 1
            if day > finite { break }
            if skipped.contains(day) { continue }
            let target = seriesSlot(of: task, for: o, on: day)
            guard usable(target, of: o, key: key, ignoring: [o.id], windows: .ignored) else { continue }
            if openSessions(of: key, on: day).contains(where: { $0.id != o.id }) { continue }
            move(o, to: target, reason: .seriesShift)
            return true
        }
        guard let day = regularDate(after: finite, for: o, of: task, from: n - 1) else { return false }
        move(o, to: seriesSlot(of: task, for: o, on: day), reason: .seriesShift)
        return true
    }

    /// The last date any row of the plan names: a one-off task's, a bounded series' end, an
    /// override's or a slide's. After it nothing but the regular sessions of open-ended
    /// series is busy, and a series' sessions there are only its regular ones.
    private var lastNamedDate: CivilDate {
        var last = today
        for task in plan.tasks.values {
            if task.isSeries {
                if let until = task.repeatRule?.until {
                    last = max(last, until.adding(days: task.lastDate.dayNumber - task.start.date.dayNumber + 1))
                }
            } else {
                last = max(last, task.lastDate)
            }
        }
        for mark in plan.overrides.values {
            last = max(last, mark.originalDate, mark.end?.date ?? mark.originalDate)
        }
        for slide in plan.allSlides { last = max(last, slide.from.adding(days: max(slide.days, 0))) }
        // An overnight session of the last named date reaches into the next one.
        return last.adding(days: 1)
    }

    /// The first date of `task`'s cadence from index `n` on, all after `after` (beyond every
    /// date the plan names), whose slot no open-ended series takes. Those repeat: daily and
    /// weekly ones every week, monthly ones within the 400-year Gregorian cycle, so a date is
    /// found within one period of tries, or none ever will be. Decision: a daily one that takes
    /// the slot takes it on every date (a DST day on which it would not is not looked for).
    private mutating func regularDate(after: CivilDate, for o: Occurrence, of task: StudyTask, from n: Int)
        -> CivilDate?
    {
        if task.allDay { return OccurrenceExpander.recurrenceDate(of: task, index: n) }
        let blockers = plan.tasks.values.filter {
            $0.id != task.id && $0.isSeries && !$0.allDay && $0.repeatRule?.until == nil
        }
        let monthly = task.repeatRule?.every == .monthly || blockers.contains { $0.repeatRule?.every == .monthly }
        let period = monthly ? 146_097 : 7
        let first = OccurrenceExpander.recurrenceDate(of: task, index: n)
        var i = n
        while true {
            let day = OccurrenceExpander.recurrenceDate(of: task, index: i)
            i += 1
            guard first.days(until: day) < period else { return nil }
            let target = seriesSlot(of: task, for: o, on: day)
            var taken = false
            for b in blockers {
                let hit = plan.unsortedOccurrences(ofSeries: b, from: day.adding(days: -1), through: target.end.date)
                    .contains { $0.state != .skipped && $0.start < target.end && target.start < $0.end }
                guard hit else { continue }
                if b.repeatRule?.every == .daily { return nil }
                taken = true
                break
            }
            if !taken { return day }
        }
    }

    // MARK: - Other missed sessions (docs/planning.md §6)

    private mutating func placeSingle(_ original: Occurrence) {
        guard !handled.contains(original.id), let o = plan.occurrence(original.id),
            classifier.classify(o) == .overdue
        else { return }
        if searchAndPlace(o, reason: .rescheduled, allowSplit: true) == nil { flag(o, .couldNotFit) }
    }

    /// Where a course keeps its order and pace around `o` (G2): after the last day held by a
    /// session of the course that came before `o` when the night began and now lies ahead (one
    /// the night has already placed), before the first day held by one that came after it, and
    /// never on a day that holds another session of the key. Sessions in `pending` move along
    /// with `o` and bound nothing. A course is the one-off sessions of a key, or one series.
    ///
    /// A session with `o`'s own title does not hold it back: identical titles are
    /// interchangeable (G2), and a course appended after its end (`shift`) must not keep a
    /// same-titled lesson from being made up before its next session.
    mutating func orderBounds(of o: Occurrence, key: ChainKey, pending: Set<OccurrenceID> = [])
        -> (from: CivilDate, before: CivilDate?, held: Set<CivilDate>)
    {
        let rank = nightRank(o)
        var from = today
        var before: CivilDate?
        var held = Set<CivilDate>()
        for x in openSessionsAhead(of: key) where x.id != o.id && !pending.contains(x.id) {
            held.insert(x.start.date)
            // The order is kept within a course: the one-off sessions of the key, or one series
            // (a habit named like a course does not hold the course back, nor the reverse).
            guard o.isSeriesOccurrence ? x.taskID == o.taskID : !x.isSeriesOccurrence else { continue }
            if nightRank(x) < rank {
                if x.title != o.title { from = max(from, x.lastDate.adding(days: 1)) }
            } else if before.map({ x.start.date < $0 }) ?? true {
                before = x.start.date
            }
        }
        return (from, before, held)
    }

    /// An occurrence's place in its course's order when the night began.
    private func nightRank(_ o: Occurrence) -> (CivilDateTime, OccurrenceID) {
        (nightStart.occurrence(o.id)?.start ?? o.start, o.id)
    }

    /// Places `o` with the general search (or splits it when allowed), between the sessions of
    /// its course that come before and after it (`orderBounds`). Returns the last day it now
    /// uses, or nil when nothing fits: it then stays where it is.
    @discardableResult
    mutating func searchAndPlace(_ o: Occurrence, reason: PlanEdit.Reason, allowSplit: Bool) -> CivilDate? {
        let key = ChainKey(o)
        let bounds = orderBounds(of: o, key: key)
        // G3: a day the student skipped in the series never gets a session of it.
        let skipped = o.isSeriesOccurrence ? skippedDates(of: o.taskID) : []
        let allowed = { (day: CivilDate) in
            !bounds.held.contains(day) && !skipped.contains(day) && (bounds.before.map { day < $0 } ?? true)
        }
        return search(o, from: bounds.from, reason: reason, pending: [], allowed: allowed, allowSplit: allowSplit)
    }

    /// The general search of §6 from `from`, on the days `allowed` lets it use.
    ///
    /// - Parameter pending: other sessions about to move with `o` (the rest of a chain): they
    ///   are not busy.
    private mutating func search(
        _ o: Occurrence, from: CivilDate, reason: PlanEdit.Reason, pending: Set<OccurrenceID>,
        allowed: @escaping (CivilDate) -> Bool, allowSplit: Bool
    ) -> CivilDate? {
        let span = o.start.date.days(until: o.lastDate) + 1
        ensureCovered(through: from.adding(days: settings.horizonDays + span))
        var moving = pending
        moving.insert(o.id)
        if o.allDay {
            if let day = finder.allDaySlot(
                days: span, key: ChainKey(o), from: from, busy: busy, ignoring: moving,
                allowed: allowed)
            {
                let r = slot(for: o, on: day)
                move(o, to: r, reason: reason)
                return r.end.date
            }
        } else if let r = finder.slot(
            length: length(of: o), preferredTime: plannedTime(o), from: from,
            busy: busy, ignoring: moving, allowed: allowed)
        {
            move(o, to: r, reason: reason)
            return r.end.adding(minutes: -1).date
        } else if allowSplit, settings.splitSessions, length(of: o) > settings.sessionMinutes,
            let last = split(o, from: from, reason: reason, allowed: allowed)
        {
            return last
        }
        return nil
    }

    /// The dates a series' student skipped (original dates, and where a skipped one had been moved).
    private func skippedDates(of taskID: String) -> Set<CivilDate> {
        var dates = Set<CivilDate>()
        for mark in plan.overrides.values where mark.taskID == taskID && mark.state == .skipped {
            dates.insert(mark.originalDate)
            if let start = mark.start { dates.insert(start.date) }
        }
        return dates
    }

    // MARK: - Chains of one-off sessions (docs/planning.md §5)

    /// Re-lays a chain: s1 goes to the first day from today (k from k0) whose slot at s1's own
    /// time of day and length is usable; each next member to the day after the day its
    /// predecessor now holds, at its own time and length, or by the general search from that
    /// day when that is not usable. A member whose new day reaches the course's next run takes
    /// that run along (cascade). All or nothing: when one member finds no place, every member
    /// stays where it was and the missed ones are flagged.
    private mutating func relay(_ chain: Chain) {
        // Where they are now, as a new night would take them (so the result is one the rules
        // leave alone, G8), unless an earlier pass of this night has moved one past another
        // with a different title: a course's order is the one it had when the night began (G2;
        // identical titles are interchangeable).
        var members = chain.members.filter { !handled.contains($0.id) }.compactMap { plan.occurrence($0.id) }
        let inverted = members.indices.contains { i in
            members[(i + 1)...].contains { $0.title != members[i].title && nightRank($0) < nightRank(members[i]) }
        }
        if inverted { members.sort { nightRank($0) < nightRank($1) } }
        guard members.count >= 2, members.contains(where: { classifier.classify($0) == .overdue }) else {
            // What is left of it (an earlier cascade took the rest) is placed as single sessions.
            for m in members where classifier.classify(m) == .overdue { placeSingle(m) }
            return
        }
        var later = chain.later.filter { !handled.contains($0.id) }.compactMap { plan.occurrence($0.id) }
        var pending = Set(members.map(\.id))
        let key = chain.key
        let s1 = members[0]
        let start = orderBounds(of: s1, key: key, pending: pending).from
        let k0 = s1.start.date.days(until: start)
        // G2: no member goes to a day that holds another session of the course (the chain's
        // own sessions, and the next runs it takes along, excepted).
        let ahead = openSessionsAhead(of: key)
        // Sessions of the course outside the re-lay (in a later pass, those an earlier pass
        // placed: settled, they link no more, so a run may now reach across where they were).
        // A moved member must not pass one with another title that came after it when the
        // night began, nor fall behind one that came before it (G2).
        let relaid = Set(members.map(\.id) + later.map(\.id))
        let outside = ahead.filter { !relaid.contains($0.id) }
        func keepsOrder(_ m: Occurrence) -> Bool {
            guard !outside.isEmpty, let now = plan.occurrence(m.id), now.start != m.start || now.end != m.end else {
                return true
            }
            let rank = nightRank(m)
            return !outside.contains { x in
                guard x.title != m.title else { return false }
                return nightRank(x) > rank
                    ? (x.start, x.id) <= (now.start, m.id) : (x.start, x.id) >= (now.start, m.id)
            }
        }
        func holdsAnother(_ day: CivilDate, _ moving: Set<OccurrenceID>) -> Bool {
            ahead.contains { $0.start.date == day && !moving.contains($0.id) }
        }
        // A member left where the night found it may keep company it already had: a session of
        // the course that shared its day then and still does (two interleaved runs) breaks no
        // G2 by staying, so it pushes nothing (G9).
        let nightStart = self.nightStart
        func unmoved(_ o: Occurrence) -> Bool {
            nightStart.occurrence(o.id).map { $0.start == o.start && $0.end == o.end } ?? false
        }
        func holdsNewcomer(_ m: Occurrence, _ moving: Set<OccurrenceID>) -> Bool {
            let own = unmoved(m)
            return ahead.contains {
                $0.start.date == m.start.date && !moving.contains($0.id) && !(own && unmoved($0))
            }
        }

        // The smallest k whose day has room for s1: its own time of day, else the nearest
        // free time of that day (rules version 3; members do not block).
        var first: TimeRange?
        for k in k0...(k0 + max(settings.horizonDays, 0)) {
            let day = s1.start.date.adding(days: k)
            let joining = pending.union(later.prefix { $0.start.date <= day }.map(\.id))
            guard !holdsAnother(day, joining) else { continue }
            if let r = room(for: s1, on: day, key: key, ignoring: joining) {
                first = r
                break
            }
        }

        let editCount = edits.count
        var placed: [Occurrence] = []
        var day = first?.start.date ?? start
        var i = 0
        // Whether the member before stayed where the night found it: the next one then keeps
        // the place it had beside it, on the same day or the day an overnight one ends (G9).
        var previousStayed = false
        while i < members.count {
            let m = members[i]
            // §5.5: the next run joins once a member's new day reaches it.
            while let next = later.first, next.start.date <= day {
                members.append(next)
                pending.insert(next.id)
                later.removeFirst()
            }
            pending.remove(m.id)
            let reason: PlanEdit.Reason = i == 0 ? .makeUp : .chainShift
            var lastDay: CivilDate?
            var stayed = false
            let moving = Set(members.map(\.id))
            if i == 0, let first {
                move(m, to: first, reason: reason)
                lastDay = m.allDay ? first.end.date : first.end.adding(minutes: -1).date
            } else if i > 0, m.start.date >= day || (previousStayed && unmoved(m)), !holdsNewcomer(m, moving),
                staysPut(m, key: key, ignoring: pending.union([m.id]))
            {
                // Pushed, never pulled: a member still after its predecessor stays (G9, G10).
                lastDay = m.lastDate
                stayed = unmoved(m)
            } else {
                // Never to an earlier date than it holds.
                let target = max(day, m.start.date)
                if i > 0, !holdsAnother(target, moving), let r = room(for: m, on: target, key: key, ignoring: pending) {
                    move(m, to: r, reason: reason)
                    lastDay = m.allDay ? r.end.date : r.end.adding(minutes: -1).date
                } else {
                    // Inside a re-lay the search is not bounded by the next run (the cascade
                    // takes it along), but a day holding another session of the course is no
                    // candidate.
                    let held = Set(
                        openSessionsAhead(of: key).filter { $0.id != m.id && !pending.contains($0.id) }.map(
                            \.start.date))
                    lastDay = search(
                        m, from: target, reason: reason, pending: pending, allowed: { !held.contains($0) },
                        allowSplit: false)
                }
            }
            if lastDay != nil, !keepsOrder(m) {
                placed.append(m)
                lastDay = nil
            }
            guard let lastDay else {
                undo(placed, editsFrom: editCount)
                for member in members where classifier.classify(member) == .overdue { flag(member, .couldNotFit) }
                handled.formUnion(members.map(\.id))
                return
            }
            placed.append(m)
            previousStayed = stayed
            day = lastDay.adding(days: 1)
            i += 1
            // A member the search put past the next run: the run joins and follows it.
            if i == members.count, let next = later.first, next.start.date < day {
                members.append(next)
                pending.insert(next.id)
                later.removeFirst()
            }
        }
        handled.formUnion(members.map(\.id))
    }

    /// Whether a member may stay where it is (rules version 3): not in the past, and nothing the
    /// night has placed now overlaps it. The windows do not apply, nor do overlaps that were
    /// there before the night: the student put it there, and the rules did not place it (G9).
    private mutating func staysPut(_ o: Occurrence, key: ChainKey, ignoring: Set<OccurrenceID>) -> Bool {
        if o.allDay ? o.start.date < today : o.start < now { return false }
        ensureCovered(days: o.start.date...max(o.start.date, o.lastDate))
        func placedTonight(_ e: BusyIndex.Entry) -> Bool {
            nightStart.occurrence(e.id).map { $0.start != e.start || $0.end != e.end } ?? true
        }
        for n in o.start.date.dayNumber...max(o.start.date, o.lastDate).dayNumber {
            let day = CivilDate(dayNumber: n)
            if o.allDay {
                if busy.allDay(on: day, ignoring: ignoring).contains(where: { $0.key == key && placedTonight($0) }) {
                    return false
                }
            } else if busy.timed(on: day, ignoring: ignoring).contains(where: {
                !$0.allDay && $0.start < o.end && o.start < $0.end && placedTonight($0)
            }) {
                return false
            }
        }
        return true
    }

    /// Where `o` has room on `day` (rules version 3): its own time of day and length when that
    /// is usable (a member placed outside the windows keeps that exemption), else the free
    /// time inside the day's windows whose start is nearest its own time of day (ties: the
    /// earlier start). Nothing in `ignoring` blocks.
    private mutating func room(
        for o: Occurrence, on day: CivilDate, key: ChainKey, ignoring: Set<OccurrenceID>
    ) -> TimeRange? {
        var moving = ignoring
        moving.insert(o.id)
        let own = slot(for: o, on: day)
        if usable(own, of: o, key: key, ignoring: moving, windows: windowRule(for: o)) { return own }
        guard !o.allDay else { return nil }
        ensureCovered(days: day...day.adding(days: 1))
        let length = length(of: o)
        let preferred = day.dayNumber * 1440 + plannedTime(o).minutes
        var best: (distance: Int, start: Int)?
        for gap in finder.gaps(on: day, notBefore: now.minuteNumber, busy: busy, ignoring: moving)
        where gap.count >= length {
            let start = min(max(preferred, gap.lowerBound), gap.upperBound - length)
            let candidate = (distance: abs(start - preferred), start: start)
            if best.map({ candidate < $0 }) ?? true { best = candidate }
        }
        return best.map {
            TimeRange(start: CivilDateTime(minuteNumber: $0.start), end: CivilDateTime(minuteNumber: $0.start + length))
        }
    }

    /// Puts the members a failed re-lay had placed back where they were.
    private mutating func undo(_ placed: [Occurrence], editsFrom count: Int) {
        for o in placed.reversed() {
            plan.move(o.id, start: o.start, end: o.end)
            busy.insert(o)
        }
        edits.removeSubrange(count...)
    }

    // MARK: - Places

    /// `o` on `day` at its own time of day and length. A start inside a spring-forward gap moves
    /// forward by the gap, and so does an end: a session's end is its start plus its length in
    /// elapsed minutes (docs/planning.md §1.3).
    func slot(for o: Occurrence, on day: CivilDate) -> TimeRange {
        if o.allDay {
            let span = o.start.date.days(until: o.end.date)
            return TimeRange(
                start: CivilDateTime(date: day, time: TimeOfDay(minutes: 0)),
                end: CivilDateTime(date: day.adding(days: span), time: TimeOfDay(minutes: 0)))
        }
        let r = zone.session(at: CivilDateTime(date: day, time: plannedTime(o)), lasting: length(of: o))
        return TimeRange(start: r.start, end: r.end)
    }

    /// How long a timed occurrence lasts, in elapsed minutes: on a DST day its wall times differ
    /// by more or less than that (docs/planning.md §1.3), and a move keeps the elapsed length.
    /// A session the series places lasts the series' length. A start the clock skips (a row
    /// written so) does not say what was meant, and its wall-clock length stands.
    func length(of o: Occurrence) -> Int {
        if o.allDay { return o.lengthMinutes }
        if o.id.originalDate != nil, plan.overrides[o.id]?.isMove != true, let task = plan.tasks[o.taskID] {
            return task.lengthMinutes
        }
        guard zone.existing(o.start) == o.start else { return o.lengthMinutes }
        let elapsed = zone.elapsedMinutes(from: o.start, to: o.end)
        return elapsed > 0 ? elapsed : o.lengthMinutes
    }

    /// A series' own slot on `day`: its time of day and length, whatever time a student had
    /// moved the missed occurrence to (rules version 3, series details).
    func seriesSlot(of task: StudyTask, for o: Occurrence, on day: CivilDate) -> TimeRange {
        if task.allDay { return slot(for: o, on: day) }
        let r = zone.session(at: CivilDateTime(date: day, time: task.start.time), lasting: task.lengthMinutes)
        return TimeRange(start: r.start, end: r.end)
    }

    /// Whether `o` may take `target`: not in the past, real wall times, inside the windows as
    /// `rule` says, and not taken by anything busy but `ignoring` (docs/planning.md §5.3).
    private mutating func usable(
        _ target: TimeRange, of o: Occurrence, key: ChainKey, ignoring: Set<OccurrenceID>,
        windows rule: PlacementValidator.WindowRule
    ) -> Bool {
        ensureCovered(days: target.start.date...max(target.start.date, target.end.date))
        return PlacementValidator.check(
            start: target.start, end: target.end, allDay: o.allDay, key: key,
            ignoring: ignoring, busy: busy, windows: windows, rule: rule,
            now: now, zone: zone) == nil
    }

    /// A member the student placed outside the windows may keep its time of day on any day that
    /// has a window (docs/planning.md §5.3); the others must fit inside one.
    func windowRule(for o: Occurrence) -> PlacementValidator.WindowRule {
        if o.allDay { return .ignored }
        return PlacementValidator.isInsideWindows(start: o.start, end: o.end, windows: windows)
            ? .required : .anyDayWithWindow
    }

    /// The time of day an occurrence is planned at: a series' own time for an occurrence the
    /// series places (its actual start differs only on a DST night), else its start.
    func plannedTime(_ o: Occurrence) -> TimeOfDay {
        guard o.id.originalDate != nil, let own = seriesTimes[o.id.taskID], own != o.start.time,
            plan.overrides[o.id]?.isMove != true
        else { return o.start.time }
        return own
    }

    /// The open sessions of a course (`key`) that start on `day`, however far ahead.
    private mutating func openSessions(of key: ChainKey, on day: CivilDate) -> [Occurrence] {
        buildKeyIndex()
        var result: [Occurrence] = []
        for id in keyIndex?[key] ?? [] {
            guard let task = plan.tasks[id] else { continue }
            if task.isSeries {
                for o in plan.unsortedOccurrences(ofSeries: task, from: day, through: day)
                where o.state == .open && o.start.date == day {
                    result.append(o)
                }
            } else if !task.completed, task.start.date == day {
                result.append(OccurrenceExpander.oneOff(task))
            }
        }
        return result
    }

    private mutating func buildKeyIndex() {
        guard keyIndex == nil else { return }
        var index: [ChainKey: [String]] = [:]
        for task in plan.tasks.values where task.isSeries || !task.completed {
            index[ChainKey(task), default: []].append(task.id)
        }
        keyIndex = index
    }

    /// The open sessions of a course (`key`) that start today or later, where they sit now: every
    /// one-off session, and a series' sessions as far as a search can reach.
    private mutating func openSessionsAhead(of key: ChainKey) -> [Occurrence] {
        buildKeyIndex()
        var result: [Occurrence] = []
        let through = today.adding(days: 2 * max(settings.horizonDays, 1) + 62)
        for id in keyIndex?[key] ?? [] {
            guard let task = plan.tasks[id] else { continue }
            if task.isSeries {
                for o in plan.unsortedOccurrences(ofSeries: task, from: today, through: through)
                where o.state == .open && o.start.date >= today {
                    result.append(o)
                }
            } else if !task.completed, task.start.date >= today {
                result.append(OccurrenceExpander.oneOff(task))
            }
        }
        return result
    }

    // MARK: - Edits on the working copy

    /// Moves an occurrence in the working copy and the busy index, and records the edit.
    mutating func move(_ o: Occurrence, to r: TimeRange, reason: PlanEdit.Reason) {
        guard r != TimeRange(o) else { return }
        plan.move(o.id, start: r.start, end: r.end)
        var moved = o
        moved.start = r.start
        moved.end = r.end
        busy.insert(moved)
        edits.append(PlanEdit(op: .move, id: o.id, title: o.title, before: TimeRange(o), after: r, reason: reason))
    }

    mutating func flag(_ o: Occurrence, _ kind: PlanFlag.Kind) {
        let f = PlanFlag(id: o.id, kind: kind, title: o.title)
        if !flags.contains(f) { flags.append(f) }
    }

    /// Makes sure the busy index knows every occurrence touching the days up to `day`. It grows
    /// a week past what was asked at a time: most searches look at the next few days.
    mutating func ensureCovered(through day: CivilDate) {
        guard day > indexedThrough else { return }
        let end = max(day, indexedThrough.adding(days: 7))
        // The busy index does not care about order, so the expansion need not sort. Days
        // indexed on their own before (`ensureCovered(days:)`) are met again: an entry already
        // there stays.
        for o in plan.unsortedOccurrences(from: indexedThrough.adding(days: 1), through: end) { busy.insertIfAbsent(o) }
        indexedThrough = end
    }

    /// Makes sure the busy index knows every occurrence touching `days`. Days near what is
    /// indexed extend it; days far ahead (a course appended after an end months away) are
    /// indexed on their own, so a check there does not expand every day in between.
    mutating func ensureCovered(days: ClosedRange<CivilDate>) {
        guard days.upperBound > indexedThrough else { return }
        if days.lowerBound <= indexedThrough.adding(days: 7) {
            ensureCovered(through: days.upperBound)
            return
        }
        for day in days.lowerBound.dayNumber...days.upperBound.dayNumber where !sparselyIndexed.contains(day) {
            let date = CivilDate(dayNumber: day)
            for o in plan.unsortedOccurrences(from: date, through: date) { busy.insertIfAbsent(o) }
            sparselyIndexed.insert(day)
        }
    }
}
