import Foundation

/// One pass of the night's rules over a working copy (see `Postponer`): classify, drop the
/// stale, find the chains, then work through the chains and the remaining missed sessions by
/// original start, each placement immediately busy for the items after it (planning.md §5).
///
/// The busy index is kept in step with the working copy: every move updates both. It starts
/// at today and grows on demand, because a long chain can push its last members (and their
/// searches) further out than any fixed range.
struct PostponementPass {
    let now: CivilDateTime
    let createdAt: Date
    let settings: UserSettings
    let zone: UserZone
    let windows: WeeklyWindows
    let range: PlanningRange
    let classifier: OverdueClassifier
    var plan: UserPlan
    var busy: BusyIndex
    /// How far the pass looks: the busy view's reach, which also bounds how far a series
    /// slide re-places (and reports) its tail. It grows by at least 31 days at a time.
    var coveredThrough: CivilDate
    /// How far the busy index actually holds every occurrence (never beyond `coveredThrough`).
    /// Filling it lags the reach: a query extends it only as far as it looks, a week at a
    /// time, because most of a 31-day step is never searched and indexing it was a fifth of
    /// a heavy night. Every query of the index asks `ensureCovered` first.
    private var indexedThrough: CivilDate
    /// Slid occurrences not yet placed (see `slide`): they are being moved, so they are not
    /// busy (planning.md §1), and filling the index must not put them in at their slid place.
    var awaitingPlacement: Set<OccurrenceID> = []
    var edits: [PlanEdit] = []
    var flags: [PlanFlag] = []
    /// The open occurrences this pass found overdue (the postponer retries while one of them
    /// is left without a slot).
    var overdueIDs: Set<OccurrenceID> = []
    /// What the rules look at, as the pass found it (`occurrencesInView`).
    private let universe: [Occurrence]
    /// Each timed series' own time of day, by task id (series never change time in a pass).
    private let seriesTimes: [String: TimeOfDay]
    /// Chains (by their first member) that must take the no-shift path: an earlier attempt of
    /// this pass found that shifting them would leave a session on top of another.
    let unshiftable: Set<OccurrenceID>
    /// Set when a chain's shift would leave a session on top of another. The pass stops there:
    /// its state is spoilt, and the postponer runs it again with the chain in `unshiftable`.
    private(set) var rejectedShift: OccurrenceID?

    var today: CivilDate { now.date }

    init(plan: UserPlan, now: CivilDateTime, createdAt: Date, unshiftable: Set<OccurrenceID> = []) {
        self.now = now
        self.unshiftable = unshiftable
        var seriesTimes: [String: TimeOfDay] = [:]
        for task in plan.tasks.values where task.isSeries && !task.allDay { seriesTimes[task.id] = task.start.time }
        self.seriesTimes = seriesTimes
        self.createdAt = createdAt
        self.plan = plan
        self.settings = plan.settings
        self.zone = plan.zone
        self.windows = plan.settings.effectiveWindows
        self.range = PlanningRange(today: now.date, settings: plan.settings)
        self.classifier = OverdueClassifier(now: now, settings: plan.settings)
        // One expansion serves both: the busy index starts with the part of the view that
        // touches today … through, exactly what expanding that range would give.
        let universe = PostponementPass.occurrencesInView(of: plan, range: range)
        self.universe = universe
        let through = range.through
        self.busy = BusyIndex(universe.filter { $0.lastDate >= now.date && $0.start.date <= through })
        self.coveredThrough = through
        self.indexedThrough = through
    }

    var finder: SlotFinder { SlotFinder(windows: windows, horizonDays: settings.horizonDays, now: now, zone: zone) }

    // MARK: - The pass

    /// A unit of work of planning.md §5.
    private enum WorkItem {
        case chain(Chain)
        case single(Occurrence)

        var start: (CivilDateTime, OccurrenceID) {
            switch self {
            case .chain(let c): return (c.first.start, c.first.id)
            case .single(let o): return (o.start, o.id)
            }
        }
    }

    mutating func run() {
        let classification = classifier.classify(universe)
        overdueIDs = Set(classification.overdue.map(\.id))

        for o in classification.stale { drop(o) }
        for o in classification.kept { flag(o.id, .needsDecision) }

        let dropped = Set(classification.stale.map(\.id))
        let remaining = universe.filter { !dropped.contains($0.id) }
        let chains = ChainDetector().chains(in: remaining, classes: classification.classes, timeOfDay: plannedTime)
        let chained = Set(chains.flatMap { $0.members.map(\.id) })

        var items = chains.map(WorkItem.chain)
        items += classification.overdue.filter { !chained.contains($0.id) }.map(WorkItem.single)
        items.sort { $0.start < $1.start }
        for item in items {
            switch item {
            case .chain(let c): process(c)
            case .single(let o): _ = searchAndPlace(o, from: today, reason: .rescheduled)
            }
            if rejectedShift != nil { return }
        }
    }

