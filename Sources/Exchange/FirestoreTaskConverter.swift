import Foundation
import JSON
import Planning

/// One `tasks/{uid}/userTasks/{taskId}` document (with its instances) as a replan task.
///
/// Faithful to what the student saw, not to the app's bugs; each departure is reported:
/// - **All-day dates.** The app wrote all-day tasks as UTC instants, so the date part of what
///   it stored is a day early east of UTC (Taipei's midnight is 16:00Z the day before). The
///   date is the student's: the instant's date in their zone when it falls on their midnight,
///   else the UTC date when the app wrote a UTC midnight, else their local date.
/// - **Month-end series.** A monthly series on the 29th–31st skipped the months without that
///   day in the app; replan holds it on the last day of those months (docs/planning.md §1.2).
/// - **Tasks the app dropped.** The app silently dropped a task when one of the fields its
///   model required did not decode (every field of the issue's list except `note`,
///   `repeatEndDate` and `notificationOffset`). replan imports such a task with its default
///   for that field when title, start and end are readable, and leaves it out otherwise.
/// - **Instances.** The app stored up to 365 copies per series; replan generates the series
///   and keeps only what differs, so a completed instance becomes a completed occurrence and
///   any other instance adds nothing.
/// Times are whole minutes in replan: seconds and milliseconds of the stored instants go.
struct FirestoreTaskConverter {
    let user: User

    /// A task read from its document, before its category is settled (that needs the
    /// student's other tasks).
    struct Draft {
        var record: FirestoreTaskRecord
        var id: String
        var title: String
        var note: String
        var category: String?
        var color: TaskColor
        var allDay: Bool
        var completed: Bool
        var start: CivilDateTime
        var end: CivilDateTime
        var repeatRule: RepeatRule?
        var focusMinutes: Int
    }

    /// Fields the app's task model could not do without.
    static let appRequired = [
        "title", "color", "focusTime", "category", "isAllDay", "isCompleted", "repeatType",
        "startDate", "endDate", "createdAt", "userId", "notificationEnabled",
    ]

