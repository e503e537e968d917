import Foundation
import Planning
import ReplanTestSupport
import Testing

@testable import Exchange

private let importTime = Date(timeIntervalSince1970: 1_736_218_800) // 2025-01-07T03:00:00Z

private func decode(_ text: String) throws(DataError) -> ReplanDocument {
    try ReplanDocumentDecoder(now: importTime).decode(Data(text.utf8))
}

private func task(
    _ id: String, user: String = "mei", _ title: String, category: String = "English", color: TaskColor = .green,
    _ start: String, _ end: String, allDay: Bool = false, note: String = "", completed: Bool = false,
    subtasks: [Subtask] = [], repeat rule: RepeatRule? = nil
) -> StudyTask {
    StudyTask(
        id: id, userID: user, title: title, note: note, category: category, color: color,
        start: at(start), end: at(end), allDay: allDay, completed: completed, subtasks: subtasks,
        repeatRule: rule, createdAt: importTime, updatedAt: importTime, version: 1)
}

/// Everything the format can say: every setting away from its default, series with every kind
/// of override and several slides, all-day tasks, subtasks, text that needs escaping, focus
/// sessions, a display name and a second user.
private func richDocument() throws -> ReplanDocument {
    var s = UserSettings()
    s.windows = try WeeklyWindows(text: [.mon: ["19:00-24:00", "07:30-09:00"], .sat: ["10:00-12:00"]])
    s.windowsEnabled = false
    s.sessionMinutes = 45
    s.sessionMinutesEnabled = false
    s.tone = "嚴格但溫柔的老師 🧑‍🏫"
    s.instruction = "line one\nline \"two\"\t\\ end"
    s.autoUpdate = false
    s.notificationsEnabled = true
    s.reminderMinutes = 30
    s.deleteAfterDays = 3
    s.horizonDays = 30
    s.keepCategories = ["English", "數學"]
    s.splitSessions = true
    s.morningTime = TimeOfDay(hour: 6, minute: 45)
    let mei = try User(
        id: "mei", zone: UserZone(identifier: "Asia/Taipei"), language: "zh-Hant-TW", displayName: "梅 \"Mei\"",
        settings: s)

    let tasks = [
        task(
            "vocab", "Vocab 單字", "2025-01-06T20:00", "2025-01-06T20:30", subtasks: [Subtask(title: "list", done: true)],
            repeat: RepeatRule(every: .daily, until: date("2025-01-31"))),
        task(
            "club", "Chess club ♟", category: "Clubs", color: .red, "2025-01-08T16:00", "2025-01-08T18:00",
            repeat: RepeatRule(every: .weekly)),
        task(
            "rent", "Pay rent", category: "Life", color: .blue, "2025-01-31T00:00", "2025-01-31T00:00", allDay: true,
            repeat: RepeatRule(every: .monthly, until: date("2025-12-31"))),
        task(
            "trip", "Field trip", category: "Geography", color: .yellow, "2025-01-11T00:00", "2025-01-12T00:00",
            allDay: true),
        task(
            "essay", "Essay 📝 «論文» \\ \"draft\"", category: "寫作", color: .yellow, "2025-01-07T15:00",
            "2025-01-07T17:00",
            // (C0 controls other than tab, LF, CR are refused on import: issue 13)
            note: "Outline:\n- intro\n- body\r\n- end\t", completed: true,
            subtasks: [Subtask(title: "outline", done: true), Subtask(title: "草稿", done: false)]),
        // Same start as the essay: ordered by id after it.
        task("essay-b", "Reading", "2025-01-07T15:00", "2025-01-07T16:00"),
    ]
    let overrides = [
        OccurrenceOverride(taskID: "vocab", originalDate: date("2025-01-06"), state: .completed),
        OccurrenceOverride(
            taskID: "vocab", originalDate: date("2025-01-07"), state: .open,
            start: at("2025-01-07T21:00"), end: at("2025-01-07T21:30")),
        OccurrenceOverride(
            taskID: "vocab", originalDate: date("2025-01-08"), state: .completed,
            start: at("2025-01-08T07:00"), end: at("2025-01-08T07:30")),
        OccurrenceOverride(taskID: "vocab", originalDate: date("2025-01-09"), state: .skipped),
        OccurrenceOverride(
            taskID: "club", originalDate: date("2025-01-15"), state: .open,
            start: at("2025-01-16T16:00"), end: at("2025-01-16T18:00")),
        OccurrenceOverride(
            taskID: "rent", originalDate: date("2025-02-28"), state: .completed,
            start: at("2025-03-01T00:00"), end: at("2025-03-01T00:00")),
    ]
    let slides = [
        SeriesSlide(taskID: "vocab", from: date("2025-01-10"), days: 1),
        SeriesSlide(taskID: "vocab", from: date("2025-01-20"), days: 2),
        SeriesSlide(taskID: "club", from: date("2025-01-22"), days: -1),
    ]
    let focus = [
        FocusSession(category: "English", start: at("2025-01-06T20:00"), minutes: 25),
        FocusSession(category: "數學", start: at("2025-01-05T09:00"), minutes: 90),
        FocusSession(category: "Clubs", start: at("2025-01-06T20:00"), minutes: 5),
    ]
    let kai = try User(
        id: "kai.b@school", zone: UserZone(identifier: "UTC"),
        settings: {
            var k = UserSettings()
            k.windows = try! WeeklyWindows([:])
            return k
        }())
    return ReplanDocument(entries: [
        .init(user: mei, tasks: tasks, overrides: overrides, slides: slides, focusSessions: focus),
        .init(
            user: kai, tasks: [],
            focusSessions: [FocusSession(category: "Chemistry", start: at("2024-12-31T23:59"), minutes: 1440)]),
    ])
}

