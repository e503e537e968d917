import Planning
import ReplanTestSupport
import Testing

@Suite("CivilDate")
struct CivilDateTests {
    @Test(
        "parses YYYY-MM-DD",
        arguments: ["2025-01-06", "2024-02-29", "2000-02-29", "1969-12-31", "0001-01-01", "9999-12-31"])
    func parsesRealDays(_ text: String) throws {
        let parsed = try #require(CivilDate(text))
        #expect(parsed.description == text)
    }

    @Test(
        "rejects days that do not exist and anything that is not YYYY-MM-DD",
        arguments: [
            "2025-02-29", "1900-02-29", "2025-04-31", "2025-13-01", "2025-00-10", "2025-01-00", "2025-01-32",
            "0000-01-01", "2025-1-06", "2025/01/06", "25-01-06", "2025-01-06T10:00", " 2025-01-06", "2025-01-0a",
            "+025-01-06", "-025-01-06", "",
        ])
    func rejectsBadDates(_ text: String) {
        #expect(CivilDate(text) == nil)
    }

    @Test("components name a real day or give nil")
    func componentsAreChecked() {
        #expect(CivilDate(year: 2024, month: 2, day: 29) != nil)
        #expect(CivilDate(year: 2025, month: 2, day: 29) == nil)
        #expect(CivilDate(year: 2025, month: 6, day: 31) == nil)
    }

    @Test("leap years follow the Gregorian 4/100/400 rule")
    func leapYears() {
        #expect(CivilDate.isLeapYear(2024))
        #expect(!CivilDate.isLeapYear(2025))
        #expect(!CivilDate.isLeapYear(1900))
        #expect(CivilDate.isLeapYear(2000))
    }

    @Test(
        "day numbers count from 1970-01-01",
        arguments: [
            ("1970-01-01", 0), ("1970-01-02", 1), ("1969-12-31", -1), ("2000-01-01", 10957),
            ("2025-01-01", 20089), ("1900-01-01", -25567), ("0001-01-01", -719162), ("2024-02-29", 19782),
        ])
    func dayNumbers(_ text: String, _ number: Int) {
        #expect(date(text).dayNumber == number)
        #expect(CivilDate(dayNumber: number) == date(text))
    }

    @Test("day numbers round-trip and stay consecutive from 1600 to 2400")
    func dayNumbersRoundTripOverCenturies() {
        var previous = CivilDate(year: 1600, month: 1, day: 1)!
        for n in (previous.dayNumber + 1)...CivilDate(year: 2400, month: 12, day: 31)!.dayNumber {
            let d = CivilDate(dayNumber: n)
            guard d.dayNumber == n, CivilDate(year: d.year, month: d.month, day: d.day) == d, previous < d else {
                Issue.record("day number \(n) gives \(d), after \(previous)")
                return
            }
            // Consecutive: the next day of the month, or the first of the next month.
            let expected =
                previous.day < CivilDate.daysInMonth(year: previous.year, month: previous.month)
                ? CivilDate(year: previous.year, month: previous.month, day: previous.day + 1)
                : previous.month < 12
                    ? CivilDate(year: previous.year, month: previous.month + 1, day: 1)
                    : CivilDate(year: previous.year + 1, month: 1, day: 1)
            guard d == expected else {
                Issue.record("day after \(previous) is \(d)")
                return
            }
            previous = d
        }
    }

    @Test(
        "weekdays",
        arguments: [
            ("2025-01-01", Weekday.wed), ("2025-01-06", .mon), ("2025-01-05", .sun), ("1970-01-01", .thu),
            ("1969-12-31", .wed), ("1900-01-01", .mon), ("2000-02-29", .tue), ("2024-02-29", .thu),
        ])
    func weekdays(_ text: String, _ weekday: Weekday) {
        #expect(date(text).weekday == weekday)
    }

    @Test(
        "adding days crosses month and year ends",
        arguments: [
            ("2025-01-31", 1, "2025-02-01"), ("2025-02-28", 1, "2025-03-01"), ("2024-02-28", 1, "2024-02-29"),
            ("2025-12-31", 1, "2026-01-01"), ("2025-01-01", -1, "2024-12-31"), ("2025-03-01", -1, "2025-02-28"),
            ("2025-01-01", 365, "2026-01-01"), ("2024-01-01", 366, "2025-01-01"), ("1970-01-01", -1, "1969-12-31"),
            ("2025-01-06", 0, "2025-01-06"),
        ])
    func addingDays(_ start: String, _ days: Int, _ end: String) {
        #expect(date(start).adding(days: days) == date(end))
        #expect(date(start).days(until: date(end)) == days)
    }

    @Test("a month later on an anchor day clamps to short months and returns afterwards")
    func addingMonthsClampsToAnchor() {
        let jan31 = date("2025-01-31")
        #expect(jan31.adding(months: 1, anchorDay: 31) == date("2025-02-28"))
        #expect(jan31.adding(months: 2, anchorDay: 31) == date("2025-03-31"))
        #expect(jan31.adding(months: 3, anchorDay: 31) == date("2025-04-30"))
        #expect(date("2025-02-28").adding(months: 1, anchorDay: 31) == date("2025-03-31"))
        #expect(date("2024-01-31").adding(months: 1, anchorDay: 31) == date("2024-02-29"))
        #expect(date("2024-01-30").adding(months: 1) == date("2024-02-29"))
        #expect(date("2024-02-29").adding(months: 12) == date("2025-02-28"))
        #expect(date("2024-02-29").adding(months: 48) == date("2028-02-29"))
    }

    @Test("adding months crosses year ends both ways")
    func addingMonthsAcrossYears() {
        #expect(date("2025-11-15").adding(months: 3) == date("2026-02-15"))
        #expect(date("2025-01-15").adding(months: -1) == date("2024-12-15"))
        #expect(date("2025-03-31").adding(months: -1) == date("2025-02-28"))
        #expect(date("2025-01-15").adding(months: 0) == date("2025-01-15"))
    }

    @Test("dates order by year, month, day")
    func ordering() {
        #expect(date("2024-12-31") < date("2025-01-01"))
        #expect(date("2025-01-09") < date("2025-01-10"))
        #expect(!(date("2025-01-10") < date("2025-01-10")))
    }
}
