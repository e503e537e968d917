import Foundation
import JSON
import Planning

/// Validates and decodes a `replan/1` document completely before anything is written: the
/// first problem is reported with its JSON path.
package struct ReplanDocumentDecoder: Sendable {
    /// Timestamp given to imported tasks (the document has no created/updated times).
    package let now: Date

    package init(now: Date) { self.now = now }

    package func decode(_ data: Data) throws(DataError) -> ReplanDocument {
        let root: JSONValue
        do { root = try JSONValue(parsing: data) } catch { throw DataError(error) }
        return try decode(root)
    }

    package func decode(_ root: JSONValue) throws(DataError) -> ReplanDocument {
        let doc = try JSONObjectReader(root, path: "")
        try doc.rejectUnknownKeys(["format", "users"])
        let format = try doc.string("format")
        guard format == ReplanDocument.format else {
            throw DataError(
                path: "format", message: "unsupported format '\(format)' (expected '\(ReplanDocument.format)')")
        }
        let users = try doc.optionalArray("users") ?? []
        var entries: [ReplanDocument.Entry] = []
        var userIDs: Set<String> = []
        var taskIDs: Set<String> = []
        for (i, u) in users.enumerated() {
            let path = "users[\(i)]"
            let entry = try decodeUser(u, path: path)
            guard userIDs.insert(entry.user.id).inserted else {
                throw DataError(path: "\(path).id", message: "user '\(entry.user.id)' appears twice in the document")
            }
            for (j, t) in entry.tasks.enumerated() where !taskIDs.insert(t.id).inserted {
                throw DataError(
                    path: "\(path).tasks[\(j)].id", message: "task id '\(t.id)' appears twice in the document")
            }
            entries.append(entry)
        }
        return ReplanDocument(entries: entries)
    }

    private func decodeUser(_ value: JSONValue, path: String) throws(DataError) -> ReplanDocument.Entry {
        let r = try JSONObjectReader(value, path: path)
        try r.rejectUnknownKeys(["id", "timeZone", "language", "displayName", "settings", "tasks", "focusSessions"])
        let id = try r.string("id")
        do { try User.validateID(id) } catch { throw error.under(path) }
        let zone: UserZone
        do { zone = try UserZone(identifier: try r.string("timeZone")) } catch {
            throw DataError(path: r.child("timeZone"), message: error.message)
        }
        let language = try r.optionalString("language") ?? "en"
        do { try User.validateLanguage(language) } catch { throw error.under(path) }
        let displayName = try r.optionalString("displayName")
        let settings = try r.optionalObject("settings").map(decodeSettings) ?? UserSettings()
        let user: User
        do {
            user = try User(id: id, zone: zone, language: language, displayName: displayName, settings: settings)
        } catch { throw error.under(path) }

        var tasks: [StudyTask] = []
        var overrides: [OccurrenceOverride] = []
        var slides: [SeriesSlide] = []
        for (j, t) in (try r.optionalArray("tasks") ?? []).enumerated() {
            let decoded = try decodeTask(t, path: r.child("tasks[\(j)]"), user: user, index: j)
            tasks.append(decoded.task)
            overrides += decoded.overrides
            slides += decoded.slides
        }
        var focus: [FocusSession] = []
        for (j, f) in (try r.optionalArray("focusSessions") ?? []).enumerated() {
            let fr = try JSONObjectReader(f, path: r.child("focusSessions[\(j)]"))
            try fr.rejectUnknownKeys(["category", "start", "minutes"])
            let category = try fr.string("category")
            do { try TaskRules.validateCategory(category) } catch { throw error.under(fr.path) }
            let minutes = try fr.int("minutes")
            guard (1...1440).contains(minutes) else {
                throw DataError(path: fr.child("minutes"), message: "must be between 1 and 1440, got \(minutes)")
            }
            focus.append(
                FocusSession(
                    category: category.trimmingWhitespace(),
                    start: try fr.dateTime("start", zone: zone, allowDate: false), minutes: minutes))
        }
        return ReplanDocument.Entry(
            user: user, tasks: tasks, overrides: overrides, slides: slides, focusSessions: focus)
    }

    private func decodeSettings(_ r: JSONObjectReader) throws(DataError) -> UserSettings {
        try r.rejectUnknownKeys([
            "windows", "windowsEnabled", "sessionMinutes", "sessionMinutesEnabled", "tone", "instruction",
            "autoUpdate", "notificationsEnabled", "reminderMinutes", "deleteAfterDays", "horizonDays",
            "keepCategories", "splitSessions", "morningTime",
        ])
        var s = UserSettings()
        if let w = try r.optionalObject("windows") {
            try w.rejectUnknownKeys(Set(Weekday.allCases.map(\.rawValue)))
            var text: [Weekday: [String]] = [:]
            for day in Weekday.allCases {
                guard let list = try w.optionalArray(day.rawValue) else { continue }
                text[day] = try list.enumerated().map { (k, v) throws(DataError) -> String in
                    guard let s = v.stringValue else {
                        throw DataError(
                            path: w.child("\(day.rawValue)[\(k)]"), message: "expected a string, got \(v.typeName)")
                    }
                    return s
                }
            }
            do { s.windows = try WeeklyWindows(text: text) } catch { throw error.under(w.path) }
        }
        s.windowsEnabled = try r.optionalBool("windowsEnabled") ?? s.windowsEnabled
        s.sessionMinutes = try r.optionalInt("sessionMinutes") ?? s.sessionMinutes
        s.sessionMinutesEnabled = try r.optionalBool("sessionMinutesEnabled") ?? s.sessionMinutesEnabled
        s.tone = try r.optionalString("tone") ?? s.tone
        s.instruction = try r.optionalString("instruction") ?? s.instruction
        s.autoUpdate = try r.optionalBool("autoUpdate") ?? s.autoUpdate
        s.notificationsEnabled = try r.optionalBool("notificationsEnabled") ?? s.notificationsEnabled
        s.reminderMinutes = try r.optionalInt("reminderMinutes") ?? s.reminderMinutes
        s.deleteAfterDays = try r.optionalInt("deleteAfterDays") ?? s.deleteAfterDays
        s.horizonDays = try r.optionalInt("horizonDays") ?? s.horizonDays
        if let keep = try r.optionalArray("keepCategories") {
            s.keepCategories = try keep.enumerated().map { (k, v) throws(DataError) -> String in
                guard let c = v.stringValue else {
                    throw DataError(
                        path: r.child("keepCategories[\(k)]"), message: "expected a string, got \(v.typeName)")
                }
                return c
            }
        }
        s.splitSessions = try r.optionalBool("splitSessions") ?? s.splitSessions
        if let text = try r.optionalString("morningTime") {
            guard let time = TimeOfDay(text) else {
                throw DataError(path: r.child("morningTime"), message: "must be a time HH:MM, got '\(text)'")
            }
            s.morningTime = time
        }
        do { try s.validate() } catch { throw error.under(r.path) }
        return s
    }

    private func decodeTask(_ value: JSONValue, path: String, user: User, index: Int) throws(DataError)
        -> (task: StudyTask, overrides: [OccurrenceOverride], slides: [SeriesSlide])
    {
        let r = try JSONObjectReader(value, path: path)
        try r.rejectUnknownKeys([
            "id", "title", "note", "category", "color", "start", "end", "allDay", "completed",
            "subtasks", "repeat", "occurrences", "slides",
        ])
        let allDay = try r.optionalBool("allDay") ?? false
        let start = try r.dateTime("start", zone: user.zone, allowDate: allDay)
        let end = try r.dateTime("end", zone: user.zone, allowDate: allDay)
        let title = try r.string("title")
        let category = try r.string("category")
        var color = TaskColor.green
        if let c = try r.optionalString("color") {
            guard let parsed = TaskColor(importing: c) else {
                throw DataError(
                    path: r.child("color"),
                    message: "'\(c)' is not red, yellow, green, blue or an RGBA string 'r,g,b,a'")
            }
            color = parsed
        }
        var subtasks: [Subtask] = []
        for (k, sv) in (try r.optionalArray("subtasks") ?? []).enumerated() {
            let sr = try JSONObjectReader(sv, path: r.child("subtasks[\(k)]"))
            try sr.rejectUnknownKeys(["title", "done"])
            subtasks.append(
                Subtask(title: try sr.string("title").trimmingWhitespace(), done: try sr.optionalBool("done") ?? false))
        }
        var rule: RepeatRule?
        if let rr = try r.optionalObject("repeat") {
            try rr.rejectUnknownKeys(["every", "until", "missed"])
            let every = try rr.string("every")
            if every != "none" {
                guard let f = RepeatRule.Frequency(rawValue: every) else {
                    throw DataError(
                        path: rr.child("every"), message: "'\(every)' is not none, daily, weekly or monthly")
                }
                var missed: RepeatRule.MissedPolicy?
                if let m = try rr.optionalString("missed") {
                    guard let policy = RepeatRule.MissedPolicy(rawValue: m) else {
                        throw DataError(path: rr.child("missed"), message: "'\(m)' is not shift, skip or make-up")
                    }
                    missed = policy
                }
                rule = RepeatRule(every: f, until: try rr.optionalDate("until"), missed: missed)
            }
        }
        // An id-less task gets an id derived from its place and content, so importing the same
        // document twice updates the same rows instead of duplicating them.
        let id =
            try r.optionalString("id")
            ?? StableID.make(prefix: "imp", parts: [user.id, String(index), title, start.description])
        let task = StudyTask(
            id: id, userID: user.id, title: title.trimmingWhitespace(), note: try r.optionalString("note") ?? "",
            category: category.trimmingWhitespace(), color: color, start: start, end: end, allDay: allDay,
            completed: try r.optionalBool("completed") ?? false, subtasks: subtasks, repeatRule: rule,
            createdAt: now, updatedAt: now, version: 1)
        do { try task.validate() } catch { throw error.under(path) }

        var overrides: [OccurrenceOverride] = []
        var slides: [SeriesSlide] = []
        let occurrenceList = try r.optionalArray("occurrences") ?? []
        let slideList = try r.optionalArray("slides") ?? []
        if rule == nil && !(occurrenceList.isEmpty && slideList.isEmpty) {
            throw DataError(
                path: r.child(occurrenceList.isEmpty ? "slides" : "occurrences"),
                message: "only a repeating task has occurrences and slides")
        }
        var seenDates: Set<CivilDate> = []
        for (k, ov) in occurrenceList.enumerated() {
            let orr = try JSONObjectReader(ov, path: r.child("occurrences[\(k)]"))
            try orr.rejectUnknownKeys(["date", "state", "start", "end"])
            let date = try orr.date("date")
            guard OccurrenceExpander.isRecurrenceDate(date, of: task) else {
                throw DataError(
                    path: orr.child("date"),
                    message: "\(date) is not an occurrence date of this \(rule!.every.rawValue) series")
            }
            guard seenDates.insert(date).inserted else {
                throw DataError(path: orr.child("date"), message: "\(date) appears twice")
            }
            let stateText = try orr.string("state")
            var state: OccurrenceState
            switch stateText {
            case "completed": state = .completed
            case "skipped": state = .skipped
            case "moved": state = .open
            default:
                throw DataError(path: orr.child("state"), message: "'\(stateText)' is not completed, skipped or moved")
            }
            var s: CivilDateTime?
            var e: CivilDateTime?
            if orr.has("start") || orr.has("end") || stateText == "moved" {
                let ms = try orr.dateTime("start", zone: user.zone, allowDate: allDay)
                let me = try orr.dateTime("end", zone: user.zone, allowDate: allDay)
                do { try TaskRules.validateTimes(start: ms, end: me, allDay: allDay) } catch {
                    throw error.under(orr.path)
                }
                s = ms
                e = me
            }
            if state == .skipped && s != nil {
                throw DataError(path: orr.child("start"), message: "a skipped occurrence has no new time")
            }
            overrides.append(OccurrenceOverride(taskID: id, originalDate: date, state: state, start: s, end: e))
        }
        var seenFrom: Set<CivilDate> = []
        for (k, sv) in slideList.enumerated() {
            let sr = try JSONObjectReader(sv, path: r.child("slides[\(k)]"))
            try sr.rejectUnknownKeys(["from", "days"])
            let from = try sr.date("from")
            let days = try sr.int("days")
            guard days != 0, abs(days) <= 3650 else {
                throw DataError(
                    path: sr.child("days"), message: "must be a non-zero number of days within ten years, got \(days)")
            }
            guard seenFrom.insert(from).inserted else {
                throw DataError(path: sr.child("from"), message: "\(from) appears twice")
            }
            slides.append(SeriesSlide(taskID: id, from: from, days: days))
        }
        return (task, overrides, slides)
    }
}