/// A document's entries with every list in a canonical order, to compare contents.
private func canonical(_ doc: ReplanDocument) -> [ReplanDocument.Entry] {
    doc.entries.map {
        ReplanDocument.Entry(
            user: $0.user, tasks: $0.tasks.sorted { $0.id < $1.id },
            overrides: $0.overrides.sorted { $0.occurrenceID < $1.occurrenceID },
            slides: $0.slides.sorted { ($0.taskID, $0.from) < ($1.taskID, $1.from) },
            focusSessions: $0.focusSessions.sorted { ($0.start, $0.category) < ($1.start, $1.category) })
    }
}

@Suite("ReplanDocument encoder")
struct ReplanDocumentEncoderTests {
    @Test("export → import → export is byte-identical for a document that uses everything")
    func roundTripIsByteIdentical() throws {
        let original = try richDocument()
        let exported = original.json.prettyText
        let imported = try decode(exported)
        #expect(imported.json.prettyText == exported)
        #expect(imported.json.text == original.json.text)
        // Nothing is lost on the way: the imported values are the exported ones.
        #expect(canonical(imported) == canonical(original))
    }

    @Test("the docs/data-format.md §3.1 example survives import → export → import unchanged")
    func dataMDExampleRoundTrip() throws {
        let example = #"""
            {"format": "replan/1", "users": [{"id": "mei", "timeZone": "Asia/Taipei", "language": "zh-TW",
              "settings": {"windows": {"mon": ["09:00-12:00", "14:00-17:00"], "tue": ["09:00-17:00"]}, "tone": "沉著穩重的專家"},
              "tasks": [{"id": "eng-1", "title": "English reading", "category": "English", "start": "2025-01-06T10:00",
                "end": "2025-01-06T11:00", "repeat": {"every": "daily", "until": "2025-01-31"},
                "occurrences": [{"date": "2025-01-06", "state": "completed"},
                  {"date": "2025-01-08", "state": "moved", "start": "2025-01-08T15:00", "end": "2025-01-08T16:00"},
                  {"date": "2025-01-09", "state": "skipped"}],
                "slides": [{"from": "2025-01-10", "days": 1}]}],
              "focusSessions": [{"category": "English", "start": "2025-01-06T10:00", "minutes": 55}]}]}
            """#
        let first = try decode(example)
        let text = first.json.prettyText
        let second = try decode(text)
        #expect(second == first)
        #expect(second.json.prettyText == text)
    }

    @Test("the same data in any order exports the same bytes")
    func deterministic() throws {
        let doc = try richDocument()
        var shuffled = doc
        shuffled.entries[0].tasks.reverse()
        shuffled.entries[0].overrides.reverse()
        shuffled.entries[0].slides.reverse()
        shuffled.entries[0].focusSessions.reverse()
        #expect(shuffled.json.prettyText == doc.json.prettyText)
    }

    @Test("tasks are written by start then id; overrides and slides by date; keys sorted")
    func order() throws {
        let json = try richDocument().json
        let ids = json["users"]?.arrayValue?[0]["tasks"]?.arrayValue?.compactMap { $0["id"]?.stringValue }
        #expect(ids == ["vocab", "essay", "essay-b", "club", "trip", "rent"])
        let vocab = try #require(json["users"]?.arrayValue?[0]["tasks"]?.arrayValue?[0])
        #expect(
            vocab["occurrences"]?.arrayValue?.compactMap { $0["date"]?.stringValue } == [
                "2025-01-06", "2025-01-07", "2025-01-08", "2025-01-09",
            ])
        #expect(vocab["slides"]?.arrayValue?.compactMap { $0["from"]?.stringValue } == ["2025-01-10", "2025-01-20"])
        let text = json.prettyText
        #expect(text.hasPrefix("{\n  \"format\": \"replan/1\",\n  \"users\": ["))
    }

    @Test("the written shapes: one-off tasks without repeat, all-day as dates, moves with their state")
    func shapes() throws {
        let user = try #require(try richDocument().json["users"]?.arrayValue?[0])
        let tasks = try #require(user["tasks"]?.arrayValue)
        let byID = Dictionary(uniqueKeysWithValues: tasks.map { ($0["id"]!.stringValue!, $0) })

        let essay = try #require(byID["essay"])
        #expect(essay["repeat"] == nil && essay["occurrences"] == nil && essay["slides"] == nil)
        #expect(essay["completed"] == true)
        #expect(essay["color"] == "yellow")

        let trip = try #require(byID["trip"])
        #expect(trip["start"] == "2025-01-11" && trip["end"] == "2025-01-12" && trip["allDay"] == true)

        let club = try #require(byID["club"])
        #expect(club["repeat"] == ["every": "weekly"])
        #expect(
            club["occurrences"] == [
                ["date": "2025-01-15", "state": "moved", "start": "2025-01-16T16:00", "end": "2025-01-16T18:00"]
            ])
        #expect(club["slides"] == [["from": "2025-01-22", "days": -1]])

        let vocab = try #require(byID["vocab"])
        #expect(vocab["repeat"] == ["every": "daily", "until": "2025-01-31"])
        #expect(
            vocab["occurrences"] == [
                ["date": "2025-01-06", "state": "completed"],
                ["date": "2025-01-07", "state": "moved", "start": "2025-01-07T21:00", "end": "2025-01-07T21:30"],
                ["date": "2025-01-08", "state": "completed", "start": "2025-01-08T07:00", "end": "2025-01-08T07:30"],
                ["date": "2025-01-09", "state": "skipped"],
            ])

        let rent = try #require(byID["rent"])
        #expect(
            rent["occurrences"] == [
                ["date": "2025-02-28", "state": "completed", "start": "2025-03-01", "end": "2025-03-01"]
            ])

        #expect(user["displayName"] == "梅 \"Mei\"")
        #expect(user["language"] == "zh-Hant-TW")
        #expect(user["settings"]?["windows"] == ["mon": ["07:30-09:00", "19:00-24:00"], "sat": ["10:00-12:00"]])
    }

    @Test("a series without overrides or slides writes empty lists; a user without a name writes none")
    func emptyLists() throws {
        let kai = try User(id: "kai", zone: UserZone(identifier: "Europe/Berlin"))
        let doc = ReplanDocument(entries: [
            .init(
                user: kai,
                tasks: [
                    task(
                        "s", user: "kai", "Series", "2025-01-06T10:00", "2025-01-06T11:00",
                        repeat: RepeatRule(every: .daily))
                ])
        ])
        let user = try #require(doc.json["users"]?.arrayValue?.first)
        #expect(user["displayName"] == nil)
        #expect(user["tasks"]?.arrayValue?.first?["occurrences"] == [])
        #expect(user["tasks"]?.arrayValue?.first?["slides"] == [])
        #expect(user["focusSessions"] == [])
        // Every setting is written, so the file says what the user has.
        #expect(
            user["settings"]?.objectValue?.keys.sorted() == [
                "autoUpdate", "deleteAfterDays", "horizonDays", "instruction", "keepCategories", "morningTime",
                "notificationsEnabled", "reminderMinutes", "sessionMinutes", "sessionMinutesEnabled", "splitSessions",
                "tone", "windows",
                "windowsEnabled",
            ])
        #expect(try decode(doc.json.prettyText) == doc)
    }

    @Test("a user without any window exports an empty windows object and imports without windows")
    func noWindows() throws {
        let doc = try richDocument()
        let kai = try #require(doc.json["users"]?.arrayValue?[1])
        #expect(kai["settings"]?["windows"] == [:])
        let back = try decode(doc.json.text)
        #expect(Weekday.allCases.allSatisfy { back.entries[1].user.settings.windows.windows(on: $0).isEmpty })
    }

    @Test("an occurrence moved and then skipped exports as skipped, and the export imports again")
    func movedThenSkipped() throws {
        let mei = try User(id: "mei", zone: UserZone(identifier: "Asia/Taipei"))
        var plan = UserPlan(
            user: mei,
            tasks: [
                task(
                    "vocab", "Vocab", "2025-01-06T20:00", "2025-01-06T20:30",
                    repeat: RepeatRule(every: .daily))
            ])
        let id = OccurrenceID(taskID: "vocab", originalDate: date("2025-01-08"))
        plan.move(id, start: at("2025-01-08T07:00"), end: at("2025-01-08T07:30"))
        plan.skip(id)
        let doc = ReplanDocument(entries: [
            .init(user: plan.user, tasks: plan.sortedTasks, overrides: plan.allOverrides)
        ])
        #expect(
            doc.json["users"]?.arrayValue?[0]["tasks"]?.arrayValue?[0]["occurrences"] == [
                ["date": "2025-01-08", "state": "skipped"]
            ])
        let back = try decode(doc.json.text)
        #expect(
            back.entries[0].overrides == [
                OccurrenceOverride(taskID: "vocab", originalDate: date("2025-01-08"), state: .skipped)
            ])
        #expect(back.json.prettyText == doc.json.prettyText)
    }

    @Test("an open override without a move says nothing and is not written")
    func openWithoutMove() throws {
        let mei = try User(id: "mei", zone: UserZone(identifier: "Asia/Taipei"))
        let doc = ReplanDocument(entries: [
            .init(
                user: mei,
                tasks: [
                    task("vocab", "Vocab", "2025-01-06T20:00", "2025-01-06T20:30", repeat: RepeatRule(every: .daily))
                ],
                overrides: [OccurrenceOverride(taskID: "vocab", originalDate: date("2025-01-08"), state: .open)])
        ])
        #expect(doc.json["users"]?.arrayValue?[0]["tasks"]?.arrayValue?[0]["occurrences"] == [])
        #expect(try decode(doc.json.text).entries[0].overrides.isEmpty)
    }
}
