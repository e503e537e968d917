/// From `from` (an original occurrence date) onward, a series' occurrences sit `days` later
/// (planning.md §3). Several slides of one series add up.
public struct SeriesSlide: Hashable, Sendable {
    public var taskID: String
    public var from: CivilDate
    public var days: Int
    public var version: Int

    public init(taskID: String, from: CivilDate, days: Int, version: Int = 1) {
        self.taskID = taskID; self.from = from; self.days = days; self.version = version
    }

    /// The slide row's key in a changeset: `TASKID@YYYY-MM-DD` of its from date.
    public var key: String { OccurrenceID(taskID: taskID, originalDate: from).description }
}
