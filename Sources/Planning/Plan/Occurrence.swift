/// One dated instance of a task, as planning sees it: effective start and end (the override's
/// if moved, else where the series and its slides put it), state and the task's attributes.
package struct Occurrence: Hashable, Sendable {
    package var id: OccurrenceID
    package var title: String
    package var note: String
    package var category: String
    package var color: TaskColor
    package var start: CivilDateTime
    package var end: CivilDateTime
    package var allDay: Bool
    package var state: OccurrenceState
    /// The repeat kind when this is a series occurrence.
    package var series: RepeatRule.Frequency?

    package init(
        id: OccurrenceID, title: String, note: String = "", category: String, color: TaskColor = .green,
        start: CivilDateTime, end: CivilDateTime, allDay: Bool = false, state: OccurrenceState = .open,
        series: RepeatRule.Frequency? = nil
    ) {
        self.id = id
        self.title = title
        self.note = note
        self.category = category
        self.color = color
        self.start = start
        self.end = end
        self.allDay = allDay
        self.state = state
        self.series = series
    }

    package var taskID: String { id.taskID }
    package var isSeriesOccurrence: Bool { id.originalDate != nil }

    /// Length in civil minutes; an all-day occurrence counts whole inclusive days.
    package var lengthMinutes: Int {
        allDay ? end.minuteNumber - start.minuteNumber + 1440 : end.minuteNumber - start.minuteNumber
    }

    /// The last local date the occurrence touches (an end at midnight does not touch its day).
    package var lastDate: CivilDate {
        allDay ? end.date : end.adding(minutes: -1).date
    }
}
