/// A local wall-clock date-time to the minute ("2025-01-06T10:00") in a user's zone.
///
/// Civil time is the truth in replan: tasks are planned and stored like this and compared as
/// civil minutes. Instants appear only where "now" is converted (`UserZone`).
public struct CivilDateTime: Hashable, Comparable, Sendable, CustomStringConvertible {
    public let date: CivilDate
    public let time: TimeOfDay

    public init(date: CivilDate, time: TimeOfDay) {
        // Normalise minute overflow into the date so `time` is always 0..<1440.
        let extraDays = time.minutes >= 0 ? time.minutes / 1440 : -((1439 - time.minutes) / 1440)
        self.date = date.adding(days: extraDays)
        self.time = TimeOfDay(minutes: time.minutes - extraDays * 1440)
    }

    /// Civil minutes since 1970-01-01T00:00: a total order and simple interval arithmetic.
    public var minuteNumber: Int { date.dayNumber * 1440 + time.minutes }

    public init(minuteNumber: Int) {
        let day = minuteNumber >= 0 ? minuteNumber / 1440 : -((1439 - minuteNumber) / 1440)
        self.date = CivilDate(dayNumber: day)
        self.time = TimeOfDay(minutes: minuteNumber - day * 1440)
    }

    public func adding(minutes: Int) -> CivilDateTime { CivilDateTime(minuteNumber: minuteNumber + minutes) }
    public func adding(days: Int) -> CivilDateTime { CivilDateTime(date: date.adding(days: days), time: time) }

    /// Parses `YYYY-MM-DDTHH:MM` with optional `:00` seconds. Offsets are handled by `UserZone`.
    public init?(_ text: some StringProtocol) {
        let s = String(text)
        guard s.utf8.count == 16 || s.utf8.count == 19 else { return nil }
        let u = Array(s.utf8)
        guard u[10] == UInt8(ascii: "T") || u[10] == UInt8(ascii: " "),
              let d = CivilDate(String(decoding: u[0..<10], as: UTF8.self)),
              let t = TimeOfDay(String(decoding: u[11..<16], as: UTF8.self)) else { return nil }
        if u.count == 19 {
            // replan plans to the minute; seconds are accepted only when they are zero, so an
            // import never silently loses a precision it did not have.
            guard u[16] == UInt8(ascii: ":"), u[17] == UInt8(ascii: "0"), u[18] == UInt8(ascii: "0") else { return nil }
        }
        self.init(date: d, time: t)
    }

    public static func < (a: CivilDateTime, b: CivilDateTime) -> Bool { a.date != b.date ? a.date < b.date : a.time < b.time }

    public var description: String {
        CanonicalText.text(year: date.year, month: date.month, day: date.day, minutes: time.minutes) ?? "\(date)T\(time)"
    }
}
