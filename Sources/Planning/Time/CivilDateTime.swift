/// A local wall-clock date-time to the minute ("2025-01-06T10:00") in a user's zone.
///
/// Civil time is the truth in replan: tasks are planned and stored like this and compared as
/// civil minutes. Instants appear only where "now" is converted (`UserZone`).
///
/// Stored as its civil minute number alone (like `CivilDate`, one integer): the rules compare
/// and subtract date-times constantly, and read the date or time of day from it cheaply.
package struct CivilDateTime: Hashable, Comparable, Sendable, CustomStringConvertible {
    /// Civil minutes since 1970-01-01T00:00: a total order and simple interval arithmetic.
    package let minuteNumber: Int

    package init(date: CivilDate, time: TimeOfDay) {
        // Minute overflow rolls into the date, so `time` is always 0..<1440.
        self.minuteNumber = date.dayNumber * 1440 + time.minutes
    }

    package init(minuteNumber: Int) { self.minuteNumber = minuteNumber }

    /// The local date (days are floored, also before 1970).
    package var date: CivilDate {
        CivilDate(dayNumber: minuteNumber >= 0 ? minuteNumber / 1440 : -((1439 - minuteNumber) / 1440))
    }

    /// The time of day, `0 ..< 1440` minutes.
    package var time: TimeOfDay { TimeOfDay(minutes: minuteNumber - date.dayNumber * 1440) }

    package func adding(minutes: Int) -> CivilDateTime { CivilDateTime(minuteNumber: minuteNumber + minutes) }
    package func adding(days: Int) -> CivilDateTime { CivilDateTime(minuteNumber: minuteNumber + days * 1440) }

    /// Parses `YYYY-MM-DDTHH:MM` (or a space for the `T`) with optional `:00` seconds. Offsets
    /// are handled by `UserZone`.
    package init?(_ text: some StringProtocol) {
        guard let value = text.withUTF8Bytes({ CivilDateTime(utf8: $0) }) else { return nil }
        self = value
    }

    /// `init(_:)` from UTF-8 bytes (a database column, a row image's member), without making a
    /// string of them first: every loaded task holds several date-times.
    package init?(utf8 b: UnsafeBufferPointer<UInt8>) {
        guard b.count == 16 || b.count == 19, b[10] == UInt8(ascii: "T") || b[10] == UInt8(ascii: " "),
            let d = CanonicalText.datePrefix(b),
            let t = TimeOfDay(utf8: UnsafeBufferPointer(rebasing: b[11..<16]))
        else { return nil }
        if b.count == 19 {
            // replan plans to the minute; seconds are accepted only when they are zero, so an
            // import never silently loses a precision it did not have.
            guard b[16] == UInt8(ascii: ":"), b[17] == UInt8(ascii: "0"), b[18] == UInt8(ascii: "0") else { return nil }
        }
        self.init(date: d, time: t)
    }

    package static func < (a: CivilDateTime, b: CivilDateTime) -> Bool { a.minuteNumber < b.minuteNumber }

    package var description: String {
        let c = date.components
        return CanonicalText.text(year: c.year, month: c.month, day: c.day, minutes: time.minutes) ?? "\(date)T\(time)"
    }
}
