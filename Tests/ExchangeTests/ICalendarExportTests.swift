import Foundation
import JSON
import Planning
import ReplanTestSupport
import Testing

@testable import Exchange

private let stamp = Date(timeIntervalSince1970: 1_736_218_800) // 2025-01-07T03:00:00Z

private func task(
    _ id: String, _ title: String, _ start: String, _ end: String, allDay: Bool = false, note: String = "",
    category: String = "English", repeat rule: RepeatRule? = nil
) -> StudyTask {
    StudyTask(
        id: id, userID: "mei", title: title, note: note, category: category, start: at(start), end: at(end),
        allDay: allDay, repeatRule: rule, createdAt: stamp)
}

private func plan(_ tasks: [StudyTask], zone: String = "Asia/Taipei") -> UserPlan {
    UserPlan(user: try! User(id: "mei", zone: try! UserZone(identifier: zone)), tasks: tasks)
}

private func render(_ plan: UserPlan, from: String = "2025-01-06", through: String = "2025-01-12") -> String {
    ICalendarExport.render(plan, from: date(from), through: date(through), stamp: stamp)
}

/// The content lines of a rendering: folded lines joined again (RFC 5545 §3.1).
private func unfolded(_ ics: String) -> [String] {
    ics.replacingOccurrences(of: "\r\n ", with: "").components(separatedBy: "\r\n").dropLast().map { $0 }
}

/// The physical lines as bytes, split at CRLF.
private func physicalLines(_ ics: String) -> [[UInt8]] {
    var lines: [[UInt8]] = []
    var current: [UInt8] = []
    let bytes = Array(ics.utf8)
    var i = 0
    while i < bytes.count {
        if bytes[i] == 13, i + 1 < bytes.count, bytes[i + 1] == 10 {
            lines.append(current)
            current = []
            i += 2
            continue
        }
        current.append(bytes[i])
        i += 1
    }
    #expect(current.isEmpty, "the file ends with CRLF")
    return lines
}

/// The value of the first line with this name (up to ':' or ';') in each event, in order.
private func values(_ name: String, in ics: String) -> [String] {
    unfolded(ics).compactMap { line in
        guard line.hasPrefix(name + ":") || line.hasPrefix(name + ";") else { return nil }
        return String(line[line.index(after: line.firstIndex(of: ":")!)...])
    }
}