    /// Every occurrence the rules may act on or link through: the planning range, plus every
    /// one-off task outside it (few, and an old one may be stale, a later one may extend a run).
    private static func occurrencesInView(of plan: UserPlan, range: PlanningRange) -> [Occurrence] {
        let inRange = plan.occurrences(from: range.lookback, through: range.through).filter { $0.state != .skipped }
        // A one-off task is in the expansion exactly when it touches the range (the expander's
        // own test), so that test finds the others without collecting the ids of the range.
        let outside = plan.tasks.values.filter {
            !$0.isSeries && !($0.start.date <= range.through && $0.lastDate >= range.lookback)
        }
        // The expander's lists are sorted by (start, id) already; most nights nothing lies
        // outside the range, and then there is nothing to merge.
        guard !outside.isEmpty else { return inRange }
        let extra = OccurrenceExpander(zone: plan.zone).occurrences(of: Array(outside), overrides: [], slides: [],
                                                               from: CivilDate(dayNumber: 0), through: CivilDate(year: 9999, month: 12, day: 31)!)
        let list = inRange + extra.filter { $0.state != .skipped }
        let minutes = list.map(\.start.minuteNumber)
        return list.indices.sorted { a, b in
            minutes[a] != minutes[b] ? minutes[a] < minutes[b] : list[a].id < list[b].id
        }.map { list[$0] }
    }

    // MARK: - Chains (planning.md §3.4)

    private mutating func process(_ chain: Chain) {
        let s1 = chain.first
        let k = s1.start.date.days(until: today)
        let target = todaySlot(for: s1)
        let rule: PlacementValidator.WindowRule = chain.seriesID == nil ? windowRule(for: s1) : .ignored
        ensureCovered(through: target.end.date.adding(days: 1))
        let blocked = PlacementValidator.check(start: target.start, end: target.end, allDay: s1.allDay, key: chain.key,
                                               ignoring: chain.memberIDs, busy: busy, windows: windows, rule: rule,
                                               now: now, zone: zone)
        guard blocked == nil, k > 0, !unshiftable.contains(s1.id) else { placeMissedMembers(of: chain); return }
        // A member (or slid occurrence) that finds no slot stays where it is, and if that
        // place now overlaps another session (typically one the shift itself moved in), the
        // rules would have caused an overlap. Decision: such a chain does not shift at all and
        // takes the no-shift path, which never overlaps. Rather than trying every shift on a
        // copy of the whole pass (copying and dropping the plan and the busy index for every
        // chain was a tenth of a night), the shift is made in place; in the rare case it is
        // rejected, the pass stops and is run again from the start with the chain marked
        // unshiftable. The pass is deterministic, so the rerun reaches this chain in the same
        // state, and the result is the one a copy would have given.
        let flagged = flags.count
        if let seriesID = chain.seriesID {
            slide(chain, series: seriesID, by: k)
        } else {
            relay(chain, firstAt: target)
        }
        if leftSessionOnTopOfAnother(flaggedAfter: flagged) { rejectedShift = s1.id }
    }

    /// Whether an occurrence flagged `could-not-fit` since `flaggedAfter` now overlaps
    /// something busy (it stayed where it was while others moved in).
    private func leftSessionOnTopOfAnother(flaggedAfter count: Int) -> Bool {
        flags[count...].contains { f in
            guard f.kind == .couldNotFit, let o = plan.occurrence(f.id) else { return false }
            if o.allDay {
                return busy.allDayConflict(key: ChainKey(o), first: o.start.date, last: o.end.date, ignoring: [o.id]) != nil
            }
            return busy.timedConflict(start: o.start.minuteNumber, end: o.end.minuteNumber, ignoring: [o.id]) != nil
        }
    }

    /// When today's slot cannot take s1, the chain does not shift: its missed members get the
    /// general search one by one and its current members stay. Decision: each missed member
    /// searches from the day after the previous one's new day, so the run keeps its order and
    /// its pace of one session a day instead of piling onto today.
    private mutating func placeMissedMembers(of chain: Chain) {
        var from = today
        for m in chain.members where classifier.classify(m) == .overdue {
            if let last = searchAndPlace(m, from: from, reason: reason(for: m, in: chain)) {
                from = last.adding(days: 1)
            }
        }
    }

    /// T of planning.md §3.4: today at s1's time of day with s1's length.
    func todaySlot(for o: Occurrence) -> TimeRange { slot(for: o, on: today) }

    /// `o` moved to `day` at its own time of day and length (a time the DST jump skips moves
    /// forward by the gap, as a series' would).
    func slot(for o: Occurrence, on day: CivilDate) -> TimeRange {
        if o.allDay {
            let span = o.start.date.days(until: o.end.date)
            return TimeRange(start: CivilDateTime(date: day, time: TimeOfDay(minutes: 0)),
                             end: CivilDateTime(date: day.adding(days: span), time: TimeOfDay(minutes: 0)))
        }
        let start = zone.existing(CivilDateTime(date: day, time: plannedTime(o)))
        return TimeRange(start: start, end: start.adding(minutes: o.lengthMinutes))
    }

