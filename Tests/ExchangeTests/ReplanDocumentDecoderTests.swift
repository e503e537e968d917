import Foundation
import Planning
import ReplanTestSupport
import Testing

@testable import Exchange

private let importTime = Date(timeIntervalSince1970: 1_736_218_800) // 2025-01-07T03:00:00Z

private func decode(_ text: String) throws(DataError) -> ReplanDocument {
    try ReplanDocumentDecoder(now: importTime).decode(Data(text.utf8))
}

/// The error a document is refused with, or nil when it decodes.
private func failure(_ text: String) -> DataError? {
    do {
        _ = try decode(text)
        return nil
    } catch { return error }
}

/// A task object: a one-off "Essay" on Mon 1/6 10:00–11:00, with `changes` applied (raw JSON
/// values; nil removes a field).
private func task(_ changes: [String: String?] = [:]) -> String {
    var fields: [String: String] = [
        "id": #""essay""#, "title": #""Essay""#, "category": #""Writing""#,
        "start": #""2025-01-06T10:00""#, "end": #""2025-01-06T11:00""#,
    ]
    for (key, value) in changes { fields[key] = value }
    return "{" + fields.keys.sorted().map { "\"\($0)\": \(fields[$0]!)" }.joined(separator: ", ") + "}"
}

/// A daily series "Vocab" from Mon 1/6 20:00–20:30 until 1/31, with `changes` applied.
private func series(_ changes: [String: String?] = [:]) -> String {
    var all: [String: String?] = [
        "id": #""vocab""#, "title": #""Vocab""#, "category": #""English""#,
        "start": #""2025-01-06T20:00""#, "end": #""2025-01-06T20:30""#,
        "repeat": #"{"every": "daily", "until": "2025-01-31"}"#,
    ]
    for (key, value) in changes { all[key] = value }
    return task(all)
}

/// A one-user document (Mei in Taipei) with the given tasks, and `user` members (raw JSON,
/// each starting with a comma) added to the user object.
private func document(tasks: [String] = [], zone: String = "Asia/Taipei", user: String = "") -> String {
    """
    {"format": "replan/1", "users": [
      {"id": "mei", "timeZone": "\(zone)"\(user), "tasks": [\(tasks.joined(separator: ",\n"))]}
    ]}
    """
}

