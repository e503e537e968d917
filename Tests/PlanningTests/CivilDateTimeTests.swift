import Planning
import ReplanTestSupport
import Testing

@Suite("CivilDateTime")
struct CivilDateTimeTests {
    @Test("parses YYYY-MM-DDTHH:MM")
    func parsesMinutes() throws {
        let t = try #require(CivilDateTime("2025-01-06T10:00"))
        #expect(t.date == CivilDate(year: 2025, month: 1, day: 6))
        #expect(t.time == TimeOfDay(hour: 10, minute: 0))
        #expect(t.description == "2025-01-06T10:00")
    }

    @Test("accepts :00 seconds")
    func acceptsZeroSeconds() {
        #expect(CivilDateTime("2025-01-06T10:00:00") == CivilDateTime("2025-01-06T10:00"))
        #expect(CivilDateTime("2025-01-06T23:59:00")?.description == "2025-01-06T23:59")
    }

    @Test(
        "rejects non-zero seconds, since replan plans to the minute",
        arguments: ["2025-01-06T10:00:01", "2025-01-06T10:00:30", "2025-01-06T10:00:0"])
    func rejectsSeconds(_ text: String) {
        #expect(CivilDateTime(text) == nil)
    }

    @Test(
        "rejects garbage",
        arguments: [
            "", "garbage", "2025-01-06", "2025-01-06T", "2025-01-06T24:00", "2025-01-06T10:60", "2025-01-06T9:00",
            "2025-02-29T10:00", "2025-01-06X10:00", "2025-01-06T10:00Z", "2025-01-06T10:00+08:00",
            "2025-01-06T10:00:00Z",
            "2025-01-06T10-00",
        ])
    func rejectsGarbage(_ text: String) {
        #expect(CivilDateTime(text) == nil)
    }

    @Test(
        "minute numbers count civil minutes from 1970-01-01T00:00",
        arguments: [
            ("1970-01-01T00:00", 0), ("1970-01-01T00:01", 1), ("1969-12-31T23:59", -1), ("1969-12-31T00:00", -1440),
            ("1970-01-02T00:00", 1440), ("2025-01-01T00:00", 20089 * 1440), ("1900-01-01T12:30", -25567 * 1440 + 750),
        ])
    func minuteNumbers(_ text: String, _ minutes: Int) {
        #expect(at(text).minuteNumber == minutes)
        #expect(CivilDateTime(minuteNumber: minutes) == at(text))
    }

    @Test("minute numbers round-trip on both sides of 1970")
    func minuteNumbersRoundTrip() {
        for m in stride(from: -3 * 1440 - 7, through: 3 * 1440 + 7, by: 7) {
            let t = CivilDateTime(minuteNumber: m)
            #expect(t.minuteNumber == m)
            #expect((0..<1440).contains(t.time.minutes))
        }
    }

    @Test("adding minutes crosses midnight both ways")
    func addingMinutes() {
        #expect(at("2025-01-06T23:30").adding(minutes: 45) == at("2025-01-07T00:15"))
        #expect(at("2025-01-06T00:15").adding(minutes: -30) == at("2025-01-05T23:45"))
        #expect(at("2025-01-01T00:00").adding(minutes: -1) == at("2024-12-31T23:59"))
        #expect(at("1970-01-01T00:00").adding(minutes: -1441) == at("1969-12-30T23:59"))
        #expect(at("2025-01-06T10:00").adding(minutes: -3 * 1440) == at("2025-01-03T10:00"))
    }

    @Test("adding days keeps the wall-clock time")
    func addingDays() {
        #expect(at("2025-03-08T20:00").adding(days: 1) == at("2025-03-09T20:00"))
        #expect(at("2025-01-01T09:00").adding(days: -1) == at("2024-12-31T09:00"))
    }

    @Test("a time of day past midnight or before it normalises into the date")
    func normalisesTimeOverflow() {
        let d = CivilDate(year: 2025, month: 1, day: 6)!
        #expect(CivilDateTime(date: d, time: TimeOfDay(minutes: 1440)) == at("2025-01-07T00:00"))
        #expect(CivilDateTime(date: d, time: TimeOfDay(minutes: 1500)) == at("2025-01-07T01:00"))
        #expect(CivilDateTime(date: d, time: TimeOfDay(minutes: -1)) == at("2025-01-05T23:59"))
        #expect(CivilDateTime(date: d, time: TimeOfDay(minutes: -1440)) == at("2025-01-05T00:00"))
    }

    @Test("date-times order by civil minute")
    func ordering() {
        #expect(at("2025-01-06T09:59") < at("2025-01-06T10:00"))
        #expect(at("2025-01-05T23:59") < at("2025-01-06T00:00"))
    }

    @Test("times of day parse HH:MM and 24:00 only as an end of day")
    func timesOfDay() {
        #expect(TimeOfDay("09:30")?.minutes == 570)
        #expect(TimeOfDay("23:59")?.minutes == 1439)
        #expect(TimeOfDay("24:00") == nil)
        #expect(TimeOfDay("24:00", allowingEndOfDay: true)?.minutes == 1440)
        #expect(TimeOfDay("24:01", allowingEndOfDay: true) == nil)
        #expect(TimeOfDay("9:30") == nil)
        #expect(TimeOfDay("09:60") == nil)
        #expect(TimeOfDay("0930") == nil)
        #expect(TimeOfDay(hour: 7, minute: 5).description == "07:05")
    }
}
