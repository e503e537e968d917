/// From `from` (an original occurrence date) onward, a series' occurrences sit `days` later
/// (docs/planning.md §4.4). Several slides of one series add up.
package struct SeriesSlide: Hashable, Sendable {
    package var taskID: String
    package var from: CivilDate
    package var days: Int
    package var version: Int

    package init(taskID: String, from: CivilDate, days: Int, version: Int = 1) {
        self.taskID = taskID
        self.from = from
        self.days = days
        self.version = version
    }

    /// The slide row's key in a changeset: `TASKID@YYYY-MM-DD` of its from date.
    package var key: String { OccurrenceID(taskID: taskID, originalDate: from).description }
}