    func draft(_ record: FirestoreTaskRecord, report: inout FirestoreImportReport) -> Draft? {
        let doc = record.document
        var problems: [String] = [] // fields the app could not read: it dropped the task
        var defaults: [String] = [] // what replan put in their place
        func problem(_ field: String, _ why: String) { problems.append("\(field) (\(why))") }
        for field in Self.appRequired where doc[field] == nil { problem(field, "missing") }

        // What replan itself cannot do without.
        var fatal: [String] = []
        var title = ""
        if let v = doc["title"] {
            if let s = v.stringValue {
                title = FirestoreText.clean(s, limit: 200, trim: true, path: "\(doc.path).title", report: &report)
                if title.isEmpty { fatal.append("title is empty") }
            } else {
                problem("title", "got \(v.typeName)")
                fatal.append("title is not text")
            }
        } else {
            fatal.append("title is missing")
        }
        let startInstant = instant(doc, "startDate", &fatal, problem)
        let endInstant = instant(doc, "endDate", &fatal, problem)

        var allDay = false
        if let v = doc["isAllDay"] {
            if let b = v.boolValue {
                allDay = b
            } else {
                problem("isAllDay", "got \(v.typeName)")
                defaults.append("timed")
            }
        }
        var completed = false
        if let v = doc["isCompleted"] {
            if let b = v.boolValue {
                completed = b
            } else {
                problem("isCompleted", "got \(v.typeName)")
                defaults.append("not completed")
            }
        }
        var every: RepeatRule.Frequency?
        if let v = doc["repeatType"] {
            let text = v["type"]?.stringValue ?? v.stringValue
            if text == "none" {
                every = nil
            } else if let text, let f = RepeatRule.Frequency(rawValue: text) {
                every = f
            } else {
                problem("repeatType", "not none, daily, weekly or monthly")
                defaults.append("not repeating")
            }
        }
        var color = TaskColor.green
        if let v = doc["color"] {
            if let c = Self.color(v) {
                color = c
            } else {
                problem("color", "not an RGBA colour")
                defaults.append("colour green")
            }
        } else {
            defaults.append("colour green")
        }
        var focus = 0
        if let v = doc["focusTime"] {
            if let d = v.doubleValue, d.isFinite, d >= 0 {
                focus =
                    d > Double(FirestoreImporter.maxFocusMinutes) ? FirestoreImporter.maxFocusMinutes : Int(d.rounded())
            } else {
                problem("focusTime", "not a number of minutes")
                defaults.append("no focus minutes of its own")
            }
        }
        var category: String?
        if let v = doc["category"] {
            if let s = v.stringValue { category = s } else { problem("category", "got \(v.typeName)") }
        }
        var note = ""
        if let v = doc["note"] {
            if let s = v.stringValue {
                note = FirestoreText.clean(s, limit: 4000, trim: false, path: "\(doc.path).note", report: &report)
            } else {
                report.omit("\(doc.path).note", "expected text, got \(v.typeName); the note is left empty")
            }
        }
        // Fields replan does not keep (it stamps its own creation time, and the owner is the
        // document's place), read only to know whether the app could.
        if let v = doc["createdAt"], case .failure(let p) = FirestoreInstant.parse(v) {
            problem("createdAt", p.message)
        }
        if let v = doc["userId"], v.stringValue == nil { problem("userId", "got \(v.typeName)") }
        if let v = doc["notificationEnabled"], v.boolValue == nil {
            problem("notificationEnabled", "got \(v.typeName)")
        }

        guard fatal.isEmpty, let startInstant, let endInstant else {
            let also = problems.isEmpty ? "" : " (the app could not read it either and dropped it silently)"
            report.omit(doc.path, fatal.joined(separator: "; ") + also)
            return nil
        }

        // Times in the student's zone.
        var start: CivilDateTime
        var end: CivilDateTime
        if allDay {
            let first = Self.allDayDate(startInstant, zone: user.zone)
            var (last, lastAtMidnight) = Self.allDayDateAndMidnight(endInstant, zone: user.zone)
            // An end at a midnight after the first day is the exclusive end the calendar APIs
            // write; replan's all-day end is the last day itself.
            if lastAtMidnight && last > first { last = last.adding(days: -1) }
            if last < first {
                report.correct(
                    .adjusted, "\(doc.path).endDate",
                    "the last day \(last) is before the first day \(first); a one-day task")
                last = first
            }
            let utcDate = Self.utcCivil(startInstant).date
            if utcDate != first {
                report.correct(
                    .allDayDate, "\(doc.path).startDate",
                    "stored as \(Self.shown(doc["startDate"]!, startInstant)), whose UTC date is \(utcDate); the student's day in \(user.zone.identifier) is \(first)"
                )
            }
            start = CivilDateTime(date: first, time: TimeOfDay(minutes: 0))
            end = CivilDateTime(date: last, time: TimeOfDay(minutes: 0))
        } else {
            start = user.zone.civil(startInstant)
            end = user.zone.civil(endInstant)
            if end <= start {
                report.omit(
                    doc.path,
                    "endDate \(end) is not after startDate \(start) (in \(user.zone.identifier)); a session needs a length"
                )
                return nil
            }
            if end.minuteNumber - start.minuteNumber > 7 * 1440 {
                report.omit(
                    doc.path,
                    "the session lasts longer than 7 days (\(start) to \(end)); replan takes an all-day task for that")
                return nil
            }
        }

        var rule: RepeatRule?
        if let every {
            var until: CivilDate?
            if let v = doc["repeatEndDate"] {
                switch FirestoreInstant.parse(v) {
                // An end date, even of a timed series: read like an all-day date, so a UTC
                // midnight (how a date without a zone gets stored) keeps its date west of UTC.
                case .success(let d): until = Self.allDayDate(d, zone: user.zone)
                case .failure(let p):
                    report.omit("\(doc.path).repeatEndDate", "\(p.message); the series has no end")
                }
            }
            if let u = until, u < start.date {
                report.correct(
                    .adjusted, "\(doc.path).repeatEndDate",
                    "the series ends on \(u), before its first session on \(start.date); it keeps only that first session"
                )
                until = start.date
            }
            rule = RepeatRule(every: every, until: until)
            if completed {
                report.correct(
                    .adjusted, "\(doc.path).isCompleted",
                    "a series is completed per session in replan; the master's isCompleted is not taken (its completed instances are)"
                )
                completed = false
            }
            if every == .monthly && start.date.day >= 29 {
                report.correct(
                    .monthEnd, doc.path,
                    "the app repeated this monthly series only in months that have a day \(start.date.day); replan holds it on the last day of the shorter months (e.g. February)"
                )
            }
        }

        if !problems.isEmpty {
            let with =
                defaults.isEmpty ? "; imported as it stands" : "; imported with \(defaults.joined(separator: ", "))"
            report.correct(
                .droppedByApp, doc.path,
                "the app could not read \(problems.joined(separator: ", ")) and silently dropped this task\(with)")
        }

        var id = doc.id
        if (try? TaskRules.validateID(id)) == nil {
            id = StableID.make(prefix: "fs", parts: [user.id, doc.id])
            report.correct(
                .adjusted, doc.path,
                "the document id is no replan task id (letters, digits, _ - . only); the task's id is \(id)")
        }
        return Draft(
            record: record, id: id, title: title, note: note, category: category, color: color, allDay: allDay,
            completed: completed, start: start, end: end, repeatRule: rule, focusMinutes: focus)
    }

