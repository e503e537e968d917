/// How one occurrence of a series differs from what the series says (data.md "Occurrence
/// override"), keyed by the task and the occurrence's original local date.
///
/// Overrides are sparse: an occurrence without one is open and sits where the series (and its
/// slides) put it. `start`/`end` set means the occurrence was moved; it can be moved and
/// completed at the same time.
public struct OccurrenceOverride: Hashable, Sendable {
    public var taskID: String
    public var originalDate: CivilDate
    public var state: OccurrenceState
    public var start: CivilDateTime?
    public var end: CivilDateTime?
    public var version: Int

    public init(taskID: String, originalDate: CivilDate, state: OccurrenceState,
                start: CivilDateTime? = nil, end: CivilDateTime? = nil, version: Int = 1) {
        self.taskID = taskID; self.originalDate = originalDate; self.state = state
        self.start = start; self.end = end; self.version = version
    }

    public var isMove: Bool { start != nil }
    public var occurrenceID: OccurrenceID { OccurrenceID(taskID: taskID, originalDate: originalDate) }
}
