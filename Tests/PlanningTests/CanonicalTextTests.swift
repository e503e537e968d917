import Foundation
import Planning
import Testing

@Suite("Reading replan's date shapes from bytes gives what reading their text gives; writing pads like the formatters")
struct CanonicalTextTests {
    func read<T>(_ text: String, _ reader: (UnsafeBufferPointer<UInt8>) -> T?) -> T? {
        var text = text
        return text.withUTF8 { reader($0) }
    }

    @Test(arguments: ["2025-01-06", "2024-02-29", "0001-01-01", "9999-12-31"])
    func datesRoundTrip(text: String) {
        let date = read(text) { CivilDate(utf8: $0) }
        #expect(date == CivilDate(text))
        #expect(date?.description == text)
    }

    @Test(arguments: ["2025-02-29", "2025-13-01", "2025-1-06", "2025-01-06T10:00", "２０２５-01-06", "+025-01-06"])
    func notADateIsNil(text: String) {
        #expect(read(text) { CivilDate(utf8: $0) } == nil)
        #expect(CivilDate(text) == nil)
    }

    @Test(arguments: ["2025-01-06T00:00", "2025-03-30T02:30", "2024-12-31T23:59"])
    func dateTimesRoundTrip(text: String) {
        let value = read(text) { CivilDateTime(utf8: $0) }
        #expect(value == CivilDateTime(text))
        #expect(value?.description == text)
    }

    @Test(arguments: ["2025-01-06T24:00", "2025-01-06T10:60", "2025-01-06T10:00Z", "2025-01-06T10:00:30"])
    func notADateTimeIsNil(text: String) {
        #expect(read(text) { CivilDateTime(utf8: $0) } == nil)
        #expect(CivilDateTime(text) == nil)
    }

    @Test(arguments: ["2025-01-06 10:00", "2025-01-06T10:00:00"])
    func theOtherAcceptedShapesReadTheSameMinute(text: String) {
        #expect(read(text) { CivilDateTime(utf8: $0) }?.description == "2025-01-06T10:00")
    }

    @Test func timestampsRoundTrip() {
        for text in ["2025-01-07T03:00:00Z", "1970-01-01T00:00:00Z", "2024-02-29T23:59:59Z"] {
            #expect(read(text) { Timestamp.date(utf8: $0) } == Timestamp.date(text))
            #expect(read(text) { Timestamp.date(utf8: $0) }.map(Timestamp.text) == text)
        }
        for text in ["2025-01-07T03:00:60Z", "2025-01-07T03:00:00+24:00", "2025-01-07T03:00:0Z", "2025-01-07"] {
            #expect(read(text) { Timestamp.date(utf8: $0) } == nil)
        }
        // Offsets, a missing seconds field and a lowercase z are read too.
        #expect(Timestamp.date("2025-01-07T11:00:00+08:00") == Timestamp.date("2025-01-07T03:00:00Z"))
        #expect(Timestamp.date("2025-01-06T22:00-05:00") == Timestamp.date("2025-01-07T03:00:00Z"))
        #expect(Timestamp.date("2025-01-07T03:00z") == Timestamp.date("2025-01-07T03:00:00Z"))
    }

    @Test func writingPadsLikeTheFormatters() {
        #expect(CivilDate(year: 7, month: 3, day: 9)?.description == "0007-03-09")
        let date = CivilDate(year: 2025, month: 1, day: 6)!
        #expect(CivilDateTime(date: date, time: TimeOfDay(minutes: 9 * 60 + 5)).description == "2025-01-06T09:05")
        #expect(TimeOfDay(minutes: 1440).description == "24:00")
        // Outside the four-digit years the formatting still pads.
        #expect(CivilDate(dayNumber: 3_000_000).description.count > 10)
    }
}
