import Foundation

/// Instants as text: UTC ISO-8601 with seconds (`2025-01-07T03:00:00Z`), for bookkeeping
/// columns (created/updated, run times). Plans never use these; they use civil time.
package enum Timestamp {
    package static func text(_ date: Date) -> String {
        let seconds = Int(date.timeIntervalSince1970.rounded(.down))
        let days = seconds >= 0 ? seconds / 86_400 : -((86_399 - seconds) / 86_400)
        let rest = seconds - days * 86_400
        let d = CivilDate(dayNumber: days)
        if let text = CanonicalText.text(year: d.year, month: d.month, day: d.day, seconds: rest) { return text }
        return "\(d)T\(Digits.pad(rest / 3600, 2)):\(Digits.pad(rest / 60 % 60, 2)):\(Digits.pad(rest % 60, 2))Z"
    }

    /// Parses an ISO-8601 instant: `…Z`, `…+08:00`, with or without seconds.
    package static func date(_ text: String) -> Date? {
        text.withUTF8Bytes { date(utf8: $0) }
    }

    /// `date(_:)` from UTF-8 bytes (a bookkeeping column), without making a string of them.
    package static func date(utf8 b: UnsafeBufferPointer<UInt8>) -> Date? {
        var end = b.count
        var offset = 0
        if end > 0, b[end - 1] == UInt8(ascii: "Z") || b[end - 1] == UInt8(ascii: "z") {
            end -= 1
        } else if end > 6, b[end - 6] == UInt8(ascii: "+") || b[end - 6] == UInt8(ascii: "-") {
            guard let hm = TimeOfDay(utf8: UnsafeBufferPointer(rebasing: b[(end - 5)..<end])) else { return nil }
            offset = (b[end - 6] == UInt8(ascii: "+") ? 1 : -1) * hm.minutes * 60
            end -= 6
        } else {
            return nil
        }
        guard end == 16 || end == 19, let civil = CivilDateTime(utf8: UnsafeBufferPointer(rebasing: b[0..<16])) else {
            return nil
        }
        var sec = 0
        if end == 19 {
            // Two digits, as everywhere else in the format: Int("+5") would read a sign.
            guard b[16] == UInt8(ascii: ":"), let v = CanonicalText.number(b, 17, 2), v < 60 else { return nil }
            sec = v
        }
        return Date(timeIntervalSince1970: Double(civil.minuteNumber * 60 + sec - offset))
    }
}
