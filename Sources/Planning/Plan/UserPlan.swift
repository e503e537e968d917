import Foundation
import JSON

/// One user's plan in memory: the working copy that local rules and the model's tool calls
/// edit. Nothing here touches the database; the nightly job diffs the working copy against
/// the plan it loaded and commits the difference as one changeset.
package struct UserPlan: Hashable, Sendable {
    package var user: User
    package private(set) var tasks: [String: StudyTask]
    package private(set) var overrides: [OccurrenceID: OccurrenceOverride]
    package private(set) var slides: [String: [SeriesSlide]]
    /// How far back the plan knows its series' overrides: every override whose original date is
    /// on or after this date was loaded (a window read, `PlanRepository.loadPlan(user:window:)`);
    /// nil when the whole history is here. The rules look for stale series sessions only
    /// where the plan knows what happened (docs/planning.md §2).
    package var historyFrom: CivilDate?
    /// Series whose every override is here although `historyFrom` is set
    /// (`addWholeHistory(ofSeries:overrides:)`): the stale sessions of a kept category stay
    /// open, and their `needs-decision` flag counts all of them every night (docs/planning.md §11.7).
    package private(set) var wholeHistory: Set<String> = []

    package init(
        user: User, tasks: [StudyTask], overrides: [OccurrenceOverride] = [], slides: [SeriesSlide] = [],
        historyFrom: CivilDate? = nil
    ) {
        self.user = user
        self.historyFrom = historyFrom
        self.tasks = UserPlan.firstByKey(tasks, \.id)
        self.overrides = UserPlan.firstByKey(overrides, \.occurrenceID)
        self.slides = Dictionary(grouping: slides, by: \.taskID).mapValues { $0.sorted { $0.from < $1.from } }
    }

    /// The series of a kept category whose history reaches back before `historyFrom`: their
    /// stale sessions are never dropped, so a window read does not see them all, and the
    /// reader adds their whole history (`addWholeHistory(ofSeries:overrides:)`).
    package var seriesWantingWholeHistory: [String] {
        guard let from = historyFrom else { return [] }
        let classifier = OverdueClassifier(
            now: CivilDateTime(date: from, time: TimeOfDay(minutes: 0)), settings: settings)
        return tasks.values.filter {
            $0.isSeries && $0.start.date < from && classifier.keeps(category: $0.category)
                && !wholeHistory.contains($0.id)
        }.map(\.id).sorted()
    }

    /// Adds every override of series `taskID` (those the plan lacks; the rest stay as loaded).
    package mutating func addWholeHistory(ofSeries taskID: String, overrides all: [OccurrenceOverride]) {
        guard tasks[taskID]?.isSeries == true else { return }
        for o in all where o.taskID == taskID && overrides[o.occurrenceID] == nil { overrides[o.occurrenceID] = o }
        wholeHistory.insert(taskID)
    }

    /// The rows by key, the first of rows with the same key kept; the table sized up front (a
    /// night builds two plans of a student's every row).
    private static func firstByKey<Key: Hashable, Row>(_ rows: [Row], _ key: (Row) -> Key) -> [Key: Row] {
        var table = [Key: Row](minimumCapacity: rows.count)
        for row in rows {
            let k = key(row)
            // One hash for the usual row (keys are unique in the store); a repeat puts the first back.
            if let first = table.updateValue(row, forKey: k) { table[k] = first }
        }
        return table
    }

    package var zone: UserZone { user.zone }
    package var settings: UserSettings { user.settings }
    package var allOverrides: [OccurrenceOverride] { overrides.values.sorted { $0.occurrenceID < $1.occurrenceID } }
    package var allSlides: [SeriesSlide] { slides.keys.sorted().flatMap { slides[$0]! } }
    package var sortedTasks: [StudyTask] { tasks.keys.sorted().map { tasks[$0]! } }

    /// The occurrences touching `from ... through`, sorted by start.
    package func occurrences(from: CivilDate, through: CivilDate) -> [Occurrence] {
        // Sorted by (start, id), a total order, so the tasks need not be sorted first.
        OccurrenceExpander.sortedByStart(unsortedOccurrences(from: from, through: through))
    }

    /// `occurrences(from:through:)` in no particular order (for filling an index).
    ///
    /// This runs many times a night on the planner's hot path (every time the busy view grows),
    /// often for a week or less, so it works on the plan's own tables: an override is found by
    /// its id, and nothing is copied or regrouped first. Only the move overrides are collected,
    /// because their occurrences are found by the override rather than by date.
    func unsortedOccurrences(from: CivilDate, through: CivilDate) -> [Occurrence] {
        guard from <= through else { return [] }
        let expander = OccurrenceExpander(zone: zone)
        var moved: [String: [OccurrenceOverride]] = [:]
        for o in overrides.values where o.isMove { moved[o.taskID, default: []].append(o) }
        var result: [Occurrence] = []
        for task in tasks.values {
            expand(task, moved: moved[task.id] ?? [], with: expander, from: from, through: through, into: &result)
        }
        return result
    }

    /// Calls `body` once for every task with occurrences touching `from ... through`, with
    /// those occurrences in no particular order: for counting per task, without grouping the
    /// occurrences of the whole plan by task again.
    ///
    /// Each occurrence that starts in `from ... through` is handed over exactly once; a series
    /// is expanded `chunkDays` at a time (its body called once per chunk that has any), so
    /// counting decades of a daily series holds a year of occurrences, not all of them
    /// (issue 28, item 8: a series from year 1 held 740,000 at once).
    func forEachTask(
        occurrencesFrom from: CivilDate, through: CivilDate, chunkDays: Int = 400,
        _ body: (StudyTask, [Occurrence]) -> Void
    ) {
        guard from <= through else { return }
        let expander = OccurrenceExpander(zone: zone)
        var moved: [String: [OccurrenceOverride]] = [:]
        for o in overrides.values where o.isMove { moved[o.taskID, default: []].append(o) }
        var occurrences: [Occurrence] = []
        for task in tasks.values {
            let taskMoves = moved[task.id] ?? []
            // A one-off is one occurrence; a series' moved sessions may start before its own
            // first date, so its chunks begin at the earliest of those.
            var chunkStart = from
            if task.repeatRule != nil {
                let earliest = taskMoves.compactMap { $0.start?.date }.min().map { min($0, task.start.date) }
                chunkStart = max(from, earliest ?? task.start.date)
            }
            let chunk = task.repeatRule == nil ? from.days(until: through) + 1 : max(chunkDays, 1)
            while chunkStart <= through {
                let chunkEnd = min(chunkStart.adding(days: chunk - 1), through)
                occurrences.removeAll(keepingCapacity: true)
                expand(task, moved: taskMoves, with: expander, from: chunkStart, through: chunkEnd, into: &occurrences)
                occurrences.removeAll { $0.start.date < chunkStart || $0.start.date > chunkEnd }
                if !occurrences.isEmpty { body(task, occurrences) }
                chunkStart = chunkEnd.adding(days: 1)
            }
        }
    }

    /// Appends the occurrences of a task (one-off or series) touching `from ... through`.
    private func expand(
        _ task: StudyTask, moved: [OccurrenceOverride], with expander: OccurrenceExpander,
        from: CivilDate, through: CivilDate, into result: inout [Occurrence]
    ) {
        if task.repeatRule == nil {
            if task.start.date <= through && task.lastDate >= from {
                result.append(OccurrenceExpander.oneOff(task))
            }
        } else {
            expand(series: task, moved: moved, with: expander, from: from, through: through, into: &result)
        }
    }

    /// The occurrences of one series touching `from ... through`, in no particular order
    /// (`unsortedOccurrences(from:through:)` for one task: a series slide re-reads its series).
    func unsortedOccurrences(ofSeries task: StudyTask, from: CivilDate, through: CivilDate) -> [Occurrence] {
        guard from <= through, task.repeatRule != nil else { return [] }
        var result: [Occurrence] = []
        expand(
            series: task, moved: overrides.values.filter { $0.isMove && $0.taskID == task.id },
            with: OccurrenceExpander(zone: zone), from: from, through: through, into: &result)
        return result
    }

    /// Expands one series from the plan's tables: its overrides found by id, its move overrides
    /// (`moved`) collected by the caller.
    private func expand(
        series task: StudyTask, moved: [OccurrenceOverride], with expander: OccurrenceExpander,
        from: CivilDate, through: CivilDate, into result: inout [Occurrence]
    ) {
        let id = task.id
        expander.expand(
            series: task, override: { overrides[OccurrenceID(taskID: id, originalDate: $0)] },
            moved: moved, slides: slides[id] ?? [], from: from, through: through, into: &result)
    }

    /// The occurrence with this id, wherever it currently sits.
    package func occurrence(_ id: OccurrenceID) -> Occurrence? {
        guard let task = tasks[id.taskID] else { return nil }
        guard let date = id.originalDate else {
            // A one-off task is its own occurrence: no expansion (this is asked thousands of
            // times a night).
            return task.isSeries ? nil : OccurrenceExpander.oneOff(task)
        }
        guard OccurrenceExpander.isRecurrenceDate(date, of: task) else { return nil }
        return OccurrenceExpander(zone: zone).occurrence(
            of: task, originalDate: date, override: overrides[id],
            slides: slides[task.id] ?? [])
    }

    // MARK: - Edits

    /// The task of an id that names an occurrence (as in `occurrence(_:)`): undated for a one-off
    /// task, one of its recurrence dates for a series. Edits of any other id change nothing, so
    /// a stray id can neither rewrite a whole series nor leave an override that matches nothing.
    private func task(of id: OccurrenceID) -> StudyTask? {
        guard let task = tasks[id.taskID] else { return nil }
        guard let date = id.originalDate else { return task.isSeries ? nil : task }
        return OccurrenceExpander.isRecurrenceDate(date, of: task) ? task : nil
    }

    /// Moves one occurrence: a one-off task's own times, or a move override of a series occurrence.
    package mutating func move(_ id: OccurrenceID, start: CivilDateTime, end: CivilDateTime) {
        guard var task = task(of: id) else { return }
        if let date = id.originalDate {
            var o = overrides[id] ?? OccurrenceOverride(taskID: task.id, originalDate: date, state: .open, version: 0)
            let scheduled = OccurrenceExpander(zone: zone).scheduledPlace(
                of: task, originalDate: date, slides: slides[task.id] ?? [])
            if scheduled.start == start && scheduled.end == end {
                // Back where the series puts it: no move is needed, and an open occurrence
                // needs no override at all (a completed or skipped one keeps its state).
                o.start = nil
                o.end = nil
                overrides[id] = o.state == .open ? nil : o
            } else {
                o.start = start
                o.end = end
                overrides[id] = o
            }
        } else {
            task.start = start
            task.end = end
            tasks[task.id] = task
        }
    }

    /// Marks a series occurrence skipped (its history stays; the series goes on).
    package mutating func skip(_ id: OccurrenceID) {
        guard let date = id.originalDate, task(of: id) != nil else { return }
        var o = overrides[id] ?? OccurrenceOverride(taskID: id.taskID, originalDate: date, state: .skipped, version: 0)
        o.state = .skipped
        overrides[id] = o
    }

    /// Marks an occurrence completed (a one-off task's flag, or a series occurrence's override).
    package mutating func complete(_ id: OccurrenceID) {
        guard var task = task(of: id) else { return }
        if let date = id.originalDate {
            var o =
                overrides[id]
                ?? OccurrenceOverride(taskID: id.taskID, originalDate: date, state: .completed, version: 0)
            o.state = .completed
            overrides[id] = o
        } else {
            task.completed = true
            tasks[task.id] = task
        }
    }

    /// Deletes a task with its overrides and slides.
    package mutating func deleteTask(_ taskID: String) {
        tasks[taskID] = nil
        slides[taskID] = nil
        for key in overrides.keys where key.taskID == taskID { overrides[key] = nil }
    }

    /// Adds or replaces a task.
    package mutating func put(_ task: StudyTask) {
        tasks[task.id] = task
    }

    /// Adds or replaces a task together with all of its overrides and slides (import: the
    /// document is authoritative for the series it contains).
    package mutating func replace(
        _ task: StudyTask, overrides newOverrides: [OccurrenceOverride], slides newSlides: [SeriesSlide]
    ) {
        deleteTask(task.id)
        tasks[task.id] = task
        for o in newOverrides { overrides[o.occurrenceID] = o }
        if !newSlides.isEmpty { slides[task.id] = newSlides.sorted { $0.from < $1.from } }
    }

    /// The plan with row changes applied (after-images set, absent after-images deleted):
    /// what the database will hold once a changeset commits, for a plan loaded in full.
    package func applying(_ changes: [RowChange]) throws(DataError) -> UserPlan {
        var plan = self
        for change in changes {
            switch change.entity {
            case .task:
                if let after = change.after {
                    plan.tasks[change.key] = try RowImage.task(from: after)
                } else {
                    plan.deleteTask(change.key)
                }
            case .override:
                guard let id = OccurrenceID(change.key) else { continue }
                plan.overrides[id] = try change.after.map { (image: JSONValue) throws(DataError) in
                    try RowImage.override(from: image)
                }
            case .slide:
                guard let id = OccurrenceID(change.key), let from = id.originalDate else { continue }
                var list = (plan.slides[id.taskID] ?? []).filter { $0.from != from }
                if let after = change.after { list.append(try RowImage.slide(from: after)) }
                list.sort { $0.from < $1.from }
                plan.slides[id.taskID] = list.isEmpty ? nil : list
            }
        }
        return plan
    }

    /// The plan with its series (and their overrides and slides) as they are and `oneOffs` as
    /// its only one-off tasks.
    package func replacingOneOffTasks(with oneOffs: [StudyTask]) -> UserPlan {
        var plan = self
        plan.tasks = plan.tasks.filter { $0.value.isSeries }
        for task in oneOffs where !task.isSeries { plan.tasks[task.id] = task }
        return plan
    }

    /// Adds a slide of `days` from `from` onward; slides of one series from the same date merge.
    /// Slides are version-1 data: the rules write none, but stored ones are read and diffed, and
    /// tests build such plans with this.
    package mutating func addSlide(taskID: String, from: CivilDate, days: Int) {
        var list = slides[taskID] ?? []
        if let i = list.firstIndex(where: { $0.from == from }) {
            list[i].days += days
            if list[i].days == 0 { list.remove(at: i) }
        } else if days != 0 {
            list.append(SeriesSlide(taskID: taskID, from: from, days: days, version: 0))
            list.sort { $0.from < $1.from }
        }
        slides[taskID] = list.isEmpty ? nil : list
    }
}

