/// The id of an occurrence: `TASKID` for a one-off task, `TASKID@YYYY-MM-DD` (original local
/// date) for a series occurrence.
package struct OccurrenceID: Hashable, Comparable, Sendable, CustomStringConvertible {
    package let taskID: String
    package let originalDate: CivilDate?

    package init(taskID: String, originalDate: CivilDate? = nil) {
        self.taskID = taskID
        self.originalDate = originalDate
    }

    package init?(_ text: String) {
        let parts = text.split(separator: "@", omittingEmptySubsequences: false)
        switch parts.count {
        case 1 where !text.isEmpty:
            self.init(taskID: text)
        case 2 where !parts[0].isEmpty:
            guard let date = CivilDate(parts[1]) else { return nil }
            self.init(taskID: String(parts[0]), originalDate: date)
        default:
            return nil
        }
    }

    /// The task id and the date's day number (a one-off task's nil date hashes as a number no
    /// date has): ids are the keys of the planner's tables, and hashing an optional date
    /// field by field cost as much again as the task id.
    package func hash(into hasher: inout Hasher) {
        hasher.combine(taskID)
        hasher.combine(originalDate?.dayNumber ?? Int.min)
    }

    package var description: String {
        originalDate.map { "\(taskID)@\($0)" } ?? taskID
    }

    /// By task id, then original date (a one-off task's bare id first). Compared field by field:
    /// sorting occurrences is on the planner's hot path, and building the text is not free.
    package static func < (a: OccurrenceID, b: OccurrenceID) -> Bool {
        if a.taskID != b.taskID { return a.taskID < b.taskID }
        switch (a.originalDate, b.originalDate) {
        case (nil, nil): return false
        case (nil, _): return true
        case (_, nil): return false
        case (let x?, let y?): return x < y
        }
    }
}
