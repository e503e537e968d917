/// A calendar date with no time zone attached ("2025-01-06"), proleptic Gregorian.
///
/// Day arithmetic is done on a day number (days since 1970-01-01), which is exact for civil
/// dates: adding a day to a date never depends on a zone. Instants are never involved here.
///
/// Stored as that day number alone: the planner compares, hashes and steps through dates far
/// more often than it reads their year, month and day, and one integer makes all three of
/// those a single machine operation (and an occurrence a smaller value to copy).
package struct CivilDate: Hashable, Comparable, Sendable, CustomStringConvertible {
    /// Days since 1970-01-01.
    package let dayNumber: Int

    /// Creates a date, or nil when the components do not name a real day.
    package init?(year: Int, month: Int, day: Int) {
        guard (1...9999).contains(year), (1...12).contains(month),
            day >= 1, day <= CivilDate.daysInMonth(year: year, month: month)
        else { return nil }
        self.dayNumber = CivilDate.dayNumber(year: year, month: month, day: day)
    }

    package init(dayNumber: Int) { self.dayNumber = dayNumber }

    /// Parses exactly `YYYY-MM-DD`.
    package init?(_ text: some StringProtocol) {
        guard let date = text.withUTF8Bytes({ CivilDate(utf8: $0) }) else { return nil }
        self = date
    }

    /// Parses exactly `YYYY-MM-DD` from UTF-8 bytes (a database column, a key), without making
    /// a string of them first: every loaded row holds dates.
    package init?(utf8 b: UnsafeBufferPointer<UInt8>) {
        guard b.count == 10, let date = CanonicalText.datePrefix(b) else { return nil }
        self = date
    }

    package static func isLeapYear(_ y: Int) -> Bool { (y % 4 == 0 && y % 100 != 0) || y % 400 == 0 }

    package static func daysInMonth(year: Int, month: Int) -> Int {
        switch month {
        case 2: return isLeapYear(year) ? 29 : 28
        case 4, 6, 9, 11: return 30
        default: return 31
        }
    }

    package var year: Int { components.year }
    package var month: Int { components.month }
    package var day: Int { components.day }

    /// Days since 1970-01-01 of a valid date (Howard Hinnant's days-from-civil algorithm).
    private static func dayNumber(year: Int, month: Int, day: Int) -> Int {
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yoe = y - era * 400
        let mp = (month + 9) % 12
        let doy = (153 * mp + 2) / 5 + day - 1
        let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy
        return era * 146097 + doe - 719468
    }

    /// Year, month and day of the day number (Howard Hinnant's civil-from-days algorithm).
    var components: (year: Int, month: Int, day: Int) {
        let z = dayNumber + 719468
        let era = (z >= 0 ? z : z - 146096) / 146097
        let doe = z - era * 146097
        let yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365
        let doy = doe - (365 * yoe + yoe / 4 - yoe / 100)
        let mp = (5 * doy + 2) / 153
        let d = doy - (153 * mp + 2) / 5 + 1
        let m = mp < 10 ? mp + 3 : mp - 9
        return (yoe + era * 400 + (m <= 2 ? 1 : 0), m, d)
    }

    package func adding(days: Int) -> CivilDate { CivilDate(dayNumber: dayNumber + days) }

    /// Whole days from `self` to `other` (positive when `other` is later).
    package func days(until other: CivilDate) -> Int { other.dayNumber - dayNumber }

    package var weekday: Weekday {
        // 1970-01-01 was a Thursday.
        let index = ((dayNumber % 7) + 7 + 3) % 7 // 0 = Monday
        return Weekday.allCases[index]
    }

    /// The same day of month `months` later, clamped to the last day of shorter months.
    package func adding(months: Int, anchorDay: Int? = nil) -> CivilDate {
        let c = components
        let total = (c.year * 12 + (c.month - 1)) + months
        let y = total / 12
        let m = total % 12 + 1
        let d = min(anchorDay ?? c.day, CivilDate.daysInMonth(year: y, month: m))
        return CivilDate(dayNumber: CivilDate.dayNumber(year: y, month: m, day: d))
    }

    package static func < (a: CivilDate, b: CivilDate) -> Bool { a.dayNumber < b.dayNumber }

    package var description: String {
        let c = components
        return CanonicalText.text(year: c.year, month: c.month, day: c.day)
            ?? "\(Digits.pad(c.year, 4))-\(Digits.pad(c.month, 2))-\(Digits.pad(c.day, 2))"
    }
}

/// Fixed-width decimal printing for the date formats outside the years `CanonicalText` writes.
enum Digits {
    static func pad(_ value: Int, _ width: Int) -> String {
        let s = String(value)
        return s.count >= width ? s : String(repeating: "0", count: width - s.count) + s
    }
}
