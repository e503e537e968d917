/// Expands tasks into the occurrences that touch a date range (docs/planning.md §1.2, docs/data-format.md §2.4).
///
/// Series are never materialised: the recurrence dates whose occurrences can land in the range
/// are computed arithmetically, so a two-week range of a ten-year daily series costs two weeks
/// of work. Overrides and slides are applied on the way.
package struct OccurrenceExpander: Sendable {
    package let zone: UserZone

    package init(zone: UserZone) { self.zone = zone }

    /// Every occurrence whose local dates intersect `from ... through`, sorted by start, then id.
    package func occurrences(
        of tasks: [StudyTask], overrides: [OccurrenceOverride], slides: [SeriesSlide],
        from: CivilDate, through: CivilDate
    ) -> [Occurrence] {
        OccurrenceExpander.sortedByStart(
            unsortedOccurrences(
                of: tasks, overrides: overrides, slides: slides,
                from: from, through: through))
    }

    /// `occurrences` sorted by start, then id.
    static func sortedByStart(_ result: [Occurrence]) -> [Occurrence] {
        // Sort small keys and permute once: occurrences are large values, and moving them
        // around inside the sort costs more than the comparisons.
        let minutes = result.map(\.start.minuteNumber)
        let order = result.indices.sorted { a, b in
            minutes[a] != minutes[b] ? minutes[a] < minutes[b] : result[a].id < result[b].id
        }
        return order.map { result[$0] }
    }

    /// The same occurrences in no particular order, for callers that index them anyway.
    func unsortedOccurrences(
        of tasks: [StudyTask], overrides: [OccurrenceOverride], slides: [SeriesSlide],
        from: CivilDate, through: CivilDate
    ) -> [Occurrence] {
        guard from <= through else { return [] }
        let overridesByTask = Dictionary(grouping: overrides, by: \.taskID)
        let slidesByTask = Dictionary(grouping: slides, by: \.taskID)
        var result: [Occurrence] = []
        for task in tasks {
            if task.repeatRule == nil {
                // The range test on the task itself: most one-off tasks lie outside the range,
                // and building their occurrence first would copy them for nothing.
                if task.start.date <= through && task.lastDate >= from {
                    result.append(OccurrenceExpander.oneOff(task))
                }
            } else {
                expand(
                    series: task, overrides: overridesByTask[task.id] ?? [], slides: slidesByTask[task.id] ?? [],
                    from: from, through: through, into: &result)
            }
        }
        return result
    }

    /// The one occurrence of a one-off task.
    static func oneOff(_ task: StudyTask) -> Occurrence {
        Occurrence(
            id: OccurrenceID(taskID: task.id), title: task.title, note: task.note, category: task.category,
            color: task.color, start: task.start, end: task.end, allDay: task.allDay,
            state: task.completed ? .completed : .open)
    }

    /// The original recurrence date number `n` of a series (n = 0 is the first session).
    package static func recurrenceDate(of task: StudyTask, index n: Int) -> CivilDate {
        let first = task.start.date
        switch task.repeatRule?.every ?? .daily {
        case .daily: return first.adding(days: n)
        case .weekly: return first.adding(days: 7 * n)
        case .monthly: return first.adding(months: n, anchorDay: first.day)
        }
    }

    /// The index of the first recurrence on or after `date` (0 when `date` is before the start).
    package static func firstIndex(onOrAfter date: CivilDate, of task: StudyTask) -> Int {
        let first = task.start.date
        guard date > first else { return 0 }
        var n: Int
        switch task.repeatRule?.every ?? .daily {
        case .daily: n = first.days(until: date)
        case .weekly: n = (first.days(until: date) + 6) / 7
        case .monthly: n = max(0, (date.year - first.year) * 12 + (date.month - first.month) - 1)
        }
        while recurrenceDate(of: task, index: n) < date { n += 1 }
        return n
    }

    /// Whether `date` is one of the series' original recurrence dates.
    package static func isRecurrenceDate(_ date: CivilDate, of task: StudyTask) -> Bool {
        guard let rule = task.repeatRule, date >= task.start.date else { return false }
        if let until = rule.until, date > until { return false }
        let first = task.start.date
        switch rule.every {
        case .daily: return true
        case .weekly: return first.days(until: date) % 7 == 0
        case .monthly:
            let months = (date.year - first.year) * 12 + (date.month - first.month)
            return recurrenceDate(of: task, index: months) == date
        }
    }

    /// Total slide, in days, applying to the occurrence originally on `date`.
    package static func slideDays(for date: CivilDate, slides: [SeriesSlide]) -> Int {
        slides.reduce(0) { $1.from <= date ? $0 + $1.days : $0 }
    }

    /// Where the series (with its slides, before any move override) puts the occurrence of `date`.
    package func scheduledPlace(of task: StudyTask, originalDate: CivilDate, slides: [SeriesSlide]) -> (
        start: CivilDateTime, end: CivilDateTime
    ) {
        let day = originalDate.adding(days: OccurrenceExpander.slideDays(for: originalDate, slides: slides))
        if task.allDay {
            return (
                CivilDateTime(date: day, time: TimeOfDay(minutes: 0)),
                CivilDateTime(
                    date: day.adding(days: task.end.date.dayNumber - task.start.date.dayNumber),
                    time: TimeOfDay(minutes: 0))
            )
        }
        // The series' length in elapsed minutes, also on a DST day (docs/planning.md §1.3).
        return zone.session(at: CivilDateTime(date: day, time: task.start.time), lasting: task.lengthMinutes)
    }

    /// The occurrence of a series on its original date, with overrides and slides applied.
    package func occurrence(
        of task: StudyTask, originalDate: CivilDate, override: OccurrenceOverride?,
        slides: [SeriesSlide]
    ) -> Occurrence {
        var place = scheduledPlace(of: task, originalDate: originalDate, slides: slides)
        if let o = override, let s = o.start, let e = o.end { place = (s, e) }
        return Occurrence(
            id: OccurrenceID(taskID: task.id, originalDate: originalDate), title: task.title,
            note: task.note, category: task.category, color: task.color,
            start: place.start, end: place.end, allDay: task.allDay,
            state: override?.state ?? .open, series: task.repeatRule?.every)
    }

    /// The original dates whose (slid) occurrences can touch `from ... through`, and the
    /// recurrence indexes that may fall between them: a few more than the range has days,
    /// however long the series. Nil when no original date can.
    func candidates(of task: StudyTask, slides: [SeriesSlide], from: CivilDate, through: CivilDate)
        -> (low: CivilDate, high: CivilDate, indexes: ClosedRange<Int>)?
    {
        guard let rule = task.repeatRule else { return nil }
        let spanDays =
            (task.allDay
                ? task.end.date.dayNumber - task.start.date.dayNumber
                : task.end.adding(minutes: -1).date.dayNumber - task.start.date.dayNumber) + 1
        let maxShift = slides.reduce(0) { $0 + max($1.days, 0) }
        let minShift = slides.reduce(0) { $0 + min($1.days, 0) }
        var low = from.adding(days: -(spanDays + maxShift))
        var high = through.adding(days: -minShift)
        let first = task.start.date
        if low < first { low = first }
        if let until = rule.until, until < high { high = until }
        guard low <= high else { return nil }
        let (nLow, nHigh) = indexRange(rule.every, first: first, low: low, high: high)
        guard nLow <= nHigh else { return nil }
        return (low, high, nLow...nHigh)
    }

    private func expand(
        series task: StudyTask, overrides: [OccurrenceOverride], slides: [SeriesSlide],
        from: CivilDate, through: CivilDate, into result: inout [Occurrence]
    ) {
        let overrideByDate = Dictionary(overrides.map { ($0.originalDate, $0) }, uniquingKeysWith: { a, _ in a })
        expand(
            series: task, override: { overrideByDate[$0] }, moved: overrides.filter(\.isMove), slides: slides,
            from: from, through: through, into: &result)
    }

    /// Expands one series.
    ///
    /// - Parameters:
    ///   - override: the override of an original date, if any.
    ///   - moved: the series' move overrides (their occurrences sit wherever they were put, so
    ///     they are found by their override, not by their date).
    func expand(
        series task: StudyTask, override: (CivilDate) -> OccurrenceOverride?, moved: [OccurrenceOverride],
        slides: [SeriesSlide], from: CivilDate, through: CivilDate, into result: inout [Occurrence]
    ) {
        func inRange(_ o: Occurrence) -> Bool { o.start.date <= through && o.lastDate >= from }

        if let c = candidates(of: task, slides: slides, from: from, through: through) {
            for n in c.indexes {
                let date = OccurrenceExpander.recurrenceDate(of: task, index: n)
                guard date >= c.low, date <= c.high else { continue }
                let override = override(date)
                if override?.isMove == true { continue } // placed by the override loop below
                let o = occurrence(of: task, originalDate: date, override: override, slides: slides)
                if inRange(o) { result.append(o) }
            }
        }
        // Moved occurrences sit wherever the student or a changeset put them.
        for override in moved {
            guard OccurrenceExpander.isRecurrenceDate(override.originalDate, of: task) else { continue }
            let o = occurrence(of: task, originalDate: override.originalDate, override: override, slides: slides)
            if inRange(o) { result.append(o) }
        }
    }

    /// Recurrence indexes that may fall in `low ... high` (a superset; dates are re-checked).
    private func indexRange(_ every: RepeatRule.Frequency, first: CivilDate, low: CivilDate, high: CivilDate) -> (
        Int, Int
    ) {
        let a = first.days(until: low)
        let b = first.days(until: high)
        switch every {
        case .daily: return (max(a, 0), b)
        case .weekly: return (max((a + 6) / 7, 0), b / 7)
        case .monthly:
            let ma = (low.year - first.year) * 12 + (low.month - first.month)
            let mb = (high.year - first.year) * 12 + (high.month - first.month)
            return (max(ma, 0), mb)
        }
    }
}
