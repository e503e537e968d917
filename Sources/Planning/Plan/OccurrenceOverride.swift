/// How one occurrence of a series differs from what the series says (docs/data-format.md §2.4 "Occurrence
/// override"), keyed by the task and the occurrence's original local date.
///
/// Overrides are sparse: an occurrence without one is open and sits where the series (and its
/// slides) put it. `start`/`end` set means the occurrence was moved; it can be moved and
/// completed at the same time.
package struct OccurrenceOverride: Hashable, Sendable {
    package var taskID: String
    package var originalDate: CivilDate
    package var state: OccurrenceState
    package var start: CivilDateTime?
    package var end: CivilDateTime?
    package var version: Int

    package init(
        taskID: String, originalDate: CivilDate, state: OccurrenceState,
        start: CivilDateTime? = nil, end: CivilDateTime? = nil, version: Int = 1
    ) {
        self.taskID = taskID
        self.originalDate = originalDate
        self.state = state
        self.start = start
        self.end = end
        self.version = version
    }

    package var isMove: Bool { start != nil }
    package var occurrenceID: OccurrenceID { OccurrenceID(taskID: taskID, originalDate: originalDate) }
}
