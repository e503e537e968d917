import Foundation
import Planning
import Testing

@Suite("Reading and writing replan's own date shapes from bytes gives what the general parsers and formatters give")
struct CanonicalTextTests {
    func read<T>(_ text: String, _ reader: (UnsafeBufferPointer<UInt8>) -> T?) -> T? {
        var text = text
        return text.withUTF8 { reader($0) }
    }

    @Test(arguments: ["2025-01-06", "2024-02-29", "0001-01-01", "9999-12-31"])
    func datesRoundTrip(text: String) {
        let date = read(text, CanonicalText.date)
        #expect(date == CivilDate(text))
        #expect(date?.description == text)
    }

    @Test(arguments: ["2025-02-29", "2025-13-01", "2025-1-06", "2025-01-06T10:00", "２０２５-01-06", "+025-01-06"])
    func notADateIsNil(text: String) {
        #expect(read(text, CanonicalText.date) == nil)
    }

    @Test(arguments: ["2025-01-06T00:00", "2025-03-30T02:30", "2024-12-31T23:59"])
    func dateTimesRoundTrip(text: String) {
        let value = read(text, CanonicalText.dateTime)
        #expect(value == CivilDateTime(text))
        #expect(value?.description == text)
    }

    @Test(arguments: [
        "2025-01-06T24:00", "2025-01-06T10:60", "2025-01-06 10:00", "2025-01-06T10:00:00", "2025-01-06T10:00Z",
    ])
    func otherShapesAreLeftToTheGeneralParser(text: String) {
        #expect(read(text, CanonicalText.dateTime) == nil)
    }

    @Test func timestampsMatchTheGeneralParser() {
        for text in ["2025-01-07T03:00:00Z", "1970-01-01T00:00:00Z", "2024-02-29T23:59:59Z"] {
            #expect(read(text, CanonicalText.timestamp) == Timestamp.date(text))
            #expect(read(text, CanonicalText.timestamp).map(Timestamp.text) == text)
        }
        for text in ["2025-01-07T03:00:60Z", "2025-01-07T03:00:00+08:00", "2025-01-07T03:00Z"] {
            #expect(read(text, CanonicalText.timestamp) == nil)
        }
        // The general parser still reads the shapes the fast path leaves to it.
        #expect(Timestamp.date("2025-01-07T11:00:00+08:00") == Timestamp.date("2025-01-07T03:00:00Z"))
    }

    @Test func writingPadsLikeTheFormatters() {
        #expect(CanonicalText.text(year: 7, month: 3, day: 9) == "0007-03-09")
        #expect(CanonicalText.text(year: 2025, month: 1, day: 6, minutes: 9 * 60 + 5) == "2025-01-06T09:05")
        #expect(CanonicalText.text(minutes: 1440) == "24:00")
        #expect(TimeOfDay(minutes: 1440).description == "24:00")
        // Outside the four-digit years the callers format as before.
        #expect(CanonicalText.text(year: 10_000, month: 1, day: 1) == nil)
        #expect(CivilDate(dayNumber: 3_000_000).description.count > 10)
    }
}
