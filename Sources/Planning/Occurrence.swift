/// One dated instance of a task, as planning sees it: effective start and end (the override's
/// if moved, else where the series and its slides put it), state and the task's attributes.
public struct Occurrence: Hashable, Sendable {
    public var id: OccurrenceID
    public var title: String
    public var note: String
    public var category: String
    public var color: TaskColor
    public var start: CivilDateTime
    public var end: CivilDateTime
    public var allDay: Bool
    public var state: OccurrenceState
    /// The repeat kind when this is a series occurrence.
    public var series: RepeatRule.Frequency?

    public init(id: OccurrenceID, title: String, note: String = "", category: String, color: TaskColor = .green,
                start: CivilDateTime, end: CivilDateTime, allDay: Bool = false, state: OccurrenceState = .open,
                series: RepeatRule.Frequency? = nil) {
        self.id = id; self.title = title; self.note = note; self.category = category; self.color = color
        self.start = start; self.end = end; self.allDay = allDay; self.state = state; self.series = series
    }

    public var taskID: String { id.taskID }
    public var isSeriesOccurrence: Bool { id.originalDate != nil }

    /// Length in civil minutes; an all-day occurrence counts whole inclusive days.
    public var lengthMinutes: Int {
        allDay ? end.minuteNumber - start.minuteNumber + 1440 : end.minuteNumber - start.minuteNumber
    }

    /// The last local date the occurrence touches (an end at midnight does not touch its day).
    public var lastDate: CivilDate {
        allDay ? end.date : end.adding(minutes: -1).date
    }
}