    /// The finished task and its completed occurrences.
    func finish(_ d: Draft, categories: FirestoreCategories, report: inout FirestoreImportReport)
        -> (task: StudyTask, overrides: [OccurrenceOverride])?
    {
        let doc = d.record.document
        let category = categories.resolve(d.category, title: d.title, path: "\(doc.path).category", report: &report)
        let task = StudyTask(
            id: d.id, userID: user.id, title: d.title, note: d.note, category: category, color: d.color,
            start: d.start, end: d.end, allDay: d.allDay, completed: d.completed, repeatRule: d.repeatRule)
        do { try task.validate() } catch {
            // Every rule is met above; this only guards against a rule added since.
            report.omit(doc.path, "\(error)")
            return nil
        }
        var overrides: [OccurrenceOverride] = []
        var seen: Set<CivilDate> = []
        for inst in d.record.instances {
            guard task.isSeries else {
                report.omit(inst.path, "the task does not repeat, so it has no instances")
                continue
            }
            if let p = inst["parentTaskId"], p.stringValue != doc.id {
                report.omit(inst.path, "parentTaskId \(p.text.prefix(40)) is not this task (\(doc.id))")
                continue
            }
            guard let done = inst["isCompleted"] else { continue }
            guard let isDone = done.boolValue else {
                report.omit("\(inst.path).isCompleted", "expected true or false, got \(done.typeName)")
                continue
            }
            guard isDone else { continue } // an open instance is what the series generates anyway
            guard let v = inst["date"] else {
                report.omit(inst.path, "a completed instance without a date")
                continue
            }
            let instant: Date
            switch FirestoreInstant.parse(v) {
            case .success(let i): instant = i
            case .failure(let p):
                report.omit("\(inst.path).date", p.message)
                continue
            }
            let date = d.allDay ? Self.allDayDate(instant, zone: user.zone) : user.zone.civil(instant).date
            guard OccurrenceExpander.isRecurrenceDate(date, of: task) else {
                report.omit(
                    "\(inst.path).date",
                    "\(date) is not a date of this \(d.repeatRule!.every.rawValue) series (from \(task.start.date)\(task.repeatRule?.until.map { " to \($0)" } ?? ""))"
                )
                continue
            }
            guard seen.insert(date).inserted else {
                report.omit(inst.path, "a second completed instance on \(date)")
                continue
            }
            overrides.append(OccurrenceOverride(taskID: task.id, originalDate: date, state: .completed))
        }
        return (task, overrides)
    }

    private func instant(
        _ doc: FirestoreDocument, _ field: String, _ fatal: inout [String], _ problem: (String, String) -> Void
    ) -> Date? {
        guard let v = doc[field] else {
            fatal.append("\(field) is missing")
            return nil
        }
        switch FirestoreInstant.parse(v) {
        case .success(let d): return d
        case .failure(let p):
            problem(field, p.message)
            fatal.append("\(field) \(p.message)")
            return nil
        }
    }

    /// `{red, green, blue, opacity}` fractions (or the RGBA text replan/1 accepts) as the
    /// nearest of the four colours.
    static func color(_ v: JSONValue) -> TaskColor? {
        if let s = v.stringValue { return TaskColor(importing: s) }
        guard let o = v.objectValue, let r = o["red"]?.doubleValue, let g = o["green"]?.doubleValue,
            let b = o["blue"]?.doubleValue,
            [r, g, b].allSatisfy({ $0.isFinite && (0...1).contains($0) })
        else { return nil }
        return TaskColor.nearest(red: r, green: g, blue: b)
    }

    static func utcCivil(_ instant: Date) -> CivilDateTime {
        CivilDateTime(minuteNumber: Int((instant.timeIntervalSince1970 / 60).rounded(.down)))
    }

    static func allDayDate(_ instant: Date, zone: UserZone) -> CivilDate {
        allDayDateAndMidnight(instant, zone: zone).0
    }

    /// The student's date of an all-day instant, and whether the instant is a midnight.
    static func allDayDateAndMidnight(_ instant: Date, zone: UserZone) -> (CivilDate, Bool) {
        let local = zone.civil(instant)
        if local.time.minutes == 0 { return (local.date, true) }
        let utc = utcCivil(instant)
        if utc.time.minutes == 0 { return (utc.date, true) }
        return (local.date, false)
    }

    /// How the export holds an instant, for messages.
    static func shown(_ v: JSONValue, _ instant: Date) -> String {
        if let s = v.stringValue { return s }
        return "a timestamp (\(Timestamp.text(instant)))"
    }
}
