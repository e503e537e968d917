import Planning
import Testing

@testable import Store

@Suite struct ChildRowKeyTests {
    /// The byte-level reading is a shortcut: it accepts a key exactly when `OccurrenceID` reads
    /// it with a date, and reads the same task and date.
    @Test(arguments: [
        "eng@2025-01-07", "a@2024-02-29", "a@2025-02-29", "mei.eng-1@2025-12-31", "x@y@2025-01-07",
        "@2025-01-07", "eng@", "eng", "", "eng@2025-1-07", "eng@2025-01-7", "eng@2025-13-01", "eng@0000-01-01",
        "eng@2025-01-07T10:00", "數學@2025-01-07", "eng@２025-01-07", "eng@+025-01-07", "eng@2025/01/07",
    ])
    func readsExactlyWhatOccurrenceIDReadsWithADate(key: String) {
        let general = OccurrenceID(key).flatMap { id in id.originalDate.map { (id.taskID, $0) } }
        let fast = ChildRowKey(key).map { ($0.taskID, $0.date) }
        #expect(fast?.0 == general?.0 && fast?.1 == general?.1)
    }
}
