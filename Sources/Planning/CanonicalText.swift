import Foundation

/// Reads the exact shapes replan itself writes — `YYYY-MM-DD`, `YYYY-MM-DDTHH:MM` and
/// `YYYY-MM-DDTHH:MM:SSZ` — straight from UTF-8 bytes, without building strings. Every
/// loaded row and row image holds several of them, so this is on the nightly hot path.
/// Anything else gives nil, and the caller falls back to the general parser, so a text is
/// accepted exactly when the general parser would accept it.
public enum CanonicalText {
    /// `YYYY-MM-DD`, a real day.
    public static func date(_ b: UnsafeBufferPointer<UInt8>) -> CivilDate? {
        guard b.count == 10 else { return nil }
        return datePrefix(b)
    }

    /// `YYYY-MM-DDTHH:MM`.
    public static func dateTime(_ b: UnsafeBufferPointer<UInt8>) -> CivilDateTime? {
        guard b.count == 16, b[10] == UInt8(ascii: "T"), b[13] == UInt8(ascii: ":"), let date = datePrefix(b),
              let h = number(b, 11, 2), let m = number(b, 14, 2), h < 24, m < 60 else { return nil }
        return CivilDateTime(date: date, time: TimeOfDay(hour: h, minute: m))
    }

    /// `YYYY-MM-DDTHH:MM:SSZ` (`Timestamp.text`).
    public static func timestamp(_ b: UnsafeBufferPointer<UInt8>) -> Date? {
        guard b.count == 20, b[10] == UInt8(ascii: "T"), b[13] == UInt8(ascii: ":"), b[16] == UInt8(ascii: ":"),
              b[19] == UInt8(ascii: "Z"), let date = datePrefix(b),
              let h = number(b, 11, 2), let m = number(b, 14, 2), let s = number(b, 17, 2), h < 24, m < 60, s < 60 else { return nil }
        return Date(timeIntervalSince1970: Double(date.dayNumber * 86_400 + h * 3600 + m * 60 + s))
    }

    /// The `YYYY-MM-DD` the bytes start with, validated like `CivilDate(year:month:day:)`.
    private static func datePrefix(_ b: UnsafeBufferPointer<UInt8>) -> CivilDate? {
        guard b.count >= 10, b[4] == UInt8(ascii: "-"), b[7] == UInt8(ascii: "-"),
              let y = number(b, 0, 4), let m = number(b, 5, 2), let d = number(b, 8, 2) else { return nil }
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
}
