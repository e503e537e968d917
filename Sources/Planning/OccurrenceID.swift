/// The id of an occurrence: `TASKID` for a one-off task, `TASKID@YYYY-MM-DD` (original local
/// date) for a series occurrence.
public struct OccurrenceID: Hashable, Comparable, Sendable, CustomStringConvertible {
    public let taskID: String
    public let originalDate: CivilDate?

    public init(taskID: String, originalDate: CivilDate? = nil) {
        self.taskID = taskID; self.originalDate = originalDate
    }

    public init?(_ text: String) {
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

    public var description: String {
        originalDate.map { "\(taskID)@\($0)" } ?? taskID
    }

    public static func < (a: OccurrenceID, b: OccurrenceID) -> Bool { a.description < b.description }
}