@Suite("ICalendarExport")
struct ICalendarExportTests {
    @Test("a calendar with one timed event, line by line")
    func wholeFile() {
        let ics = render(plan([task("essay", "Essay", "2025-01-07T15:00", "2025-01-07T17:00", note: "Draft")]))
        #expect(
            ics
                == [
                    "BEGIN:VCALENDAR", "VERSION:2.0", "PRODID:-//replan//replan 1//EN", "CALSCALE:GREGORIAN",
                    "NAME:mei — study plan", "X-WR-CALNAME:mei — study plan", "X-WR-TIMEZONE:Asia/Taipei",
                    "REFRESH-INTERVAL;VALUE=DURATION:PT6H", "X-PUBLISHED-TTL:PT6H",
                    "BEGIN:VEVENT", "UID:essay@mei.replan", "DTSTAMP:20250107T030000Z",
                    "LAST-MODIFIED:20250107T030000Z", "SEQUENCE:1",
                    "DTSTART:20250107T070000Z", "DTEND:20250107T090000Z",
                    "SUMMARY:Essay", "DESCRIPTION:Draft", "CATEGORIES:English", "END:VEVENT",
                    "END:VCALENDAR",
                ].map { $0 + "\r\n" }.joined())
    }

    @Test("every line ends with CRLF and no bare LF or CR is left")
    func crlf() {
        let ics = render(
            plan([
                task("essay", "Essay", "2025-01-07T15:00", "2025-01-07T17:00", note: "line 1\nline 2\r\nline 3\rline 4")
            ]))
        #expect(ics.hasSuffix("END:VCALENDAR\r\n"))
        let bytes = Array(ics.utf8)
        for (i, b) in bytes.enumerated() {
            if b == 10 { #expect(i > 0 && bytes[i - 1] == 13, "bare LF at byte \(i)") }
            if b == 13 { #expect(i + 1 < bytes.count && bytes[i + 1] == 10, "bare CR at byte \(i)") }
        }
        #expect(values("DESCRIPTION", in: ics) == [#"line 1\nline 2\nline 3\nline 4"#])
    }

    @Test("timed events are written in UTC, whatever the user's zone and its DST")
    func utcTimes() {
        let ny = plan(
            [
                task("a", "A", "2025-03-08T10:00", "2025-03-08T11:00"),
                task("b", "B", "2025-03-10T10:00", "2025-03-10T11:30"),
            ],
            zone: "America/New_York")
        let ics = render(ny, from: "2025-03-08", through: "2025-03-10")
        #expect(values("DTSTART", in: ics) == ["20250308T150000Z", "20250310T140000Z"]) // EST, then EDT
        #expect(values("DTEND", in: ics) == ["20250308T160000Z", "20250310T153000Z"])
        #expect(values("X-WR-TIMEZONE", in: ics) == ["America/New_York"])
        // A session across local midnight stays one event.
        let late = render(plan([task("late", "Late", "2025-01-07T23:30", "2025-01-08T00:30")]))
        #expect(values("DTSTART", in: late) == ["20250107T153000Z"])
        #expect(values("DTEND", in: late) == ["20250107T163000Z"])
    }

    @Test("all-day events use VALUE=DATE with an exclusive end")
    func allDay() {
        let ics = render(
            plan([
                task("exam", "Exam", "2025-01-08T00:00", "2025-01-08T00:00", allDay: true),
                task("trip", "Trip", "2025-01-10T00:00", "2025-01-12T00:00", allDay: true),
                task("eoy", "Year end", "2025-12-31T00:00", "2025-12-31T00:00", allDay: true),
            ]), from: "2025-01-01", through: "2025-12-31")
        let lines = unfolded(ics)
        #expect(
            lines.filter { $0.hasPrefix("DTSTART") } == [
                "DTSTART;VALUE=DATE:20250108", "DTSTART;VALUE=DATE:20250110", "DTSTART;VALUE=DATE:20251231",
            ])
        #expect(
            lines.filter { $0.hasPrefix("DTEND") } == [
                "DTEND;VALUE=DATE:20250109", "DTEND;VALUE=DATE:20250113", "DTEND;VALUE=DATE:20260101",
            ])
    }

    @Test(
        "series occurrences are single events; skipped ones cancelled, completed ones marked, moved ones where they sit"
    )
    func seriesOccurrences() {
        var p = plan([task("vocab", "Vocab", "2025-01-06T20:00", "2025-01-06T20:30", repeat: RepeatRule(every: .daily))]
        )
        p.complete(id("vocab@2025-01-06"))
        p.skip(id("vocab@2025-01-07"))
        p.move(id("vocab@2025-01-08"), start: at("2025-01-08T07:00"), end: at("2025-01-08T07:30"))
        let ics = render(p, from: "2025-01-06", through: "2025-01-09")
        #expect(
            values("UID", in: ics) == [
                "vocab@2025-01-06@mei.replan", "vocab@2025-01-07@mei.replan",
                "vocab@2025-01-08@mei.replan", "vocab@2025-01-09@mei.replan",
            ])
        #expect(
            values("DTSTART", in: ics) == [
                "20250106T120000Z", "20250107T120000Z", "20250107T230000Z", "20250109T120000Z",
            ])
        #expect(values("X-REPLAN-COMPLETED", in: ics) == ["TRUE"])
        // A calendar that kept the skipped session drops it on the next refresh.
        #expect(values("STATUS", in: ics) == ["CONFIRMED", "CANCELLED"])
        #expect(
            values("SUMMARY", in: ics) == ["✓ Vocab", "Vocab", "Vocab", "Vocab"],
            "the completed mark is where people look")
        #expect(ics.components(separatedBy: "BEGIN:VEVENT").count == 5)
    }

    @Test("SEQUENCE grows with every change of the task or the occurrence; LAST-MODIFIED is the task's")
    func sequence() {
        var t = task("vocab", "Vocab", "2025-01-06T20:00", "2025-01-06T20:30", repeat: RepeatRule(every: .daily))
        t.version = 3
        t.updatedAt = Date(timeIntervalSince1970: 1_736_100_000) // 2025-01-05T18:00:00Z
        let before = values("SEQUENCE", in: render(plan([t]), from: "2025-01-08", through: "2025-01-08"))
        // The store bumps an override's version on every write; the second write of this one:
        let moved = OccurrenceOverride(
            taskID: "vocab", originalDate: date("2025-01-08"), state: .open,
            start: at("2025-01-08T07:00"), end: at("2025-01-08T07:30"), version: 2)
        let p = UserPlan(
            user: try! User(id: "mei", zone: try! UserZone(identifier: "Asia/Taipei")), tasks: [t], overrides: [moved])
        let ics = render(p, from: "2025-01-08", through: "2025-01-08")
        #expect(before == ["3"])
        #expect(values("SEQUENCE", in: ics) == ["5"])
        #expect(values("LAST-MODIFIED", in: ics) == ["20250105T180000Z"])
    }

    @Test("one-off sessions deleted by recent changesets are listed as cancelled, once, when not back in the plan")
    func droppedSessions() {
        let p = plan([task("kept", "Kept", "2025-01-08T10:00", "2025-01-08T11:00")])
        func dropped(_ id: String, _ start: String, _ end: String, version: Int = 3, ago: Double = 0) -> DroppedSession
        {
            DroppedSession(
                id: id, title: "Old \(id)", category: "Math", start: at(start), end: at(end), allDay: false,
                version: version, droppedAt: stamp.addingTimeInterval(-ago))
        }
        let ics = ICalendarExport.render(
            p, from: date("2025-01-06"), through: date("2025-01-12"), stamp: stamp,
            dropped: [
                dropped("stale", "2025-01-06T09:00", "2025-01-06T10:00", version: 2, ago: 3600),
                dropped("stale", "2025-01-06T09:00", "2025-01-06T10:00", version: 4, ago: 60), // deleted again later
                dropped("kept", "2025-01-08T10:00", "2025-01-08T11:00"), // restored since
                dropped("gone", "2025-02-01T10:00", "2025-02-01T11:00"), // outside the range
            ])
        #expect(values("UID", in: ics) == ["kept@mei.replan", "stale@mei.replan"])
        #expect(values("STATUS", in: ics) == ["CANCELLED"])
        #expect(values("SEQUENCE", in: ics).last == "5", "one more than the newest deleted row's version")
        // A task's before image, as changesets store it, reads back; a series' does not.
        let image: JSONValue = [
            "id": "t1", "title": "Math drill", "category": "Math", "start": "2025-01-03T15:30",
            "end": "2025-01-03T16:30", "allDay": false, "repeat": .null, "version": 2,
        ]
        #expect(DroppedSession(image: image, droppedAt: stamp)?.start == at("2025-01-03T15:30"))
        var series = image
        if case .object(var o) = series {
            o["repeat"] = ["every": "daily"]
            series = .object(o)
        }
        #expect(DroppedSession(image: series, droppedAt: stamp) == nil)
    }

    @Test("a session the latest night moved says in its description why and from where, in the student's language")
    func aMovedSessionSaysWhy() throws {
        let moved = task("math", "Math", "2025-01-07T10:00", "2025-01-07T11:00", note: "chapter 3")
        let phy = task("phy", "Physics", "2025-01-08T14:00", "2025-01-08T15:00")
        let edits = [
            PlanEdit(
                op: .move, id: id("math"), title: "Math",
                before: ReplanTestSupport.range("2025-01-06T10:00", "2025-01-06T11:00"),
                after: ReplanTestSupport.range("2025-01-07T10:00", "2025-01-07T11:00"), reason: .makeUp),
            // Moved again since (by the student): the line no longer holds.
            PlanEdit(
                op: .move, id: id("phy"), title: "Physics",
                before: ReplanTestSupport.range("2025-01-07T14:00", "2025-01-07T15:00"),
                after: ReplanTestSupport.range("2025-01-08T09:00", "2025-01-08T10:00"), reason: .chainShift),
        ]
        let ics = unfolded(
            ICalendarExport.render(
                plan([moved, phy]), from: date("2025-01-06"), through: date("2025-01-12"), stamp: stamp, moves: edits))
        #expect(ics.contains("DESCRIPTION:moved from Mon 6 Jan: missed\\n\\nchapter 3"), "\(ics)")
        #expect(ics.filter { $0.hasPrefix("DESCRIPTION:") }.count == 1, "\(ics)")
        var zh = plan([moved])
        zh.user = try User(id: "mei", zone: UserZone(identifier: "Asia/Taipei"), language: "zh-TW")
        let chinese = unfolded(
            ICalendarExport.render(
                zh, from: date("2025-01-06"), through: date("2025-01-12"), stamp: stamp, moves: edits))
        #expect(chinese.contains("DESCRIPTION:從 1月6日週一 移來：未完成\\n\\nchapter 3"), "\(chinese)")
    }

    @Test("the calendar is named after the student and asks to be refreshed")
    func calendarProperties() {
        var p = plan([])
        p.user.displayName = "Mei; Lin"
        let ics = render(p)
        #expect(values("X-WR-CALNAME", in: ics) == [#"Mei\; Lin — study plan"#])
        #expect(values("NAME", in: ics) == [#"Mei\; Lin — study plan"#])
        #expect(values("REFRESH-INTERVAL", in: ics) == ["PT6H"] && values("X-PUBLISHED-TTL", in: ics) == ["PT6H"])
    }

    @Test("with notifications on, open timed sessions get an alarm from the reminder setting")
    func alarms() throws {
        var p = plan([
            task("a", "Essay", "2025-01-07T15:00", "2025-01-07T17:00"),
            task("b", "Trip", "2025-01-08T00:00", "2025-01-08T00:00", allDay: true),
            task("c", "Done", "2025-01-09T15:00", "2025-01-09T16:00"),
        ])
        p.complete(id("c"))
        #expect(!render(p).contains("BEGIN:VALARM"), "notifications are off by default")
        var settings = p.user.settings
        settings.notificationsEnabled = true
        settings.reminderMinutes = 15
        p.user.settings = settings
        let ics = render(p)
        #expect(ics.components(separatedBy: "BEGIN:VALARM").count == 2, "only the open timed session: \(ics)")
        #expect(ics.contains("BEGIN:VALARM\r\nACTION:DISPLAY\r\nDESCRIPTION:Essay\r\nTRIGGER:-PT15M\r\nEND:VALARM\r\n"))
        settings.reminderMinutes = 0
        p.user.settings = settings
        #expect(values("TRIGGER", in: render(p)) == ["-PT0M"])
    }

    @Test("control characters never reach the file: shown as control pictures, tabs kept")
    func controlCharacters() {
        let ics = render(
            plan([
                task(
                    "e", "Bell\u{07} tab\tend\u{7F}", "2025-01-07T15:00", "2025-01-07T17:00",
                    note: "nul\u{0}esc\u{1B}c1\u{85}")
            ]))
        #expect(values("SUMMARY", in: ics) == ["Bell␇ tab\tend␡"])
        #expect(values("DESCRIPTION", in: ics) == ["nul␀esc␛c1\u{FFFD}"])
        for scalar in ics.unicodeScalars where scalar.value < 0x20 || (0x7F...0x9F).contains(scalar.value) {
            #expect(
                scalar == "\r" || scalar == "\n" || scalar == "\t",
                "control U+\(String(scalar.value, radix: 16)) in the file")
        }
    }

    @Test("text escapes backslash, semicolon, comma and newlines")
    func escaping() {
        let ics = render(
            plan([
                task(
                    "e", #"Read a\b; c, d"#, "2025-01-07T15:00", "2025-01-07T17:00",
                    note: "first\nsecond; third, \\fourth", category: "Maths, Physics")
            ]))
        #expect(values("SUMMARY", in: ics) == [#"Read a\\b\; c\, d"#])
        #expect(values("DESCRIPTION", in: ics) == [#"first\nsecond\; third\, \\fourth"#])
        #expect(values("CATEGORIES", in: ics) == [#"Maths\, Physics"#])
    }

    @Test("no DESCRIPTION without a note")
    func noNote() {
        let ics = render(plan([task("e", "Essay", "2025-01-07T15:00", "2025-01-07T17:00")]))
        #expect(values("DESCRIPTION", in: ics).isEmpty)
    }

    @Test(
        "lines are folded at 75 octets, never inside a UTF-8 sequence",
        arguments: [
            String(repeating: "a", count: 200),
            String(repeating: "字", count: 60),
            String(repeating: "📚", count: 40),
            "x" + String(repeating: "é", count: 80),
            String(repeating: "ab字📚", count: 20),
        ])
    func folding(_ title: String) throws {
        let ics = render(plan([task("e", title, "2025-01-07T15:00", "2025-01-07T17:00", note: title)]))
        let lines = physicalLines(ics)
        for (n, line) in lines.enumerated() {
            #expect(line.count <= 75, "line \(n) has \(line.count) octets")
            #expect(String(validating: line, as: UTF8.self) != nil, "line \(n) splits a UTF-8 sequence")
        }
        // Folding is lossless and fills lines: every folded line but the last is nearly full.
        #expect(values("SUMMARY", in: ics) == [title])
        #expect(values("DESCRIPTION", in: ics) == [title])
        let summary = try #require(lines.firstIndex { $0.starts(with: Array("SUMMARY:".utf8)) })
        #expect(lines[summary].count > 71)
        #expect(lines[summary + 1].first == 0x20)
    }

    @Test("a line of exactly 75 octets is not folded; 76 is")
    func foldBoundary() {
        let exact = render(
            plan([
                task("e", String(repeating: "a", count: 75 - "SUMMARY:".count), "2025-01-07T15:00", "2025-01-07T17:00")
            ]))
        #expect(physicalLines(exact).contains { $0.count == 75 && $0.starts(with: Array("SUMMARY:".utf8)) })
        let over = render(
            plan([
                task("e", String(repeating: "a", count: 76 - "SUMMARY:".count), "2025-01-07T15:00", "2025-01-07T17:00")
            ]))
        #expect(over.contains("SUMMARY:" + String(repeating: "a", count: 67) + "\r\n a\r\n"))
    }

    @Test("the range is inclusive and takes occurrences that touch it")
    func range() {
        let p = plan([
            task("before", "Before", "2025-01-05T10:00", "2025-01-05T11:00"),
            task("first", "First", "2025-01-06T00:00", "2025-01-06T01:00"),
            task("last", "Last", "2025-01-12T23:00", "2025-01-13T01:00"),
            task("after", "After", "2025-01-13T00:00", "2025-01-13T01:00"),
            task("span", "Span", "2025-01-04T00:00", "2025-01-07T00:00", allDay: true),
        ])
        #expect(values("SUMMARY", in: render(p)) == ["Span", "First", "Last"])
        #expect(values("SUMMARY", in: render(p, from: "2025-01-20", through: "2025-01-21")).isEmpty)
    }
}
