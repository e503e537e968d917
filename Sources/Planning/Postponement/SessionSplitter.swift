import Foundation

extension PostponementPass {
    /// Splits a session that fits nowhere whole into parts of the session length (docs/planning.md
    /// §6.4, only with `splitSessions` on), titled `Title [i/n]`, placed in order by the general
    /// search within the horizon of `from`.
    ///
    /// Decision: the parts are new one-off tasks and replace the original, which a student
    /// would otherwise see twice: a one-off task is deleted, a series occurrence is skipped
    /// (the series goes on). All or nothing: when one part does not fit, nothing changes and
    /// the caller flags the session. The note travels with every part; subtasks go with the
    /// first part only, so a checklist is not ticked off three times.
    ///
    /// Returns the last day a part uses, or nil.
    mutating func split(
        _ o: Occurrence, from: CivilDate, reason: PlanEdit.Reason,
        allowed: (CivilDate) -> Bool
    ) -> CivilDate? {
        let size = settings.sessionMinutes
        guard size > 0, !o.allDay else { return nil }
        let total = length(of: o)
        let count = (total + size - 1) / size
        let lastDay = from.adding(days: settings.horizonDays)
        var scratch = busy
        var parts: [TimeRange] = []
        for i in 0..<count {
            let length = i == count - 1 ? total - size * (count - 1) : size
            let dayFrom = parts.last?.end.date ?? from
            var search = finder
            search.horizonDays = dayFrom.days(until: lastDay)
            let preferred = TimeOfDay(minutes: (plannedTime(o).minutes + i * size) % 1440)
            guard
                let r = search.slot(
                    length: length, preferredTime: preferred, from: dayFrom,
                    notBefore: parts.last?.end, busy: scratch, ignoring: [o.id],
                    allowed: allowed)
            else { return nil }
            parts.append(r)
            scratch.insert(
                Occurrence(
                    id: OccurrenceID(taskID: "\u{0}part\(i)"), title: o.title, category: o.category,
                    start: r.start, end: r.end))
        }

        let original = plan.tasks[o.taskID]
        if o.isSeriesOccurrence { plan.skip(o.id) } else { plan.deleteTask(o.taskID) }
        busy.remove(o.id)
        edits.append(
            PlanEdit(
                op: o.isSeriesOccurrence ? .skip : .delete, id: o.id, title: o.title,
                before: TimeRange(o), after: nil, reason: reason,
                detail: "split into \(count) sessions"))
        for (i, r) in parts.enumerated() {
            let suffix = " [\(i + 1)/\(count)]"
            let title = String(o.title.trimmingWhitespace().prefix(200 - suffix.count)) + suffix
            let task = StudyTask(
                id: partID(of: o, part: i + 1, of: count), userID: plan.user.id, title: title,
                note: o.note, category: o.category, color: o.color, start: r.start, end: r.end,
                subtasks: i == 0 ? (original?.subtasks ?? []) : [],
                createdAt: createdAt)
            plan.put(task)
            let part = Occurrence(
                id: OccurrenceID(taskID: task.id), title: title, note: o.note, category: o.category,
                color: o.color, start: r.start, end: r.end)
            busy.insert(part)
            edits.append(
                PlanEdit(
                    op: .create, id: part.id, title: title, before: nil, after: r, reason: reason,
                    detail: "part \(i + 1) of \(count) of '\(o.title)'"))
        }
        return parts.last!.end.adding(minutes: -1).date
    }

    /// `TASK-2of3`, or `TASK-20250106-2of3` for a series occurrence; never an id in use.
    private func partID(of o: Occurrence, part i: Int, of n: Int) -> String {
        var base = String(o.taskID.prefix(70))
        if let d = o.id.originalDate { base += "-" + d.description.replacingOccurrences(of: "-", with: "") }
        let plain = "\(base)-\(i)of\(n)"
        var id = plain
        var k = 2
        while plan.tasks[id] != nil {
            id = "\(plain)-\(k)"
            k += 1
        }
        return id
    }
}
