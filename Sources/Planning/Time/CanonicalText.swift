import Foundation

/// Reads and writes the exact shapes replan itself writes — `YYYY-MM-DD`, `YYYY-MM-DDTHH:MM`
/// and `YYYY-MM-DDTHH:MM:SSZ` — as UTF-8 bytes, without building strings piece by piece.
/// Every loaded row, row image and report holds several of them, so this is on the nightly
/// hot path. Internal to Planning: other modules read these shapes through the initialisers
/// (`CivilDate(utf8:)`, `CivilDateTime(utf8:)`, `Timestamp.date(utf8:)`) and write them
/// through `description`.
enum CanonicalText {
    /// The `YYYY-MM-DD` the bytes start with, validated like `CivilDate(year:month:day:)`.
    static func datePrefix(_ b: UnsafeBufferPointer<UInt8>) -> CivilDate? {
        guard b.count >= 10, b[4] == UInt8(ascii: "-"), b[7] == UInt8(ascii: "-"),
            let y = number(b, 0, 4), let m = number(b, 5, 2), let d = number(b, 8, 2)
        else { return nil }
        return CivilDate(year: y, month: m, day: d)
    }

    /// `width` decimal digits at `start`, or nil when any of them is not a digit.
    static func number(_ b: UnsafeBufferPointer<UInt8>, _ start: Int, _ width: Int) -> Int? {
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
    static func text(year: Int, month: Int, day: Int) -> String? {
        guard (0...9999).contains(year) else { return nil }
        return string(length: 10) { writeDate(year, month, day, into: $0) }
    }

    /// `YYYY-MM-DDTHH:MM`, or nil for a year outside 0…9999.
    static func text(year: Int, month: Int, day: Int, minutes: Int) -> String? {
        guard (0...9999).contains(year), (0..<1440).contains(minutes) else { return nil }
        return string(length: 16) { writeDateTime(year, month, day, minutes, into: $0) }
    }

    /// `YYYY-MM-DDTHH:MM:SSZ` for a UTC instant `seconds` (0 ..< 86,400) into the day, or nil
    /// for a year outside 0…9999.
    static func text(year: Int, month: Int, day: Int, seconds: Int) -> String? {
        guard (0...9999).contains(year), (0..<86_400).contains(seconds) else { return nil }
        return string(length: 20) { b in
            writeDateTime(year, month, day, seconds / 60, into: b)
            b[16] = UInt8(ascii: ":")
            write(seconds % 60, width: 2, into: b, at: 17)
            b[19] = UInt8(ascii: "Z")
        }
    }

    /// `HH:MM` for 0…1440 minutes (`24:00` is the end of a day's window).
    static func text(minutes: Int) -> String? {
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

extension StringProtocol {
    /// `body` over the text's UTF-8 bytes: in place when the text is stored contiguously (a
    /// native string or a slice of one), from a copy otherwise.
    func withUTF8Bytes<R>(_ body: (UnsafeBufferPointer<UInt8>) -> R) -> R {
        if let result = utf8.withContiguousStorageIfAvailable(body) { return result }
        var copy = String(self)
        return copy.withUTF8(body)
    }
}