    /// Members the student placed outside the windows may keep that time on any day that has
    /// a window (planning.md §3.4); the others must fit inside one.
    func windowRule(for o: Occurrence) -> PlacementValidator.WindowRule {
        if o.allDay { return .ignored }
        return PlacementValidator.isInsideWindows(start: o.start, end: o.end, windows: windows) ? .required : .anyDayWithWindow
    }

    func reason(for m: Occurrence, in chain: Chain) -> PlanEdit.Reason {
        m.id == chain.first.id ? .makeUp : .chainShift
    }

    /// The time of day an occurrence is planned at: a series' own time for an occurrence the
    /// series places (its actual start differs only on a DST night), else its start.
    func plannedTime(_ o: Occurrence) -> TimeOfDay {
        // Where the occurrence sits at its series' time, that time is the answer either way,
        // so only an occurrence off its series' time needs its override looked up (this runs
        // for every occurrence the chain search links).
        guard o.id.originalDate != nil, let own = seriesTimes[o.id.taskID], own != o.start.time,
              plan.overrides[o.id]?.isMove != true else { return o.start.time }
        return own
    }

    // MARK: - General search (planning.md §4)

    /// Places `o` with the general search from `from` (or splits it when allowed). Returns the
    /// last day it now uses, or nil when nothing fits: it then stays and is flagged.
    ///
    /// - Parameter before: where the edit says it came from, when that is not where it sits now
    ///   (a slid series occurrence that collided).
    @discardableResult
    /// - Parameter alsoMoving: other occurrences that are about to move (the rest of a chain
    ///   being re-laid): they are not busy (planning.md §1, "busy").
    mutating func searchAndPlace(_ o: Occurrence, from: CivilDate, reason: PlanEdit.Reason,
                                 before: TimeRange? = nil, notBefore: CivilDateTime? = nil,
                                 alsoMoving: Set<OccurrenceID> = []) -> CivilDate? {
        let span = o.start.date.days(until: o.lastDate) + 1
        ensureCovered(through: from.adding(days: settings.horizonDays + span))
        if o.allDay {
            if let day = finder.allDaySlot(days: span, key: ChainKey(o), from: from, busy: busy, ignoring: [o.id]) {
                let r = slot(for: o, on: day)
                move(o, to: r, reason: reason, before: before)
                return r.end.date
            }
        } else if let r = finder.slot(length: o.lengthMinutes, preferredTime: plannedTime(o), from: from,
                                      notBefore: notBefore, busy: busy, ignoring: alsoMoving.union([o.id])) {
            move(o, to: r, reason: reason, before: before)
            return r.end.adding(minutes: -1).date
        } else if settings.splitSessions, o.lengthMinutes > settings.sessionMinutes,
                  let last = split(o, from: from, reason: reason, before: before, notBefore: notBefore) {
            return last
        }
        flag(o.id, .couldNotFit)
        if let before, before != TimeRange(o) {
            // It did move (its series slid) even though no better slot was found.
            edits.append(PlanEdit(op: .move, id: o.id, title: o.title, before: before, after: TimeRange(o), reason: reason))
        }
        return nil
    }

    // MARK: - Edits on the working copy

    /// Moves an occurrence in the working copy and the busy index, and records the edit.
    mutating func move(_ o: Occurrence, to r: TimeRange, reason: PlanEdit.Reason, before: TimeRange? = nil) {
        let from = before ?? TimeRange(o)
        if r != TimeRange(o) { plan.move(o.id, start: r.start, end: r.end) }
        var moved = o
        moved.start = r.start; moved.end = r.end
        busy.insert(moved)
        if r != from {
            edits.append(PlanEdit(op: .move, id: o.id, title: o.title, before: from, after: r, reason: reason))
        }
    }

    /// Drops a stale occurrence: a one-off task is deleted, a series occurrence skipped (the
    /// series and its history stay).
    private mutating func drop(_ o: Occurrence) {
        let op: PlanEdit.Operation
        if o.isSeriesOccurrence { plan.skip(o.id); op = .skip } else { plan.deleteTask(o.taskID); op = .delete }
        busy.remove(o.id)
        edits.append(PlanEdit(op: op, id: o.id, title: o.title, before: TimeRange(o), after: nil, reason: .droppedStale))
    }

    mutating func flag(_ id: OccurrenceID, _ kind: PlanFlag.Kind) {
        let f = PlanFlag(id: id, kind: kind)
        if !flags.contains(f) { flags.append(f) }
    }

    /// Makes sure the busy index knows every occurrence touching the days up to `day`.
    mutating func ensureCovered(through day: CivilDate) {
        if day > coveredThrough { coveredThrough = max(day, coveredThrough.adding(days: 31)) }
        guard day > indexedThrough else { return }
        let end = min(coveredThrough, max(day, indexedThrough.adding(days: 7)))
        // The busy index does not care about order, so the expansion need not sort.
        for o in plan.unsortedOccurrences(from: indexedThrough.adding(days: 1), through: end)
        where awaitingPlacement.isEmpty || !awaitingPlacement.contains(o.id) {
            busy.insertIfAbsent(o)
        }
        indexedThrough = end
    }
}
