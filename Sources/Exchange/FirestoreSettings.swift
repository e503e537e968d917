import Planning

/// The app's `studySettings/{uid}` and `settings/{uid}` documents as replan settings.
enum FirestoreSettings {
    /// The app's own defaults when a day's time is missing (its settings screen started every
    /// day at 09:00–17:00).
    static let appStart = (hour: 9, minute: 0), appEnd = (hour: 17, minute: 0)

    static func applyStudySettings(
        _ doc: FirestoreDocument, to s: inout UserSettings, report: inout FirestoreImportReport
    ) {
        if let v = doc["studyDuration"] {
            if let d = v.doubleValue, d.isFinite {
                let whole = d > 1e6 ? 240 : d < -1e6 ? 15 : Int(d.rounded())
                let clamped = min(max(whole, 15), 240)
                if Double(clamped) != d {
                    report.correct(
                        .adjusted, "\(doc.path).studyDuration",
                        "\(FirestoreText.number(d)) minutes is outside replan's 15–240 whole minutes; session length \(clamped)"
                    )
                }
                s.sessionMinutes = clamped
            } else {
                report.omit(
                    "\(doc.path).studyDuration",
                    "expected a number of minutes, got \(v.typeName); session length stays \(s.sessionMinutes)")
            }
        }
        if let b = bool(doc, "isStudyTimePreferenceEnabled", report: &report) { s.sessionMinutesEnabled = b }
        if let b = bool(doc, "isStudyDatePreferenceEnabled", report: &report) { s.windowsEnabled = b }
        if let v = doc["tone"] {
            if let t = v.stringValue {
                s.tone = FirestoreText.clean(t, limit: 500, trim: false, path: "\(doc.path).tone", report: &report)
            } else {
                report.omit("\(doc.path).tone", "expected a string, got \(v.typeName); replan's default tone is kept")
            }
        }

        // One window per selected weekday (1 = Monday … 7 = Sunday), the app's defaults for the
        // days it wrote no time for.
        var days: [Int] = [1, 2, 3, 4, 5]
        if let v = doc["selectedDays"] {
            if let list = v.arrayValue {
                days = []
                for (i, item) in list.enumerated() {
                    guard let d = item.intValue, (1...7).contains(d) else {
                        report.omit(
                            "\(doc.path).selectedDays[\(i)]",
                            "\(item.text.prefix(20)) is not a weekday 1 (Monday) … 7 (Sunday)")
                        continue
                    }
                    if !days.contains(d) { days.append(d) }
                }
            } else {
                report.omit(
                    "\(doc.path).selectedDays", "expected a list of weekdays, got \(v.typeName); Monday–Friday kept")
            }
        }
        var windows: [Weekday: [StudyWindow]] = [:]
        for d in days.sorted() {
            let day = Weekday.allCases[d - 1]
            let sh = part(doc, "dailyStartHours", day: d, range: 0...23, fallback: appStart.hour, report: &report)
            let sm = part(doc, "dailyStartMinutes", day: d, range: 0...59, fallback: appStart.minute, report: &report)
            let eh = part(doc, "dailyEndHours", day: d, range: 0...24, fallback: appEnd.hour, report: &report)
            var em = part(doc, "dailyEndMinutes", day: d, range: 0...59, fallback: appEnd.minute, report: &report)
            if eh == 24 && em != 0 {
                report.correct(
                    .adjusted, "\(doc.path).dailyEndMinutes.\(d)",
                    "24:\(em) is past the end of the day; the window ends at 24:00")
                em = 0
            }
            let start = TimeOfDay(hour: sh, minute: sm)
            let end = TimeOfDay(hour: eh, minute: em)
            guard let w = try? StudyWindow(start: start, end: end) else {
                report.omit(
                    "\(doc.path).dailyEndHours.\(d)",
                    "the \(day.rawValue) window \(start)–\(end) does not end after it starts; that day has no study window"
                )
                continue
            }
            windows[day] = [w]
        }
        if let w = try? WeeklyWindows(windows) { s.windows = w }
    }

    static func applyNotificationSettings(
        _ doc: FirestoreDocument, to s: inout UserSettings, report: inout FirestoreImportReport
    ) {
        if let key = FirestoreUnusedFields.notificationNames.first(where: {
            doc[$0] != nil
        }),
            let b = bool(doc, key, report: &report)
        {
            s.notificationsEnabled = b
        }
        guard let key = FirestoreUnusedFields.reminderNames.first(where: { doc[$0] != nil }) else {
            // Not silently: the student's lead may be under a name replan does not know (the
            // report lists every field it did not use).
            report.correct(
                .defaulted, doc.path,
                "no reminder lead (\(FirestoreUnusedFields.reminderNames.joined(separator: ", "))); the reminder is \(s.reminderMinutes) minutes before, replan's default"
            )
            return
        }
        let v = doc[key]!
        guard let d = v.doubleValue, d.isFinite else {
            report.omit(
                "\(doc.path).\(key)",
                "expected a number of minutes, got \(v.typeName); the reminder stays \(s.reminderMinutes) minutes before"
            )
            return
        }
        let allowed = UserSettings.allowedReminderMinutes
        let nearest = allowed.min { (abs(Double($0) - d), $0) < (abs(Double($1) - d), $1) }!
        if Double(nearest) != d {
            report.correct(
                .adjusted, "\(doc.path).\(key)",
                "\(FirestoreText.number(d)) is not one of replan's reminder leads 0, 5, 10, 15, 30, 60; \(nearest) minutes"
            )
        }
        s.reminderMinutes = nearest
    }

    private static func bool(_ doc: FirestoreDocument, _ key: String, report: inout FirestoreImportReport) -> Bool? {
        guard let v = doc[key] else { return nil }
        guard let b = v.boolValue else {
            report.omit("\(doc.path).\(key)", "expected true or false, got \(v.typeName); replan's default is kept")
            return nil
        }
        return b
    }

    /// One day's hour or minute from a map keyed by the day number as a string.
    private static func part(
        _ doc: FirestoreDocument, _ field: String, day: Int, range: ClosedRange<Int>, fallback: Int,
        report: inout FirestoreImportReport
    ) -> Int {
        guard let map = doc[field] else { return fallback }
        guard let object = map.objectValue else {
            report.omit(
                "\(doc.path).\(field)",
                "expected a map from day number to a number, got \(map.typeName); the app's default \(fallback) is used"
            )
            return fallback
        }
        guard let v = object[String(day)], v != .null else { return fallback }
        guard let n = v.intValue, range.contains(n) else {
            report.omit(
                "\(doc.path).\(field).\(day)",
                "\(v.text.prefix(20)) is not a whole number \(range.lowerBound)–\(range.upperBound); the app's default \(fallback) is used"
            )
            return fallback
        }
        return n
    }
}