// MARK: - "This and following" (issue 13, item 3)

extension UserPlan {
    /// Where a change of a series "from `date` on" begins: its first original recurrence
    /// date on or after `date`, or nil when the series has none left. A monthly series on day
    /// 29–31 continues from a date on its anchor day, so the new series keeps that anchor
    /// (a split on Feb 28 would re-anchor every later month on the 28th).
    package func splitDate(ofSeries taskID: String, from date: CivilDate) -> CivilDate? {
        guard let task = tasks[taskID], let rule = task.repeatRule else { return nil }
        var n = OccurrenceExpander.firstIndex(onOrAfter: date, of: task)
        for _ in 0..<48 {
            let d = OccurrenceExpander.recurrenceDate(of: task, index: n)
            if let until = rule.until, d > until { return nil }
            if rule.every != .monthly || d.day == task.start.date.day { return d }
            n += 1
        }
        return nil
    }

    /// Ends series `taskID` the day before `date` and continues it from `date` as a new
    /// series `newID` with the same times, rule, end date and subtasks; the overrides (and
    /// version-1 slides) of `date` and later move to the new series, and slides from earlier
    /// dates that still reach those sessions are carried over, so every session stays where it
    /// was. The past keeps its titles, categories and statistics when the caller then edits
    /// the new series only: this is how a change "from today on" is made, as calendar apps
    /// split "this and following events".
    ///
    /// - Parameter date: an original recurrence date after the series' first (see
    ///   `splitDate(ofSeries:from:)`); anything else changes nothing.
    /// - Returns: the new series, or nil when nothing was split.
    @discardableResult
    package mutating func splitSeries(_ taskID: String, at date: CivilDate, newID: String, now: Date) -> StudyTask? {
        guard var old = tasks[taskID], old.repeatRule != nil, date > old.start.date, tasks[newID] == nil,
            OccurrenceExpander.isRecurrenceDate(date, of: old)
        else { return nil }
        var new = old
        new.id = newID
        new.start = CivilDateTime(date: date, time: old.start.time)
        new.end =
            old.allDay
            ? CivilDateTime(date: date.adding(days: old.start.date.days(until: old.end.date)), time: old.end.time)
            : new.start.adding(minutes: old.lengthMinutes)
        new.createdAt = now
        new.updatedAt = now
        // The part that ends keeps the missed policy it had: an end date would otherwise turn
        // a habit (skip) into a course (shift) by default (docs/planning.md §4).
        let policy = old.repeatRule?.effectiveMissed
        old.repeatRule?.missed = policy
        old.repeatRule?.until = date.adding(days: -1)
        old.updatedAt = now
        for (key, o) in overrides where key.taskID == taskID && o.originalDate >= date {
            overrides[key] = nil
            var moved = o
            moved.taskID = newID
            overrides[moved.occurrenceID] = moved
        }
        let oldSlides = slides[taskID] ?? []
        let carried = oldSlides.filter { $0.from < date }.reduce(0) { $0 + $1.days }
        var newSlides = oldSlides.filter { $0.from >= date }.map { s -> SeriesSlide in
            var t = s
            t.taskID = newID
            return t
        }
        if carried != 0 {
            if let i = newSlides.firstIndex(where: { $0.from == date }) {
                newSlides[i].days += carried
            } else {
                newSlides.insert(SeriesSlide(taskID: newID, from: date, days: carried, version: 0), at: 0)
            }
        }
        let kept = oldSlides.filter { $0.from < date }
        slides[taskID] = kept.isEmpty ? nil : kept
        slides[newID] = newSlides.isEmpty ? nil : newSlides
        tasks[taskID] = old
        tasks[newID] = new
        return new
    }
}
