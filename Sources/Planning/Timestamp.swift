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
        var text = text
        if let canonical = text.withUTF8({ CanonicalText.timestamp($0) }) { return canonical }
        var s = Substring(text)
        var offset = 0
        if s.hasSuffix("Z") || s.hasSuffix("z") {
            s = s.dropLast()
        } else if s.count > 6, let signChar = s.dropLast(5).last, signChar == "+" || signChar == "-" {
            let tz = s.suffix(5)
            guard let hm = TimeOfDay(tz) else { return nil }
            offset = (signChar == "+" ? 1 : -1) * hm.minutes * 60
            s = s.dropLast(6)
        } else {
            return nil
        }
        guard let civil = CivilDateTime(s.prefix(16)) else { return nil }
        var sec = 0
        if s.count == 19 {
            // Two digits, as everywhere else in the format: Int("+5") would read a sign.
            guard s.dropFirst(16).first == ":", let v = Digits.parse(Array(s.suffix(2).utf8)[...]), v < 60 else {
                return nil
            }
            sec = v
        } else if s.count != 16 {
            return nil
        }
        return Date(timeIntervalSince1970: Double(civil.minuteNumber * 60 + sec - offset))
    }
}
