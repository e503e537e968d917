/// A wall-clock time of day to the minute ("14:30"), `0 ..< 1440` minutes after midnight.
/// `24:00` is accepted only where an end of day is meant (see `init(_:allowingEndOfDay:)`).
package struct TimeOfDay: Hashable, Comparable, Sendable, CustomStringConvertible {
    package let minutes: Int

    package init(minutes: Int) { self.minutes = minutes }
    package init(hour: Int, minute: Int) { self.minutes = hour * 60 + minute }

    /// Parses `HH:MM`; `24:00` only when `allowingEndOfDay` (the end of a study window).
    package init?(_ text: some StringProtocol, allowingEndOfDay: Bool = false) {
        guard let time = text.withUTF8Bytes({ TimeOfDay(utf8: $0, allowingEndOfDay: allowingEndOfDay) }) else {
            return nil
        }
        self = time
    }

    /// `init(_:allowingEndOfDay:)` from UTF-8 bytes.
    init?(utf8 b: UnsafeBufferPointer<UInt8>, allowingEndOfDay: Bool = false) {
        guard b.count == 5, b[2] == UInt8(ascii: ":"),
            let h = CanonicalText.number(b, 0, 2), let m = CanonicalText.number(b, 3, 2), m < 60
        else { return nil }
        if h == 24 && m == 0 && allowingEndOfDay {
            self.minutes = 1440
            return
        }
        guard h < 24 else { return nil }
        self.minutes = h * 60 + m
    }

    package static func < (a: TimeOfDay, b: TimeOfDay) -> Bool { a.minutes < b.minutes }

    package var description: String {
        CanonicalText.text(minutes: minutes) ?? "\(Digits.pad(minutes / 60, 2)):\(Digits.pad(minutes % 60, 2))"
    }
}