private func settings(_ json: String) -> String { document(user: #", "settings": \#(json)"#) }

/// The example document of docs/data-format.md §3.1, verbatim.
private let dataMDExample = """
    {
      "format": "replan/1",
      "users": [
        {
          "id": "mei",
          "timeZone": "Asia/Taipei",
          "language": "zh-TW",
          "settings": {
            "windows": { "mon": ["09:00-12:00", "14:00-17:00"], "tue": ["09:00-17:00"] },
            "windowsEnabled": true,
            "sessionMinutes": 60,
            "sessionMinutesEnabled": true,
            "tone": "沉著穩重的專家",
            "instruction": "每天安排兩小時英文",
            "autoUpdate": true,
            "notificationsEnabled": true,
            "reminderMinutes": 10
          },
          "tasks": [
            {
              "id": "eng-1",
              "title": "English reading",
              "note": "Unit 3",
              "category": "English",
              "color": "green",
              "start": "2025-01-06T10:00",
              "end": "2025-01-06T11:00",
              "allDay": false,
              "completed": false,
              "subtasks": [{ "title": "vocabulary list", "done": true }],
              "repeat": { "every": "daily", "until": "2025-01-31" },
              "occurrences": [
                { "date": "2025-01-06", "state": "completed" },
                { "date": "2025-01-08", "state": "moved", "start": "2025-01-08T15:00", "end": "2025-01-08T16:00" },
                { "date": "2025-01-09", "state": "skipped" }
              ],
              "slides": [{ "from": "2025-01-10", "days": 1 }]
            }
          ],
          "focusSessions": [{ "category": "English", "start": "2025-01-06T10:00", "minutes": 55 }]
        }
      ]
    }
    """

/// One document the decoder must refuse, and where it must say the problem is.
struct RefusedReplanDocument: Sendable, CustomTestStringConvertible {
    let name: String
    let json: String
    let path: String
    /// A part of the message that tells the user what is wrong.
    let says: String

    init(_ name: String, _ json: String, _ path: String, _ says: String) {
        self.name = name
        self.json = json
        self.path = path
        self.says = says
    }

    var testDescription: String { name }
}

private let title201 = String(repeating: "a", count: 201)
private let note4001 = String(repeating: "n", count: 4001)

private let refusedDocuments: [RefusedReplanDocument] = [
    // Format
    .init("bad format string", #"{"format": "replan/2", "users": []}"#, "format", "unsupported format 'replan/2'"),
    .init("missing format", #"{"users": []}"#, "format", "is required"),
    .init(
        "unknown missed policy",
        document(tasks: [series(["repeat": #"{"every": "daily", "until": "2025-01-31", "missed": "later"}"#])]),
        "users[0].tasks[0].repeat.missed", "'later' is not shift, skip or make-up"),
    .init("format of the wrong type", #"{"format": 1}"#, "format", "expected a string, got a number"),
    .init("document that is not an object", #"["replan/1"]"#, "", "expected an object, got an array"),
    // User
    .init(
        "unknown time zone", document(zone: "Mars/Olympus_Mons"), "users[0].timeZone",
        "unknown time zone 'Mars/Olympus_Mons'"),
    .init("offset is not an IANA zone", document(zone: "GMT+8"), "users[0].timeZone", "unknown time zone"),
    .init(
        "missing time zone", #"{"format": "replan/1", "users": [{"id": "mei"}]}"#, "users[0].timeZone", "is required"),
    .init(
        "bad user id", #"{"format": "replan/1", "users": [{"id": "mei!", "timeZone": "UTC"}]}"#, "users[0].id",
        "user id 'mei!'"),
    .init("bad language", document(user: #", "language": "english""#), "users[0].language", "not a language tag"),
    .init(
        "display name of the wrong type", document(user: #", "displayName": 5"#), "users[0].displayName",
        "expected a string, got a number"),
    .init(
        "user that is not an object", #"{"format": "replan/1", "users": ["mei"]}"#, "users[0]",
        "expected an object, got a string"),
    .init(
        "duplicate user id",
        #"""
        {"format": "replan/1", "users": [{"id": "mei", "timeZone": "UTC"}, {"id": "mei", "timeZone": "UTC"}]}
        """#, "users[1].id", "user 'mei' appears twice"),
    .init(
        "duplicate task id across users",
        #"""
        {"format": "replan/1", "users": [
          {"id": "mei", "timeZone": "UTC", "tasks": [\#(task())]},
          {"id": "kai", "timeZone": "UTC", "tasks": [\#(task(["title": #""Other""#]))]}]}
        """#, "users[1].tasks[0].id", "task id 'essay' appears twice"),
    .init("duplicate task id in one user", document(tasks: [task(), task()]), "users[0].tasks[1].id", "appears twice"),
    // Settings and windows
    .init(
        "window that ends before it starts", settings(#"{"windows": {"mon": ["09:00-08:00"]}}"#),
        "users[0].settings.windows.mon[0]", "must start before it ends"),
    .init(
        "empty window", settings(#"{"windows": {"tue": ["09:00-12:00", "10:00-10:00"]}}"#),
        "users[0].settings.windows.tue[1]", "must start before it ends"),
    .init(
        "overlapping windows", settings(#"{"windows": {"wed": ["09:00-12:00", "11:30-13:00"]}}"#),
        "users[0].settings.windows.wed", "overlap"),
    .init(
        "window not HH:MM-HH:MM", settings(#"{"windows": {"mon": ["9-5"]}}"#),
        "users[0].settings.windows.mon[0]", "window '9-5' is not HH:MM-HH:MM"),
    .init(
        "window that is not a string", settings(#"{"windows": {"fri": [9]}}"#),
        "users[0].settings.windows.fri[0]", "expected a string, got a number"),
    .init(
        "windows of a day that are not a list", settings(#"{"windows": {"mon": "09:00-17:00"}}"#),
        "users[0].settings.windows.mon", "expected an array, got a string"),
    .init(
        "session minutes as a string", settings(#"{"sessionMinutes": "60"}"#),
        "users[0].settings.sessionMinutes", "expected a whole number, got a string"),
    .init(
        "session minutes out of range", settings(#"{"sessionMinutes": 10}"#),
        "users[0].settings.sessionMinutes", "between 15 and 240"),
    .init(
        "reminder minutes not offered", settings(#"{"reminderMinutes": 7}"#),
        "users[0].settings.reminderMinutes", "one of 0, 5, 10, 15, 30, 60"),
    .init(
        "settings that are not an object", settings(#"["mon"]"#), "users[0].settings",
        "expected an object, got an array"),
    .init(
        "a flag given as text", settings(#"{"autoUpdate": "yes"}"#), "users[0].settings.autoUpdate",
        "expected true or false"),
    // Task fields
    .init(
        "end equal to start", document(tasks: [task(["end": #""2025-01-06T10:00""#])]),
        "users[0].tasks[0].end", "must be after start"),
    .init(
        "end before start", document(tasks: [task(["end": #""2025-01-06T09:00""#])]),
        "users[0].tasks[0].end", "must be after start"),
    .init(
        "all-day last day before the first",
        document(tasks: [task(["allDay": "true", "start": #""2025-01-06""#, "end": #""2025-01-05""#])]),
        "users[0].tasks[0].end", "before the first day"),
    .init(
        "all-day task with times", document(tasks: [task(["allDay": "true"])]),
        "users[0].tasks[0].start", "takes dates, not times"),
    .init(
        "timed task given a date", document(tasks: [task(["start": #""2025-01-06""#])]),
        "users[0].tasks[0].start", "is not a local date-time"),
    .init(
        "start that is not a date-time", document(tasks: [task(["start": #""tomorrow""#])]),
        "users[0].tasks[0].start", "'tomorrow' is not a local date-time"),
    .init("missing end", document(tasks: [task(["end": nil])]), "users[0].tasks[0].end", "is required"),
    .init(
        "empty category", document(tasks: [task(["category": #""""#])]), "users[0].tasks[0].category",
        "must not be empty"),
    .init(
        "blank category", document(tasks: [task(["category": #""  ""#])]), "users[0].tasks[0].category",
        "must not be empty"),
    .init(
        "category 未分類", document(tasks: [task(["category": #""未分類""#])]), "users[0].tasks[0].category",
        "not a specific category"),
    .init(
        "category Uncategorized", document(tasks: [task(["category": #""Uncategorized""#])]),
        "users[0].tasks[0].category", "not a specific category"),
    .init(
        "category uncategorized, in lower case", document(tasks: [task(["category": #"" uncategorized ""#])]),
        "users[0].tasks[0].category", "not a specific category"),
    .init(
        "title of 201 characters", document(tasks: [task(["title": "\"\(title201)\""])]),
        "users[0].tasks[0].title", "at most 200 characters after trimming, got 201"),
    .init(
        "title empty after trimming", document(tasks: [task(["title": #"" \t\u3000 ""#])]),
        "users[0].tasks[0].title", "must not be empty"),
    .init(
        "note over 4000 characters", document(tasks: [task(["note": "\"\(note4001)\""])]),
        "users[0].tasks[0].note", "at most 4000 characters, got 4001"),
    .init(
        "title given as a number", document(tasks: [task(["title": "42"])]), "users[0].tasks[0].title",
        "expected a string, got a number"),
    .init(
        "note given as an object", document(tasks: [task(["note": "{}"])]), "users[0].tasks[0].note",
        "expected a string, got an object"),
    .init(
        "tasks given as an object",
        #"{"format": "replan/1", "users": [{"id": "mei", "timeZone": "UTC", "tasks": {}}]}"#,
        "users[0].tasks", "expected an array, got an object"),
    .init(
        "users given as an object", #"{"format": "replan/1", "users": {"mei": {}}}"#, "users",
        "expected an array, got an object"),
    .init(
        "subtasks given as an object", document(tasks: [task(["subtasks": #"{"title": "a"}"#])]),
        "users[0].tasks[0].subtasks", "expected an array, got an object"),
    .init(
        "all-day flag given as a string", document(tasks: [task(["allDay": #""no""#])]), "users[0].tasks[0].allDay",
        "expected true or false"),
    .init(
        "unknown colour", document(tasks: [task(["color": #""purple""#])]), "users[0].tasks[0].color",
        "'purple' is not red, yellow"),
    .init(
        "RGBA colour with a component above 1", document(tasks: [task(["color": #""0.7,1.6,0.13,0.4""#])]),
        "users[0].tasks[0].color", "is not red"),
    .init("task id with @", document(tasks: [task(["id": #""a@b""#])]), "users[0].tasks[0].id", "no '@'"),
    .init(
        "empty subtask title", document(tasks: [task(["subtasks": #"[{"title": "ok"}, {"title": "  "}]"#])]),
        "users[0].tasks[0].subtasks[1].title", "must not be empty"),
    // Repeat, occurrences, slides
    .init(
        "unknown repeat kind", document(tasks: [series(["repeat": #"{"every": "yearly"}"#])]),
        "users[0].tasks[0].repeat.every", "'yearly' is not none, daily, weekly or monthly"),
    .init(
        "until before the first session",
        document(tasks: [series(["repeat": #"{"every": "daily", "until": "2025-01-05"}"#])]),
        "users[0].tasks[0].repeat.until", "before the first session"),
    .init(
        "until that is not a date",
        document(tasks: [series(["repeat": #"{"every": "daily", "until": "31/01/2025"}"#])]),
        "users[0].tasks[0].repeat.until", "is not a date YYYY-MM-DD"),
    .init(
        "completed series", document(tasks: [series(["completed": "true"])]),
        "users[0].tasks[0].completed", "completed per occurrence"),
    .init(
        "occurrences on a one-off task",
        document(tasks: [task(["occurrences": #"[{"date": "2025-01-06", "state": "completed"}]"#])]),
        "users[0].tasks[0].occurrences", "only a repeating task has occurrences"),
    .init(
        "slides on a one-off task", document(tasks: [task(["slides": #"[{"from": "2025-01-06", "days": 1}]"#])]),
        "users[0].tasks[0].slides", "only a repeating task"),
    .init(
        "occurrences on a repeat of none",
        document(tasks: [
            series(["repeat": #"{"every": "none"}"#, "occurrences": #"[{"date": "2025-01-06", "state": "skipped"}]"#])
        ]),
        "users[0].tasks[0].occurrences", "only a repeating task"),
    .init(
        "override date that is not a weekly recurrence date",
        document(tasks: [
            series(["repeat": #"{"every": "weekly"}"#, "occurrences": #"[{"date": "2025-01-07", "state": "skipped"}]"#])
        ]),
        "users[0].tasks[0].occurrences[0].date", "2025-01-07 is not an occurrence date of this weekly series"),
    .init(
        "override date before the series",
        document(tasks: [series(["occurrences": #"[{"date": "2025-01-05", "state": "skipped"}]"#])]),
        "users[0].tasks[0].occurrences[0].date", "not an occurrence date"),
    .init(
        "override date after until",
        document(tasks: [series(["occurrences": #"[{"date": "2025-02-01", "state": "skipped"}]"#])]),
        "users[0].tasks[0].occurrences[0].date", "not an occurrence date"),
    .init(
        "override date twice",
        document(tasks: [
            series([
                "occurrences":
                    #"[{"date": "2025-01-07", "state": "skipped"}, {"date": "2025-01-07", "state": "completed"}]"#
            ])
        ]),
        "users[0].tasks[0].occurrences[1].date", "appears twice"),
    .init(
        "unknown occurrence state",
        document(tasks: [series(["occurrences": #"[{"date": "2025-01-07", "state": "done"}]"#])]),
        "users[0].tasks[0].occurrences[0].state", "'done' is not completed, skipped or moved"),
    .init(
        "moved occurrence without times",
        document(tasks: [series(["occurrences": #"[{"date": "2025-01-07", "state": "moved"}]"#])]),
        "users[0].tasks[0].occurrences[0].start", "is required"),
    .init(
        "moved occurrence ending before it starts",
        document(tasks: [
            series([
                "occurrences":
                    #"[{"date": "2025-01-07", "state": "moved", "start": "2025-01-07T09:00", "end": "2025-01-07T08:00"}]"#
            ])
        ]),
        "users[0].tasks[0].occurrences[0].end", "must be after start"),
    .init(
        "skipped occurrence with a new time",
        document(tasks: [
            series([
                "occurrences":
                    #"[{"date": "2025-01-07", "state": "skipped", "start": "2025-01-07T09:00", "end": "2025-01-07T10:00"}]"#
            ])
        ]),
        "users[0].tasks[0].occurrences[0].start", "a skipped occurrence has no new time"),
    .init(
        "slide of zero days", document(tasks: [series(["slides": #"[{"from": "2025-01-10", "days": 0}]"#])]),
        "users[0].tasks[0].slides[0].days", "non-zero"),
    .init(
        "slide given in text", document(tasks: [series(["slides": #"[{"from": "2025-01-10", "days": "1"}]"#])]),
        "users[0].tasks[0].slides[0].days", "expected a whole number, got a string"),
    .init(
        "two slides from one date",
        document(tasks: [series(["slides": #"[{"from": "2025-01-10", "days": 1}, {"from": "2025-01-10", "days": 2}]"#])]
        ),
        "users[0].tasks[0].slides[1].from", "appears twice"),
    // Focus sessions
    .init(
        "focus session of zero minutes",
        document(user: #", "focusSessions": [{"category": "English", "start": "2025-01-06T10:00", "minutes": 0}]"#),
        "users[0].focusSessions[0].minutes", "between 1 and 1440"),
    .init(
        "focus session without a category",
        document(
            user: #", "focusSessions": [{"category": "Uncategorized", "start": "2025-01-06T10:00", "minutes": 5}]"#),
        "users[0].focusSessions[0].category", "not a specific category"),
    // Unknown keys at every level
    .init("unknown top-level key", #"{"format": "replan/1", "users": [], "version": 2}"#, "version", "unknown key"),
    .init("unknown user key", document(user: #", "nickname": "M""#), "users[0].nickname", "unknown key"),
    .init(
        "unknown settings key", settings(#"{"sessionMinute": 45}"#), "users[0].settings.sessionMinute", "unknown key"),
    .init(
        "unknown weekday in windows", settings(#"{"windows": {"monday": ["09:00-12:00"]}}"#),
        "users[0].settings.windows.monday", "unknown key"),
    .init(
        "unknown task key", document(tasks: [task(["colour": #""red""#])]), "users[0].tasks[0].colour", "unknown key"),
    .init(
        "unknown repeat key", document(tasks: [series(["repeat": #"{"every": "daily", "count": 5}"#])]),
        "users[0].tasks[0].repeat.count", "unknown key"),
    .init(
        "unknown occurrence key",
        document(tasks: [series(["occurrences": #"[{"date": "2025-01-07", "state": "skipped", "why": "ill"}]"#])]),
        "users[0].tasks[0].occurrences[0].why", "unknown key"),
    .init(
        "unknown slide key", document(tasks: [series(["slides": #"[{"from": "2025-01-10", "days": 1, "weeks": 1}]"#])]),
        "users[0].tasks[0].slides[0].weeks", "unknown key"),
    .init(
        "unknown subtask key", document(tasks: [task(["subtasks": #"[{"title": "a", "checked": true}]"#])]),
        "users[0].tasks[0].subtasks[0].checked", "unknown key"),
    .init(
        "unknown focus session key",
        document(
            user:
                #", "focusSessions": [{"category": "English", "start": "2025-01-06T10:00", "minutes": 5, "app": "x"}]"#),
        "users[0].focusSessions[0].app", "unknown key"),
    // JSON text
    .init(
        "duplicate key in the JSON text", "{\"format\": \"replan/1\",\n \"format\": \"replan/1\"}", "",
        "invalid JSON at line 2, column 22: duplicate key 'format'"),
    .init("invalid JSON", "{\n  \"format\": \"replan/1\",\n  \"users\": [,]\n}", "", "invalid JSON at line 3"),
    .init(
        "truncated JSON", "{\"format\": \"replan/1\",\n\"users\": [", "",
        "invalid JSON at line 2, column 11: unexpected end of input"),
]

@Suite("ReplanDocumentDecoder")
struct ReplanDocumentDecoderTests {
    @Test("the example document of docs/data-format.md §3.1 decodes to what it says")
    func dataMDExampleDecodes() throws {
        let doc = try decode(dataMDExample)
        try #require(doc.entries.count == 1)
        let entry = doc.entries[0]
        let mei = entry.user
        #expect(mei.id == "mei")
        #expect(mei.zone.identifier == "Asia/Taipei")
        #expect(mei.language == "zh-TW")
        #expect(mei.displayName == nil)

        let s = mei.settings
        #expect(s.windows.windows(on: .mon).map(\.description) == ["09:00-12:00", "14:00-17:00"])
        #expect(s.windows.windows(on: .tue).map(\.description) == ["09:00-17:00"])
        for day in [Weekday.wed, .thu, .fri, .sat, .sun] { #expect(s.windows.windows(on: day).isEmpty, "\(day)") }
        #expect(s.windowsEnabled && s.sessionMinutesEnabled && s.autoUpdate && s.notificationsEnabled)
        #expect(s.sessionMinutes == 60)
        #expect(s.tone == "沉著穩重的專家")
        #expect(s.instruction == "每天安排兩小時英文")
        #expect(s.reminderMinutes == 10)
        // Not in the example: the defaults.
        #expect(s.deleteAfterDays == 7 && s.horizonDays == 14 && s.keepCategories.isEmpty && !s.splitSessions)

        #expect(
            entry.tasks == [
                StudyTask(
                    id: "eng-1", userID: "mei", title: "English reading", note: "Unit 3", category: "English",
                    color: .green, start: at("2025-01-06T10:00"), end: at("2025-01-06T11:00"), allDay: false,
                    completed: false, subtasks: [Subtask(title: "vocabulary list", done: true)],
                    repeatRule: RepeatRule(every: .daily, until: date("2025-01-31")),
                    createdAt: importTime, updatedAt: importTime, version: 1)
            ])
        #expect(
            entry.overrides == [
                OccurrenceOverride(taskID: "eng-1", originalDate: date("2025-01-06"), state: .completed),
                OccurrenceOverride(
                    taskID: "eng-1", originalDate: date("2025-01-08"), state: .open,
                    start: at("2025-01-08T15:00"), end: at("2025-01-08T16:00")),
                OccurrenceOverride(taskID: "eng-1", originalDate: date("2025-01-09"), state: .skipped),
            ])
        #expect(entry.slides == [SeriesSlide(taskID: "eng-1", from: date("2025-01-10"), days: 1)])
        #expect(entry.focusSessions == [FocusSession(category: "English", start: at("2025-01-06T10:00"), minutes: 55)])

        // And the plan it makes: 1/6 done, 1/8 moved to the afternoon, 1/9 skipped, from 1/10 a day later.
        let plan = UserPlan(user: mei, tasks: entry.tasks, overrides: entry.overrides, slides: entry.slides)
        let week = plan.occurrences(from: date("2025-01-06"), through: date("2025-01-12"))
            .map { "\($0.id) \($0.start)–\($0.end.time) \($0.state)" }
        #expect(
            week == [
                "eng-1@2025-01-06 2025-01-06T10:00–11:00 completed",
                "eng-1@2025-01-07 2025-01-07T10:00–11:00 open",
                "eng-1@2025-01-08 2025-01-08T15:00–16:00 open",
                "eng-1@2025-01-09 2025-01-09T10:00–11:00 skipped",
                "eng-1@2025-01-10 2025-01-11T10:00–11:00 open",
                "eng-1@2025-01-11 2025-01-12T10:00–11:00 open",
            ])
    }

    @Test("a refused document names the JSON path of the problem", arguments: refusedDocuments)
    func refused(_ c: RefusedReplanDocument) {
        let error = failure(c.json)
        #expect(error?.path == c.path, "\(error.map(String.init(describing:)) ?? "decoded without error")")
        #expect(
            error?.message.contains(c.says) == true, "\(error.map(String.init(describing:)) ?? "decoded without error")"
        )
    }

    @Test("repeat.missed sets a series' policy; omitted, the series takes its kind's default (docs/planning.md §4)")
    func missedPolicy() throws {
        let explicit = try decode(
            document(tasks: [series(["repeat": #"{"every": "daily", "until": "2025-01-31", "missed": "skip"}"#])]))
        #expect(explicit.entries[0].tasks[0].repeatRule?.missed == .skip)
        #expect(explicit.entries[0].tasks[0].repeatRule?.effectiveMissed == .skip)
        let omitted = try decode(document(tasks: [series()]))
        #expect(omitted.entries[0].tasks[0].repeatRule?.missed == nil)
        #expect(omitted.entries[0].tasks[0].repeatRule?.effectiveMissed == .shift)
        // Written back only when it differs from the default.
        #expect(explicit.json.text.contains(#""missed":"skip""#))
        #expect(!omitted.json.text.contains("missed"))
        let defaultSpelledOut = try decode(
            document(tasks: [series(["repeat": #"{"every": "daily", "until": "2025-01-31", "missed": "shift"}"#])]))
        #expect(!defaultSpelledOut.json.text.contains("missed"))
    }

    @Test("a document without users is empty, and one user without anything takes every default")
    func defaults() throws {
        #expect(try decode(#"{"format": "replan/1"}"#).entries.isEmpty)
        let doc = try decode(#"{"format": "replan/1", "users": [{"id": "kai", "timeZone": "Europe/Berlin"}]}"#)
        let entry = try #require(doc.entries.first)
        #expect(entry.user.language == "en")
        #expect(entry.user.settings == UserSettings())
        #expect(entry.user.settings.windows == .standard)
        #expect(entry.tasks.isEmpty && entry.overrides.isEmpty && entry.slides.isEmpty && entry.focusSessions.isEmpty)
    }

    @Test("omitted settings take the defaults, given ones replace them")
    func partialSettings() throws {
        let doc = try decode(settings(#"{"tone": "cheerful", "horizonDays": 21}"#))
        var expected = UserSettings()
        expected.tone = "cheerful"
        expected.horizonDays = 21
        #expect(doc.entries[0].user.settings == expected)
    }

    @Test("the morning time is read, and a time that is not HH:MM is refused under its path")
    func morningTime() throws {
        let doc = try decode(settings(#"{"morningTime": "06:45"}"#))
        #expect(doc.entries[0].user.settings.morningTime == TimeOfDay(hour: 6, minute: 45))
        #expect(try decode(settings("{}")).entries[0].user.settings.morningTime == UserSettings.defaultMorningTime)
        let error = failure(settings(#"{"morningTime": "7h"}"#))
        #expect(error?.path == "users[0].settings.morningTime", "\(String(describing: error))")
    }

    @Test("a placeholder category to keep is refused under its settings path")
    func placeholderKeptCategory() {
        let error = failure(settings(#"{"keepCategories": ["English", "未分類"]}"#))
        // UserSettings.validate reports `keepCategories[1].category` (TaskRules names its field
        // `category`); the element path is what matters here.
        #expect(error?.path.hasPrefix("users[0].settings.keepCategories[1]") == true, "\(String(describing: error))")
        #expect(error?.message.contains("not a specific category") == true)
    }

    @Test("every setting is read")
    func everySetting() throws {
        let doc = try decode(
            settings(
                #"""
                {"windows": {"sat": ["08:00-10:00", "20:00-24:00"], "sun": []}, "windowsEnabled": false,
                 "sessionMinutes": 45, "sessionMinutesEnabled": false, "tone": "strict", "instruction": "more maths",
                 "autoUpdate": false, "notificationsEnabled": true, "reminderMinutes": 30, "deleteAfterDays": 0,
                 "horizonDays": 90, "keepCategories": ["Maths", "Art"], "splitSessions": true}
                """#))
        let s = doc.entries[0].user.settings
        #expect(s.windows.windows(on: .sat).map(\.description) == ["08:00-10:00", "20:00-24:00"])
        #expect(s.windows.windows(on: .mon).isEmpty && s.windows.windows(on: .sun).isEmpty)
        #expect(!s.windowsEnabled && s.sessionMinutes == 45 && !s.sessionMinutesEnabled && s.tone == "strict")
        #expect(s.instruction == "more maths" && !s.autoUpdate && s.notificationsEnabled && s.reminderMinutes == 30)
        #expect(
            s.deleteAfterDays == 0 && s.horizonDays == 90 && s.keepCategories == ["Maths", "Art"] && s.splitSessions)
    }

    @Test(
        "date-times with an offset are converted into the user's zone",
        arguments: [
            ("Asia/Taipei", "2025-01-06T10:00+08:00", "2025-01-06T10:00"),
            ("Asia/Taipei", "2025-01-06T02:00Z", "2025-01-06T10:00"),
            ("Asia/Taipei", "2025-01-06T02:00:00Z", "2025-01-06T10:00"),
            ("Asia/Taipei", "2025-01-05T21:00-05:00", "2025-01-06T10:00"),
            ("America/New_York", "2025-01-06T10:00+08:00", "2025-01-05T21:00"),
            ("America/New_York", "2025-07-06T10:00Z", "2025-07-06T06:00"), // EDT
            ("UTC", "2025-01-06T10:00+05:30", "2025-01-06T04:30"),
        ])
    func offsets(zone: String, start: String, local: String) throws {
        let end = at(local).adding(minutes: 60).description
        let doc = try decode(document(tasks: [task(["start": "\"\(start)\"", "end": "\"\(end)\""])], zone: zone))
        #expect(doc.entries[0].tasks[0].start == at(local))
    }

    @Test("an offset is converted for moved occurrences and focus sessions too")
    func offsetsEverywhere() throws {
        let doc = try decode(
            document(
                tasks: [
                    series([
                        "occurrences":
                            #"[{"date": "2025-01-07", "state": "moved", "start": "2025-01-07T01:00Z", "end": "2025-01-07T01:30Z"}]"#
                    ])
                ],
                user: #", "focusSessions": [{"category": "English", "start": "2025-01-06T12:00Z", "minutes": 25}]"#))
        #expect(doc.entries[0].overrides[0].start == at("2025-01-07T09:00"))
        #expect(doc.entries[0].overrides[0].end == at("2025-01-07T09:30"))
        #expect(doc.entries[0].focusSessions[0].start == at("2025-01-06T20:00"))
    }

    @Test("date-times may carry zero seconds, with or without an offset, but no others")
    func zeroSeconds() throws {
        let doc = try decode(
            document(tasks: [task(["start": #""2025-01-06T10:00:00""#, "end": #""2025-01-06T03:00:00Z""#])]))
        #expect(doc.entries[0].tasks[0].start == at("2025-01-06T10:00"))
        #expect(doc.entries[0].tasks[0].end == at("2025-01-06T11:00"))
        #expect(
            failure(document(tasks: [task(["start": #""2025-01-06T10:00:30""#])]))?.path == "users[0].tasks[0].start")
        #expect(
            failure(document(tasks: [task(["start": #""2025-01-06T02:00:30Z""#])]))?.path == "users[0].tasks[0].start")
        #expect(
            failure(document(tasks: [task(["start": #""2025-01-06T10:00:59+08:00""#])]))?.path
                == "users[0].tasks[0].start")
    }

    @Test("all-day tasks are given as dates; the last day is inclusive, so one day has end = start")
    func allDayDates() throws {
        let doc = try decode(
            document(tasks: [
                task(["id": #""trip""#, "allDay": "true", "start": #""2025-01-06""#, "end": #""2025-01-08""#]),
                task(["id": #""exam""#, "allDay": "true", "start": #""2025-01-10""#, "end": #""2025-01-10""#]),
                task([
                    "id": #""fair""#, "allDay": "true", "start": #""2025-01-11T00:00""#, "end": #""2025-01-11T00:00""#,
                ]),
            ]))
        let tasks = doc.entries[0].tasks
        #expect(tasks.map(\.allDay) == [true, true, true])
        #expect(tasks[0].start == at("2025-01-06T00:00") && tasks[0].end == at("2025-01-08T00:00"))
        #expect(tasks[1].start == at("2025-01-10T00:00") && tasks[1].end == tasks[1].start)
        #expect(tasks[2].start == at("2025-01-11T00:00"))
    }

    @Test("all-day moved occurrences are given as dates")
    func allDayOverride() throws {
        let doc = try decode(
            document(tasks: [
                series([
                    "allDay": "true", "start": #""2025-01-06""#, "end": #""2025-01-06""#,
                    "occurrences":
                        #"[{"date": "2025-01-07", "state": "moved", "start": "2025-01-09", "end": "2025-01-09"}]"#,
                ])
            ]))
        #expect(
            doc.entries[0].overrides == [
                OccurrenceOverride(
                    taskID: "vocab", originalDate: date("2025-01-07"), state: .open,
                    start: at("2025-01-09T00:00"), end: at("2025-01-09T00:00"))
            ])
    }

    @Test(
        "colours: names in any case, the original app's RGBA strings, green when omitted",
        arguments: [
            (#""red""#, TaskColor.red), (#""Yellow""#, .yellow), (#""BLUE""#, .blue),
            (#""0.7,0.16,0.13,0.4""#, .red), (#""0.85,0.65,0.13,0.4""#, .yellow),
            (#""0.2,0.6,0.3,0.4""#, .green), (#""0.2,0.4,0.75,0.4""#, .blue),
            (#""0.69, 0.17, 0.12, 1""#, .red), // drifted rounding and spaces
        ])
    func colours(json: String, expected: TaskColor) throws {
        #expect(try decode(document(tasks: [task(["color": json])])).entries[0].tasks[0].color == expected)
    }

    @Test("a task without a colour is green")
    func defaultColour() throws {
        #expect(try decode(document(tasks: [task()])).entries[0].tasks[0].color == .green)
    }

    @Test("repeat every none, or no repeat, means a one-off task")
    func repeatNone() throws {
        let doc = try decode(
            document(tasks: [
                task(["id": #""a""#, "repeat": #"{"every": "none"}"#]),
                task(["id": #""b""#]),
                task(["id": #""c""#, "repeat": #"{"every": "monthly"}"#]),
            ]))
        #expect(doc.entries[0].tasks.map(\.repeatRule) == [nil, nil, RepeatRule(every: .monthly)])
    }

    @Test("a one-off task gets the import time, version 1, its owner and the defaults of omitted fields")
    func taskDefaults() throws {
        let t = try decode(document(tasks: [task()])).entries[0].tasks[0]
        #expect(
            t
                == StudyTask(
                    id: "essay", userID: "mei", title: "Essay", note: "", category: "Writing", color: .green,
                    start: at("2025-01-06T10:00"), end: at("2025-01-06T11:00"), allDay: false, completed: false,
                    subtasks: [], repeatRule: nil, createdAt: importTime, updatedAt: importTime, version: 1))
    }

    @Test("titles, categories and subtask titles are trimmed")
    func trimming() throws {
        let t = try decode(
            document(tasks: [
                task([
                    "title": #""  Essay\n""#, "category": #""\u3000Writing ""#,
                    "subtasks": #"[{"title": " outline "}]"#,
                ])
            ])
        ).entries[0].tasks[0]
        #expect(t.title == "Essay" && t.category == "Writing")
        #expect(t.subtasks == [Subtask(title: "outline", done: false)])
    }

    @Test("a title of exactly 200 characters is accepted")
    func title200() throws {
        let title = String(repeating: "字", count: 200)
        #expect(try decode(document(tasks: [task(["title": "\"\(title)\""])])).entries[0].tasks[0].title == title)
    }

    @Test("id-less tasks get stable ids: the same document twice gives the same ids")
    func stableIDs() throws {
        let text = document(tasks: [
            task(["id": nil]), task(["id": nil, "title": #""Essay 2""#]),
            task(["id": nil, "start": #""2025-01-06T12:00""#, "end": #""2025-01-06T13:00""#]),
        ])
        let first = try decode(text).entries[0].tasks.map(\.id)
        let second = try ReplanDocumentDecoder(now: Date(timeIntervalSince1970: 0)).decode(Data(text.utf8)).entries[0]
            .tasks.map(\.id)
        #expect(first == second)
        #expect(Set(first).count == 3)
        for id in first {
            #expect(id.hasPrefix("imp-"))
            #expect(throws: Never.self) { try TaskRules.validateID(id) }
        }
    }

    @Test("stable ids are FNV-1a of the parts in base 32, the same on every machine; part boundaries count")
    func stableIDValues() throws {
        // Reference values computed independently (Python) from the algorithm's definition.
        #expect(StableID.make(prefix: "imp", parts: ["mei", "0", "Essay", "2025-01-06T10:00"]) == "imp-t6xp9ffrex")
        #expect(StableID.make(prefix: "imp", parts: ["ab", "c"]) == "imp-151yy3y5v8")
        #expect(StableID.make(prefix: "imp", parts: ["a", "bc"]) == "imp-bx5mjd07nd")
        #expect(StableID.make(prefix: "x", parts: []) == "x-5s8422jwwm")
        // The id a document's first id-less task gets is that of its user, place, title and start.
        let t = try decode(document(tasks: [task(["id": nil])])).entries[0].tasks[0]
        #expect(t.id == StableID.make(prefix: "imp", parts: ["mei", "0", "Essay", "2025-01-06T10:00"]))
    }

    @Test("an id-less series gets its overrides and slides under its generated id")
    func stableIDOfSeries() throws {
        let entry = try decode(
            document(tasks: [
                series([
                    "id": nil, "occurrences": #"[{"date": "2025-01-07", "state": "completed"}]"#,
                    "slides": #"[{"from": "2025-01-08", "days": 2}]"#,
                ])
            ])
        ).entries[0]
        #expect(entry.overrides.map(\.taskID) == [entry.tasks[0].id])
        #expect(entry.slides.map(\.taskID) == [entry.tasks[0].id])
    }

    @Test("a moved occurrence may also be completed; slides may be negative")
    func movedAndCompleted() throws {
        let entry = try decode(
            document(tasks: [
                series([
                    "occurrences":
                        #"[{"date": "2025-01-07", "state": "completed", "start": "2025-01-07T08:00", "end": "2025-01-07T08:30"}]"#,
                    "slides": #"[{"from": "2025-01-20", "days": 2}, {"from": "2025-01-08", "days": -1}]"#,
                ])
            ])
        ).entries[0]
        #expect(
            entry.overrides == [
                OccurrenceOverride(
                    taskID: "vocab", originalDate: date("2025-01-07"), state: .completed,
                    start: at("2025-01-07T08:00"), end: at("2025-01-07T08:30"))
            ])
        #expect(
            entry.slides == [
                SeriesSlide(taskID: "vocab", from: date("2025-01-20"), days: 2),
                SeriesSlide(taskID: "vocab", from: date("2025-01-08"), days: -1),
            ])
    }

    @Test("several users, each with their own zone and tasks")
    func severalUsers() throws {
        let doc = try decode(
            #"""
            {"format": "replan/1", "users": [
              {"id": "mei", "timeZone": "Asia/Taipei", "tasks": [\#(task())]},
              {"id": "kai", "timeZone": "Europe/Berlin", "displayName": "Kai", "tasks": [\#(task(["id": #""k1""#]))]}]}
            """#)
        #expect(doc.entries.map(\.user.id) == ["mei", "kai"])
        #expect(doc.entries[1].user.displayName == "Kai")
        #expect(doc.entries[1].tasks.map(\.userID) == ["kai"])
    }

    @Test("null means absent: an optional field takes its default, a required one is missing")
    func nullIsAbsent() throws {
        let entry = try decode(
            document(
                tasks: [task(["note": "null", "color": "null", "repeat": "null", "subtasks": "null"])],
                user: #", "displayName": null, "language": null, "settings": null"#)
        ).entries[0]
        let t = entry.tasks[0]
        #expect(t.note == "" && t.color == .green && t.repeatRule == nil && t.subtasks.isEmpty)
        #expect(entry.user.displayName == nil && entry.user.language == "en" && entry.user.settings == UserSettings())
        let error = failure(document(tasks: [task(["title": "null"])]))
        #expect(error == DataError(path: "users[0].tasks[0].title", message: "is required"))
    }
}
