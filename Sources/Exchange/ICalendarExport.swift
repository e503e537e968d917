import Foundation
import Planning

/// A user's occurrences in a date range as an iCalendar (RFC 5545) file, fit to be served as a
/// subscribed calendar (`replan feeds`).
///
/// Each occurrence is its own event (UID = occurrence id): series with slides and moved
/// occurrences cannot be expressed as one RRULE faithfully, and a bounded list is what a
/// calendar app shows anyway. Timed events are written in UTC, so no VTIMEZONE is needed;
/// all-day events use dates. What a subscribing calendar needs:
/// - a name (`NAME`, RFC 7986, and `X-WR-CALNAME`) and a refresh interval
///   (`REFRESH-INTERVAL`, RFC 7986, and `X-PUBLISHED-TTL`);
/// - `SEQUENCE` and `LAST-MODIFIED`, so a moved session replaces the old copy: the sequence is
///   the task's version plus the occurrence override's, both bumped on every change;
/// - skipped occurrences, and one-off sessions deleted by recent changesets (the rules drop
///   stale ones), as `STATUS:CANCELLED` rather than left out, so a calendar that kept the
///   event drops it;
/// - completed sessions marked where people look (`✓ ` before the title) and in
///   `X-REPLAN-COMPLETED`;
/// - a `VALARM` from the student's reminder setting, when notifications are on, for timed
///   sessions still open;
/// - for an open session a night moved and that is still where the latest such move put it,
///   one line in the description, in the student's language, saying why and from where ("moved
///   from Mon 12 Jan: missed"): it stays until the session is done or moves again, whichever
///   night moved it (docs/planning.md §12).
package enum ICalendarExport {
    /// How often a subscribed calendar should fetch the feed again: plans change nightly and
    /// with the student's own edits.
    package static let refreshInterval = "PT6H"

    /// - Parameters:
    ///   - dropped: one-off sessions deleted by recent changesets; those in the range (and not
    ///     back in the plan) are listed as cancelled events.
    ///   - moves: the nights' moves, oldest first; an open session still at its latest move's
    ///     new place says where it came from and why.
    package static func render(
        _ plan: UserPlan, from: CivilDate, through: CivilDate, stamp: Date,
        dropped: [DroppedSession] = [], moves: [PlanEdit] = []
    ) -> String {
        let shown = plan.user.displayName.flatMap { $0.isEmpty ? nil : $0 } ?? plan.user.id
        let name = escape(shown + " — study plan")
        var lines = [
            "BEGIN:VCALENDAR", "VERSION:2.0", "PRODID:-//replan//replan 1//EN", "CALSCALE:GREGORIAN",
            "NAME:\(name)", "X-WR-CALNAME:\(name)", "X-WR-TIMEZONE:\(plan.zone.identifier)",
            "REFRESH-INTERVAL;VALUE=DURATION:\(refreshInterval)", "X-PUBLISHED-TTL:\(refreshInterval)",
        ]
        let settings = plan.settings
        let movedTo = Dictionary(
            moves.filter { $0.op == .move && $0.after != nil }.map { ($0.id, $0) }, uniquingKeysWith: { _, b in b })
        let texts = movedTo.isEmpty ? nil : NoteTexts(language: plan.user.language)
        for o in plan.occurrences(from: from, through: through) {
            let task = plan.tasks[o.taskID]
            let override = plan.overrides[o.id]
            lines.append("BEGIN:VEVENT")
            lines.append("UID:\(o.id)@\(plan.user.id).replan")
            lines.append("DTSTAMP:\(utc(stamp))")
            if let task { lines.append("LAST-MODIFIED:\(utc(min(task.updatedAt, stamp)))") }
            lines.append("SEQUENCE:\((task?.version ?? 0) + (override?.version ?? 0))")
            if o.allDay {
                lines.append("DTSTART;VALUE=DATE:\(compact(o.start.date))")
                lines.append("DTEND;VALUE=DATE:\(compact(o.end.date.adding(days: 1)))")
            } else {
                lines.append("DTSTART:\(utc(plan.zone.instant(o.start)))")
                lines.append("DTEND:\(utc(plan.zone.instant(o.end)))")
            }
            lines.append("SUMMARY:\(o.state == .completed ? "✓ " : "")\(escape(o.title))")
            var description = o.note
            if let texts, o.state == .open, let e = movedTo[o.id], e.after?.start == o.start,
                let why = MorningNote.feedLine(e, texts: texts)
            {
                description = o.note.isEmpty ? why : why + "\n\n" + o.note
            }
            if !description.isEmpty { lines.append("DESCRIPTION:\(escape(description))") }
            lines.append("CATEGORIES:\(escape(o.category))")
            switch o.state {
            case .skipped: lines.append("STATUS:CANCELLED")
            case .completed:
                lines.append("STATUS:CONFIRMED")
                lines.append("X-REPLAN-COMPLETED:TRUE")
            case .open: break
            }
            if settings.notificationsEnabled, o.state == .open, !o.allDay {
                lines += [
                    "BEGIN:VALARM", "ACTION:DISPLAY", "DESCRIPTION:\(escape(o.title))",
                    "TRIGGER:-PT\(settings.reminderMinutes)M", "END:VALARM",
                ]
            }
            lines.append("END:VEVENT")
        }
        var listed = Set<String>()
        for d in dropped.sorted(by: { $0.droppedAt > $1.droppedAt })
        where plan.tasks[d.id] == nil && d.start.date <= through
            && (d.allDay ? d.end.date : d.end.adding(minutes: -1).date) >= from
        {
            // The newest deletion of an id wins (a task deleted, restored by undo, deleted again).
            guard listed.insert(d.id).inserted else { continue }
            lines += [
                "BEGIN:VEVENT", "UID:\(d.id)@\(plan.user.id).replan", "DTSTAMP:\(utc(stamp))",
                "LAST-MODIFIED:\(utc(min(d.droppedAt, stamp)))", "SEQUENCE:\(d.version + 1)",
            ]
            if d.allDay {
                lines += [
                    "DTSTART;VALUE=DATE:\(compact(d.start.date))",
                    "DTEND;VALUE=DATE:\(compact(d.end.date.adding(days: 1)))",
                ]
            } else {
                lines += ["DTSTART:\(utc(plan.zone.instant(d.start)))", "DTEND:\(utc(plan.zone.instant(d.end)))"]
            }
            lines += [
                "SUMMARY:\(escape(d.title))", "CATEGORIES:\(escape(d.category.isEmpty ? "Uncategorized" : d.category))",
                "STATUS:CANCELLED", "END:VEVENT",
            ]
        }
        lines.append("END:VCALENDAR")
        return lines.map(fold).joined(separator: "\r\n") + "\r\n"
    }

    // Dates and instants are formatted digit by digit: a feed of 100,000 students writes tens
    // of millions of them, and Foundation's string replacement was most of the cost.

    /// `YYYYMMDD`.
    static func compact(_ d: CivilDate) -> String {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(8)
        appendDate(d, to: &bytes)
        return String(decoding: bytes, as: UTF8.self)
    }

    /// `YYYYMMDDTHHMMSSZ` (RFC 5545 UTC form).
    static func utc(_ date: Date) -> String {
        let seconds = Int(date.timeIntervalSince1970.rounded(.down))
        let days = seconds >= 0 ? seconds / 86_400 : -((86_399 - seconds) / 86_400)
        let rest = seconds - days * 86_400
        var bytes: [UInt8] = []
        bytes.reserveCapacity(16)
        appendDate(CivilDate(dayNumber: days), to: &bytes)
        bytes.append(UInt8(ascii: "T"))
        for part in [rest / 3600, rest / 60 % 60, rest % 60] { appendDigits(part, 2, to: &bytes) }
        bytes.append(UInt8(ascii: "Z"))
        return String(decoding: bytes, as: UTF8.self)
    }

    private static func appendDate(_ d: CivilDate, to bytes: inout [UInt8]) {
        appendDigits(d.year, 4, to: &bytes)
        appendDigits(d.month, 2, to: &bytes)
        appendDigits(d.day, 2, to: &bytes)
    }

    private static func appendDigits(_ value: Int, _ count: Int, to bytes: inout [UInt8]) {
        var divisor = 1
        for _ in 1..<count { divisor *= 10 }
        var v = max(0, value)
        while divisor > 0 {
            bytes.append(UInt8(ascii: "0") + UInt8(v / divisor % 10))
            v %= divisor * 10
            divisor /= 10
        }
    }

    /// RFC 5545 TEXT: backslash, `;` and `,` escaped, and every line break (LF, CRLF or a lone
    /// CR, as notes pasted from other systems have) written as `\n`. Other control characters
    /// may not appear in TEXT at all (one parser rejects the whole file for one BEL), so C0
    /// controls and DEL are shown as their Unicode control pictures (␇) and C1 controls as
    /// U+FFFD; a tab stays a tab.
    static func escape(_ text: String) -> String {
        // Most titles need nothing: one pass over the bytes decides.
        var clean = true
        var previous: UInt8 = 0
        for byte in text.utf8 {
            if byte < 0x20 || byte == 0x7F || byte == UInt8(ascii: "\\") || byte == UInt8(ascii: ";")
                || byte == UInt8(ascii: ",")
                || (previous == 0xC2 && (0x80...0x9F).contains(byte))
            {
                clean = false
                break
            }
            previous = byte
        }
        if clean { return text }
        let lines = text.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: ";", with: "\\;")
            .replacingOccurrences(of: ",", with: "\\,").replacingOccurrences(of: "\r\n", with: "\n")
            .replacingOccurrences(of: "\r", with: "\n").replacingOccurrences(of: "\n", with: "\\n")
        guard
            lines.unicodeScalars.contains(where: { $0.value < 0x20 && $0 != "\t" || (0x7F...0x9F).contains($0.value) })
        else {
            return lines
        }
        var out = String.UnicodeScalarView()
        for scalar in lines.unicodeScalars {
            switch scalar.value {
            case 0x09: out.append(scalar)
            case 0x00..<0x20: out.append(Unicode.Scalar(0x2400 + scalar.value)!)
            case 0x7F: out.append(Unicode.Scalar(0x2421)!)
            case 0x80...0x9F: out.append(Unicode.Scalar(0xFFFD)!)
            default: out.append(scalar)
            }
        }
        return String(out)
    }

    /// Lines longer than 75 octets are folded (RFC 5545 §3.1), never inside a UTF-8 sequence.
    private static func fold(_ line: String) -> String {
        if line.utf8.count <= 75 { return line }
        var out = ""
        var count = 0
        for scalar in line.unicodeScalars {
            let size = String(scalar).utf8.count
            if count + size > 75 {
                out += "\r\n "
                count = 1
            }
            out.unicodeScalars.append(scalar)
            count += size
        }
        return out
    }
}
