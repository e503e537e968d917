import Foundation

/// A user's occurrences in a date range as an iCalendar (RFC 5545) file.
///
/// Each occurrence is its own event (UID = occurrence id): series with slides and moved
/// occurrences cannot be expressed as one RRULE faithfully, and a bounded list is what a
/// calendar app shows anyway. Timed events are written in UTC, so no VTIMEZONE is needed;
/// all-day events use dates. Skipped occurrences are left out; completed ones are marked.
public enum ICalendarExport {
    public static func render(_ plan: UserPlan, from: CivilDate, through: CivilDate, stamp: Date) -> String {
        var lines = ["BEGIN:VCALENDAR", "VERSION:2.0", "PRODID:-//replan//replan 1//EN", "CALSCALE:GREGORIAN",
                     "X-WR-TIMEZONE:\(plan.zone.identifier)"]
        for o in plan.occurrences(from: from, through: through) where o.state != .skipped {
            lines.append("BEGIN:VEVENT")
            lines.append("UID:\(o.id)@\(plan.user.id).replan")
            lines.append("DTSTAMP:\(utc(stamp))")
            if o.allDay {
                lines.append("DTSTART;VALUE=DATE:\(compact(o.start.date))")
                lines.append("DTEND;VALUE=DATE:\(compact(o.end.date.adding(days: 1)))")
            } else {
                lines.append("DTSTART:\(utc(plan.zone.instant(o.start)))")
                lines.append("DTEND:\(utc(plan.zone.instant(o.end)))")
            }
            lines.append("SUMMARY:\(escape(o.title))")
            if !o.note.isEmpty { lines.append("DESCRIPTION:\(escape(o.note))") }
            lines.append("CATEGORIES:\(escape(o.category))")
            if o.state == .completed { lines.append("STATUS:CONFIRMED"); lines.append("X-REPLAN-COMPLETED:TRUE") }
            lines.append("END:VEVENT")
        }
        lines.append("END:VCALENDAR")
        return lines.map(fold).joined(separator: "\r\n") + "\r\n"
    }

    private static func compact(_ d: CivilDate) -> String { d.description.replacingOccurrences(of: "-", with: "") }

    private static func utc(_ date: Date) -> String {
        Timestamp.text(date).replacingOccurrences(of: "-", with: "").replacingOccurrences(of: ":", with: "")
    }

    /// RFC 5545 TEXT: backslash, `;` and `,` escaped, and every line break (LF, CRLF or a lone
    /// CR, as notes pasted from other systems have) written as `\n`: a raw CR may not appear in
    /// a content line.
    private static func escape(_ text: String) -> String {
        text.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: ";", with: "\\;")
            .replacingOccurrences(of: ",", with: "\\,").replacingOccurrences(of: "\r\n", with: "\n")
            .replacingOccurrences(of: "\r", with: "\n").replacingOccurrences(of: "\n", with: "\\n")
    }

    /// Lines longer than 75 octets are folded (RFC 5545 §3.1), never inside a UTF-8 sequence.
    private static func fold(_ line: String) -> String {
        var out = "", count = 0
        for scalar in line.unicodeScalars {
            let size = String(scalar).utf8.count
            if count + size > 75 { out += "\r\n "; count = 1 }
            out.unicodeScalars.append(scalar)
            count += size
        }
        return out
    }
}
