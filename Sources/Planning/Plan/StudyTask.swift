import Foundation

/// A study task (docs/data-format.md §2.3): a one-off session, or a series when `repeatRule` is set.
///
/// Named `StudyTask` so it never shadows Swift's concurrency `Task`. Start and end are local
/// wall-clock times in the owner's zone; an all-day task uses midnight of its first and last
/// (inclusive) day, so a one-day all-day task has `end == start`.
package struct StudyTask: Hashable, Sendable {
    package var id: String
    package var userID: String
    package var title: String
    package var note: String
    package var category: String
    package var color: TaskColor
    package var start: CivilDateTime
    package var end: CivilDateTime
    package var allDay: Bool
    package var completed: Bool
    package var subtasks: [Subtask]
    package var repeatRule: RepeatRule?
    package var createdAt: Date
    package var updatedAt: Date
    /// Bumped on every change; changesets compare it to detect concurrent edits.
    package var version: Int

    package init(
        id: String, userID: String, title: String, note: String = "", category: String,
        color: TaskColor = .green, start: CivilDateTime, end: CivilDateTime, allDay: Bool = false,
        completed: Bool = false, subtasks: [Subtask] = [], repeatRule: RepeatRule? = nil,
        createdAt: Date = Date(timeIntervalSince1970: 0), updatedAt: Date? = nil, version: Int = 1
    ) {
        self.id = id
        self.userID = userID
        self.title = title
        self.note = note
        self.category = category
        self.color = color
        self.start = start
        self.end = end
        self.allDay = allDay
        self.completed = completed
        self.subtasks = subtasks
        self.repeatRule = repeatRule
        self.createdAt = createdAt
        self.updatedAt = updatedAt ?? createdAt
        self.version = version
    }

    package var isSeries: Bool { repeatRule != nil }

    /// The last local date its (first) session touches: an end at midnight does not touch its day.
    package var lastDate: CivilDate { allDay ? end.date : end.adding(minutes: -1).date }

    /// Length in civil minutes (for all-day tasks: whole days × 1440, inclusive end).
    package var lengthMinutes: Int {
        allDay ? (end.minuteNumber - start.minuteNumber) + 1440 : end.minuteNumber - start.minuteNumber
    }

    /// Checks every rule of docs/data-format.md §2.3 on this task; the error names the field.
    package func validate() throws(DataError) {
        try TaskRules.validateID(id)
        try TaskRules.validateTitle(title)
        try TaskRules.validateNote(note)
        try TaskRules.validateCategory(category)
        try TaskRules.validateTimes(start: start, end: end, allDay: allDay)
        for (i, s) in subtasks.enumerated() {
            do { try TaskRules.validateTitle(s.title) } catch { throw error.under("subtasks[\(i)]") }
        }
        if let until = repeatRule?.until, until < start.date {
            throw DataError(
                path: "repeat.until", message: "until \(until) is before the first session on \(start.date)")
        }
        if repeatRule != nil && completed {
            throw DataError(path: "completed", message: "a series is completed per occurrence, not as a whole")
        }
    }
}
