import Foundation

/// Reads and writes the exact shapes replan itself writes — `YYYY-MM-DD`, `YYYY-MM-DDTHH:MM`
/// and `YYYY-MM-DDTHH:MM:SSZ` — as UTF-8 bytes, without building strings piece by piece.
/// Every loaded row, row image and report holds several of them, so this is on the nightly
/// hot path. Reading anything else gives nil, and the caller falls back to the general
/// parser, so a text is accepted exactly when the general parser would accept it.
package enum CanonicalText {
    /// `YYYY-MM-DD`, a real day.
    package static func date(_ b: UnsafeBufferPointer<UInt8>) -> CivilDate? {
        guard b.count == 10 else { return nil }
        return datePrefix(b)
    }

    /// `YYYY-MM-DDTHH:MM`.
    package static func dateTime(_ b: UnsafeBufferPointer<UInt8>) -> CivilDateTime? {
        guard b.count == 16, b[10] == UInt8(ascii: "T"), b[13] == UInt8(ascii: ":"), let date = datePrefix(b),
            let h = number(b, 11, 2), let m = number(b, 14, 2), h < 24, m < 60
        else { return nil }
        return CivilDateTime(date: date, time: TimeOfDay(hour: h, minute: m))
    }

    /// `YYYY-MM-DDTHH:MM:SSZ` (`Timestamp.text`).
    package static func timestamp(_ b: UnsafeBufferPointer<UInt8>) -> Date? {
        guard b.count == 20, b[10] == UInt8(ascii: "T"), b[13] == UInt8(ascii: ":"), b[16] == UInt8(ascii: ":"),
            b[19] == UInt8(ascii: "Z"), let date = datePrefix(b),
            let h = number(b, 11, 2), let m = number(b, 14, 2), let s = number(b, 17, 2), h < 24, m < 60, s < 60
        else { return nil }
        return Date(timeIntervalSince1970: Double(date.dayNumber * 86_400 + h * 3600 + m * 60 + s))
    }

    /// `HH:MM-HH:MM`, a study window as settings store it (`24:00` allowed as its end); the
    /// times in minutes. Whether start is before end is the caller's check.
    package static func timeRange(_ b: UnsafeBufferPointer<UInt8>) -> (start: TimeOfDay, end: TimeOfDay)? {
        guard b.count == 11, b[5] == UInt8(ascii: "-"), let start = time(b, 0), let end = time(b, 6) else { return nil }
        guard start < 1440, end <= 1440 else { return nil }
        return (TimeOfDay(minutes: start), TimeOfDay(minutes: end))
    }

    /// `HH:MM` at `at` in minutes: hours up to 24, and 24 only as `24:00`.
    private static func time(_ b: UnsafeBufferPointer<UInt8>, _ at: Int) -> Int? {
        guard b[at + 2] == UInt8(ascii: ":"), let h = number(b, at, 2), let m = number(b, at + 3, 2), m < 60, h <= 24
        else { return nil }
        return h * 60 + m
    }

    /// The `YYYY-MM-DD` the bytes start with, validated like `CivilDate(year:month:day:)`.
    private static func datePrefix(_ b: UnsafeBufferPointer<UInt8>) -> CivilDate? {
        guard b.count >= 10, b[4] == UInt8(ascii: "-"), b[7] == UInt8(ascii: "-"),
            let y = number(b, 0, 4), let m = number(b, 5, 2), let d = number(b, 8, 2)
        else { return nil }
        return CivilDate(year: y, month: m, day: d)
    }

    /// `width` decimal digits at `start`, or nil when any of them is not a digit.
    private static func number(_ b: UnsafeBufferPointer<UInt8>, _ start: Int, _ width: Int) -> Int? {
        var value = 0
        for i in start..<(start + width) {
            let digit = b[i] &- UInt8(ascii: "0")
            guard digit < 10 else { return nil }
            value = value * 10 + Int(digit)
        }
        return value
    }

    // MARK: Writing

    /// `YYYY-MM-DD`, or nil for a year outside 0…9999 (the caller's general formatting).
    package static func text(year: Int, month: Int, day: Int) -> String? {
        guard (0...9999).contains(year) else { return nil }
        return string(length: 10) { writeDate(year, month, day, into: $0) }
    }

    /// `YYYY-MM-DDTHH:MM`, or nil for a year outside 0…9999.
    package static func text(year: Int, month: Int, day: Int, minutes: Int) -> String? {
        guard (0...9999).contains(year), (0..<1440).contains(minutes) else { return nil }
        return string(length: 16) { writeDateTime(year, month, day, minutes, into: $0) }
    }

    /// `YYYY-MM-DDTHH:MM:SSZ` for a UTC instant `seconds` (0 ..< 86,400) into the day, or nil
    /// for a year outside 0…9999.
    package static func text(year: Int, month: Int, day: Int, seconds: Int) -> String? {
        guard (0...9999).contains(year), (0..<86_400).contains(seconds) else { return nil }
        return string(length: 20) { b in
            writeDateTime(year, month, day, seconds / 60, into: b)
            b[16] = UInt8(ascii: ":")
            write(seconds % 60, width: 2, into: b, at: 17)
            b[19] = UInt8(ascii: "Z")
        }
    }

    /// `HH:MM` for 0…1440 minutes (`24:00` is the end of a day's window).
    package static func text(minutes: Int) -> String? {
        guard (0...1440).contains(minutes) else { return nil }
        return string(length: 5) { writeTime(minutes, into: $0, at: 0) }
    }

    /// Appends `"YYYY-MM-DDTHH:MM"`, quotes included, to JSON text being written; false (nothing
    /// appended) for a year outside 0…9999.
    static func appendQuotedDateTime(_ t: CivilDateTime, to bytes: inout [UInt8]) -> Bool {
        let c = t.date.components
        guard (0...9999).contains(c.year), (0..<1440).contains(t.time.minutes) else { return false }
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 18) { b in
            b[0] = UInt8(ascii: "\"")
            writeDateTime(c.year, c.month, c.day, t.time.minutes, into: UnsafeMutableBufferPointer(rebasing: b[1..<17]))
            b[17] = UInt8(ascii: "\"")
            bytes.append(contentsOf: UnsafeBufferPointer(b))
        }
        return true
    }

    /// The text `fill` writes into `length` bytes (on the stack).
    private static func string(length: Int, _ fill: (UnsafeMutableBufferPointer<UInt8>) -> Void) -> String {
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: length) { b in
            fill(b)
            return String(decoding: UnsafeBufferPointer(b), as: UTF8.self)
        }
    }

    private static func writeDateTime(
        _ year: Int, _ month: Int, _ day: Int, _ minutes: Int,
        into b: UnsafeMutableBufferPointer<UInt8>
    ) {
        writeDate(year, month, day, into: b)
        b[10] = UInt8(ascii: "T")
        writeTime(minutes, into: b, at: 11)
    }

    private static func writeDate(_ year: Int, _ month: Int, _ day: Int, into b: UnsafeMutableBufferPointer<UInt8>) {
        write(year, width: 4, into: b, at: 0)
        b[4] = UInt8(ascii: "-")
        write(month, width: 2, into: b, at: 5)
        b[7] = UInt8(ascii: "-")
        write(day, width: 2, into: b, at: 8)
    }

    private static func writeTime(_ minutes: Int, into b: UnsafeMutableBufferPointer<UInt8>, at start: Int) {
        write(minutes / 60, width: 2, into: b, at: start)
        b[start + 2] = UInt8(ascii: ":")
        write(minutes % 60, width: 2, into: b, at: start + 3)
    }

    /// `value` (0 ≤ value < 10^width) as `width` zero-padded digits.
    private static func write(_ value: Int, width: Int, into b: UnsafeMutableBufferPointer<UInt8>, at start: Int) {
        var rest = value
        for i in stride(from: start + width - 1, through: start, by: -1) {
            b[i] = UInt8(ascii: "0") + UInt8(rest % 10)
            rest /= 10
        }
    }
}
