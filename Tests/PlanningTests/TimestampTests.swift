import Foundation
import Planning
import Testing

private let jan7 = Date(timeIntervalSince1970: 1_736_218_800) // 2025-01-07T03:00:00Z

@Suite("Timestamp")
struct TimestampTests {
    @Test(
        "instants print as UTC ISO-8601 with seconds",
        arguments: [
            (0.0, "1970-01-01T00:00:00Z"),
            (1_736_218_800, "2025-01-07T03:00:00Z"),
            (1_736_218_859, "2025-01-07T03:00:59Z"),
            (951_825_600, "2000-02-29T12:00:00Z"),
            (-1, "1969-12-31T23:59:59Z"),
            (-86_400, "1969-12-31T00:00:00Z"),
            (-86_401, "1969-12-30T23:59:59Z"),
            (1.999, "1970-01-01T00:00:01Z"), // fractions are dropped, never rounded up
            (-0.5, "1969-12-31T23:59:59Z"),
        ] as [(Double, String)])
    func printing(seconds: Double, text: String) {
        #expect(Timestamp.text(Date(timeIntervalSince1970: seconds)) == text)
    }

    @Test(
        "ISO-8601 instants parse with Z or an offset, with or without seconds",
        arguments: [
            "2025-01-07T03:00:00Z", "2025-01-07T03:00Z", "2025-01-07T03:00z",
            "2025-01-07T11:00+08:00", "2025-01-07T11:00:00+08:00",
            "2025-01-06T22:00-05:00", "2025-01-06T22:00:00-05:00",
            "2025-01-07T08:30+05:30", "2025-01-07T03:00+00:00", "2025-01-07T03:00-00:00",
            "2025-01-07 03:00:00Z",
        ])
    func parsing(_ text: String) {
        #expect(Timestamp.date(text) == jan7)
    }

    @Test("seconds are kept; offsets reach across midnight and years")
    func secondsAndDayChanges() {
        #expect(Timestamp.date("2025-01-07T03:00:59Z") == jan7.addingTimeInterval(59))
        #expect(Timestamp.date("2025-01-07T11:00:01+08:00") == jan7.addingTimeInterval(1))
        #expect(Timestamp.date("2024-12-31T23:30-01:00") == Timestamp.date("2025-01-01T00:30Z"))
        #expect(Timestamp.date("1969-12-31T23:59:59Z") == Date(timeIntervalSince1970: -1))
    }

    @Test(
        "what is not an instant gives nil",
        arguments: [
            "", "garbage", "Z", "+08:00",
            "2025-01-07T03:00", // no zone: civil time, not an instant
            "2025-01-07T03:00:00", "2025-01-07", "2025-01-07Z",
            "2025-01-07T03:00:60Z", "2025-01-07T03:00:5Z", "2025-01-07T03:00:00.000Z",
            "2025-01-07T24:00Z", "2025-01-07T03:60Z", "2025-02-30T03:00Z", "2025-13-01T00:00Z",
            "2025-01-07T11:00+0800", "2025-01-07T11:00+8:00", "2025-01-07T11:00+24:00", "2025-01-07T11:00*08:00",
            "2025-01-07T11:00 +08:00", "2025-01-07T03:00ZZ", " 2025-01-07T03:00Z",
            "2025-01-07T03:00:+5Z", "2025-01-07T03:00: 5Z", "2025-01-07T11:00:+1+08:00",
        ])
    func garbage(_ text: String) {
        #expect(Timestamp.date(text) == nil)
    }

    @Test(
        "printing then parsing gives the same instant (whole seconds)",
        arguments: [0, 1, -1, 59, 1_736_218_859, 4_102_444_799, -2_208_988_800])
    func roundTrip(_ seconds: Int) {
        let instant = Date(timeIntervalSince1970: Double(seconds))
        #expect(Timestamp.date(Timestamp.text(instant)) == instant)
    }
}
