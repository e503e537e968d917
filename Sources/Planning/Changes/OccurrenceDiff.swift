/// The occurrence-level edits (what a student reads) behind a set of row changes: which
/// sessions were moved, skipped, deleted, created or updated, with before and after times.
///
/// Derived from the rows, not from whoever made them, so local rules, the model's tool calls
/// and manual commands are reported the same way. A slide moves a whole series tail; only its
/// occurrences up to `through` (by original date, or by where they sit) are listed (the slide
/// row itself carries the rest).
package enum OccurrenceDiff {
    package static func edits(
        from original: UserPlan, to working: UserPlan, changes: [RowChange], through: CivilDate,
        reason: (OccurrenceID) -> PlanEdit.Reason
    ) -> [PlanEdit] {
        var edits: [OccurrenceID: PlanEdit] = [:]
        func record(
            _ op: PlanEdit.Operation, _ id: OccurrenceID, _ title: String, _ before: TimeRange?, _ after: TimeRange?
        ) {
            edits[id] = PlanEdit(op: op, id: id, title: title, before: before, after: after, reason: reason(id))
        }
        func compare(_ id: OccurrenceID) { compare(id, original.occurrence(id), working.occurrence(id)) }
        func compare(_ id: OccurrenceID, _ old: Occurrence?, _ new: Occurrence?) {
            switch (old, new) {
            case (let o?, let n?):
                if n.state == .skipped && o.state != .skipped {
                    record(.skip, id, n.title, TimeRange(o), nil)
                } else if o.start != n.start || o.end != n.end {
                    record(o.state == n.state ? .move : .update, id, n.title, TimeRange(o), TimeRange(n))
                } else if o != n {
                    record(.update, id, n.title, TimeRange(o), TimeRange(n))
                }
            case (nil, let n?): record(.create, id, n.title, nil, TimeRange(n))
            case (let o?, nil): record(.delete, id, o.title, TimeRange(o), nil)
            case (nil, nil): break
            }
        }

        for change in changes {
            switch change.entity {
            case .task:
                let oldTask = original.tasks[change.key]
                let newTask = working.tasks[change.key]
                if (oldTask ?? newTask)?.isSeries == true {
                    // A series as a whole: report it by its task id, placed at its first session.
                    let id = OccurrenceID(taskID: change.key)
                    let range = { (t: StudyTask) in TimeRange(start: t.start, end: t.end) }
                    switch (oldTask, newTask) {
                    case (nil, let n?): record(.create, id, n.title, nil, range(n))
                    case (let o?, nil): record(.delete, id, o.title, range(o), nil)
                    case (let o?, let n?): record(.update, id, n.title, range(o), range(n))
                    default: break
                    }
                } else {
                    compare(OccurrenceID(taskID: change.key))
                }
            case .override:
                guard let id = OccurrenceID(change.key), working.tasks[id.taskID] != nil,
                    original.tasks[id.taskID] != nil
                else { continue }
                compare(id)
            case .slide:
                guard let id = OccurrenceID(change.key), let date = id.originalDate,
                    let task = working.tasks[id.taskID], original.tasks[id.taskID] != nil
                else { continue }
                // Every original date from the slide's start up to `through`, and after it those
                // whose occurrence a negative slide pulls to `through` or before (or pulled, when
                // undone): at most as many days later as the slides ever add up to backwards.
                func furthestBack(_ plan: UserPlan) -> Int {
                    var total = 0
                    var lowest = 0
                    for slide in plan.slides[task.id] ?? [] {
                        total += slide.days
                        lowest = min(lowest, total)
                    }
                    return lowest
                }
                let pull = min(furthestBack(original), furthestBack(working))
                var n = OccurrenceExpander.firstIndex(onOrAfter: date, of: task)
                while true {
                    let d = OccurrenceExpander.recurrenceDate(of: task, index: n)
                    n += 1
                    if let until = task.repeatRule?.until, d > until { break }
                    if d > through.adding(days: -pull) { break }
                    let id = OccurrenceID(taskID: task.id, originalDate: d)
                    let old = original.occurrence(id)
                    let new = working.occurrence(id)
                    let sitsInRange = [old, new].contains { $0.map { $0.start.date <= through } == true }
                    if d <= through || sitsInRange { compare(id, old, new) }
                }
            }
        }
        // Sorted by where each edit lands (or was), then id, through a list of keys: edits are
        // large values, and the comparisons would otherwise dig their starts out every time.
        let list = Array(edits.values)
        let starts = list.map { $0.after?.start ?? $0.before?.start }
        let order = list.indices.sorted { a, b in
            if starts[a] != starts[b], let ka = starts[a], let kb = starts[b] { return ka < kb }
            return list[a].id < list[b].id
        }
        return order.map { list[$0] }
    }
}
