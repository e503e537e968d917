import Foundation
import Planning

/// Turns the original app's Firestore export into a `replan/1` document and the report of
/// everything it corrected or could not take (issue 14).
///
/// The export holds no time zone (the app kept wall-clock times of the device's zone), so
/// every user gets one from the caller. Records are judged one at a time: a record replan
/// cannot take is left out and named in the report, never guessed at; the structure of the
/// export and the zones are checked before (`FirestoreExport`), and there an error stops
/// the whole import.
package struct FirestoreImporter: Sendable {
    /// What replaces an empty or `未分類` category when the student's own data has no better
    /// name (replan requires a specific category, docs/data-format.md §2.3): "other", in the app's language.
    package static let replacementCategory = "其他"
    /// The app was written for Traditional Chinese speakers and stores no language; replan's
    /// notes for these students are written in it.
    package static let language = "zh-TW"
    /// Focus minutes of the app's statistics become focus sessions dated from here when the
    /// student has no task to date them by (a fixed date, so a second import matches the first).
    static let focusAnchor = CivilDateTime(date: CivilDate(year: 2025, month: 1, day: 1)!, time: TimeOfDay(minutes: 0))
    /// More focus minutes than this per student (about 19 years of eight hours a day) is a
    /// corrupt counter, not study time. It also bounds what one student's records expand into
    /// (at most 2,084 day-long focus sessions): a 52 KB export of counters at the old cap per
    /// category became 2,084,000 rows (issue 28, item 11).
    static let maxFocusMinutes = 3_000_000

    package var defaultZone: UserZone?
    package var zones: [String: UserZone]

    package init(defaultZone: UserZone?, zones: [String: UserZone] = [:]) {
        self.defaultZone = defaultZone
        self.zones = zones
    }

    /// What one import produces.
    package struct Outcome: Sendable {
        package var document: ReplanDocument
        package var report: FirestoreImportReport
    }

    /// The users converted so far, the report so far, and where each task id came from
    /// (replan's task ids are global; Firestore's are unique only under their user).
    private var entries: [ReplanDocument.Entry] = []
    private var report = FirestoreImportReport()
    private var taskPaths: [String: String] = [:]

    /// Everything `add` has converted.
    package var outcome: Outcome { Outcome(document: ReplanDocument(entries: entries), report: report) }

    /// Converts one export (file) of users.
    package func convert(_ users: [FirestoreUserRecords]) throws(DataError) -> Outcome {
        var importer = self
        try importer.add(users)
        return importer.outcome
    }

    /// Converts users and keeps them, so an export in many files is converted file by file:
    /// each file's parsed tree is gone before the next is read, and only the (much smaller)
    /// converted users stay in memory.
    /// - Throws: a user without a zone (no `--time-zone` and not in the map), or a task id
    ///   that two users share.
    package mutating func add(_ users: [FirestoreUserRecords]) throws(DataError) {
        for records in users {
            let label = Self.label(of: records)
            guard let zone = zones[records.uid] ?? defaultZone else {
                throw DataError(
                    path: label,
                    message:
                        "no time zone for user '\(records.uid)' (the export holds none): give --time-zone, or add the user to the --time-zone-map file"
                )
            }
            do { try User.validateID(records.uid) } catch {
                report.omit(
                    label,
                    "user id '\(records.uid)' is not a replan user id (1–64 letters, digits or _ - . @); this user's data is not imported"
                )
                continue
            }
            // Static, so the call borrows nothing of `self` while `report` (part of it) is
            // passed inout: with `self` borrowed, every appended correction copied the whole
            // report, which made a large import quadratic (figures in docs/benchmark.md).
            FirestoreUnusedFields.list(records, report: &report)
            guard let entry = Self.convertUser(records, zone: zone, report: &report) else { continue }
            let prefix = records.source.map { "\($0):" } ?? ""
            for t in entry.tasks {
                let path = "\(prefix)tasks/\(records.uid)/userTasks/\(t.id)"
                if let other = taskPaths.updateValue(path, forKey: t.id) {
                    throw DataError(
                        path: path,
                        message: "task id '\(t.id)' is also the id of \(other); a replan task id belongs to one user")
                }
            }
            entries.append(entry)
        }
    }

    /// A path that names the user in messages: their first document.
    static func label(of r: FirestoreUserRecords) -> String {
        let prefix = r.source.map { "\($0):" } ?? ""
        if r.studySettings != nil { return "\(prefix)studySettings/\(r.uid)" }
        if r.settings != nil { return "\(prefix)settings/\(r.uid)" }
        if !r.tasks.isEmpty { return "\(prefix)tasks/\(r.uid)" }
        return "\(prefix)userStatistics/\(r.uid)"
    }

    private static func convertUser(
        _ records: FirestoreUserRecords, zone: UserZone, report: inout FirestoreImportReport
    ) -> ReplanDocument.Entry? {
        var settings = UserSettings()
        if let doc = records.studySettings { FirestoreSettings.applyStudySettings(doc, to: &settings, report: &report) }
        if let doc = records.settings {
            FirestoreSettings.applyNotificationSettings(doc, to: &settings, report: &report)
        }
        let user: User
        do { user = try User(id: records.uid, zone: zone, language: Self.language, settings: settings) } catch {
            report.omit(Self.label(of: records), "\(error); this user's data is not imported")
            return nil
        }

        let converter = FirestoreTaskConverter(user: user)
        var drafts: [FirestoreTaskConverter.Draft] = []
        for record in records.tasks {
            if let draft = converter.draft(record, report: &report) { drafts.append(draft) }
        }
        let categories = FirestoreCategories(drafts: drafts)
        var tasks: [StudyTask] = []
        var overrides: [OccurrenceOverride] = []
        var taskFocus: [String: Int] = [:]
        var taskFocusPaths: [String: [String]] = [:]
        for draft in drafts {
            guard let done = converter.finish(draft, categories: categories, report: &report) else { continue }
            tasks.append(done.task)
            overrides += done.overrides
            if draft.focusMinutes > 0 {
                taskFocus[done.task.category, default: 0] += draft.focusMinutes
                taskFocusPaths[done.task.category, default: []].append(draft.record.document.path)
            }
        }

        // Focus minutes: the app's statistics per category are what it showed the student; a
        // task's own focusTime counts only for a category that has no statistics document, so
        // no minute is counted twice.
        var focus: [String: Int] = [:]
        var order: [String] = []
        // The records each category's minutes came from, for the report.
        var sources: [String: [String]] = [:]
        for doc in records.statistics {
            guard let (category, minutes, path) = statistic(doc, categories: categories, report: &report) else {
                continue
            }
            if focus[category] == nil { order.append(category) }
            focus[category, default: 0] += minutes
            sources[category, default: []].append(path)
        }
        for category in taskFocus.keys.sorted() where focus[category] == nil {
            order.append(category)
            focus[category] = taskFocus[category]
            sources[category] = taskFocusPaths[category] ?? []
        }
        // The student's whole focus time is bounded, whatever the number of records.
        var left = Self.maxFocusMinutes
        for category in order {
            let wanted = focus[category]!
            let kept = min(wanted, left)
            left -= kept
            if kept < wanted {
                let from = sources[category] ?? []
                let path = from.first ?? Self.label(of: records)
                let more = from.count > 1 ? " (and \(from.count - 1) more record(s) of this category)" : ""
                report.correct(
                    .adjusted, path,
                    "\(wanted) focus minutes in '\(category)'\(more) would take this student past \(Self.maxFocusMinutes) focus minutes in all, the most replan keeps per student; kept \(kept)"
                )
            }
            focus[category] = kept
        }
        let anchor =
            tasks.map(\.start).min().map { CivilDateTime(date: $0.date, time: TimeOfDay(minutes: 0)) }
            ?? Self.focusAnchor
        var sessions: [FocusSession] = []
        for category in order {
            var left = focus[category]!
            var day = 0
            // replan records focus as sessions of at most a day; a total becomes consecutive
            // days from the anchor, the same days on every import.
            while left > 0 {
                let chunk = min(left, 1440)
                sessions.append(FocusSession(category: category, start: anchor.adding(days: day), minutes: chunk))
                left -= chunk
                day += 1
            }
        }
        return ReplanDocument.Entry(user: user, tasks: tasks, overrides: overrides, focusSessions: sessions)
    }

    /// One statistics document's category and focus minutes; counts are not taken (replan
    /// recounts them from the tasks every night).
    private static func statistic(
        _ doc: FirestoreDocument, categories: FirestoreCategories,
        report: inout FirestoreImportReport
    ) -> (String, Int, String)? {
        let keys = ["focusTime", "focusMinutes", "totalFocusTime", "totalFocusMinutes"]
        guard let key = keys.first(where: { doc[$0] != nil }) else { return nil }
        guard let value = doc[key]!.doubleValue, value.isFinite, value >= 0 else {
            report.omit(
                "\(doc.path).\(key)",
                "\(doc[key]!.typeName == "a number" ? "a negative number" : doc[key]!.typeName) is not a number of minutes; these focus minutes are not imported"
            )
            return nil
        }
        // No minutes, nothing to file: its category is not worth a correction either.
        guard value >= 0.5 else { return nil }
        var raw = doc.id
        if let c = doc["category"] {
            if let s = c.stringValue {
                raw = s
            } else {
                report.omit(
                    "\(doc.path).category", "expected a string, got \(c.typeName); these focus minutes are not imported"
                )
                return nil
            }
        }
        let category = categories.resolve(raw, title: nil, path: "\(doc.path).category", report: &report)
        var minutes = value > Double(Self.maxFocusMinutes) ? Self.maxFocusMinutes : Int(value.rounded())
        if value > Double(Self.maxFocusMinutes) {
            report.correct(
                .adjusted, "\(doc.path).\(key)",
                "\(FirestoreText.number(value)) focus minutes is more than replan keeps; kept \(Self.maxFocusMinutes)")
            minutes = Self.maxFocusMinutes
        }
        return minutes > 0 ? (category, minutes, doc.path) : nil
    }
}
