import JSON
import Planning

/// The `settings` table: how `UserSettings` maps to a row and back. Study windows are stored as
/// JSON text `{"mon":["09:00-12:00","14:00-17:00"]}` (days without windows omitted) and the
/// kept categories as a JSON array, both readable with sqlite3 at a shell.
enum SettingsTable {
    static let names = [
        "windows", "windows_enabled", "session_minutes", "session_minutes_enabled", "tone", "instruction",
        "auto_update", "notifications_enabled", "reminder_minutes", "delete_after_days", "horizon_days",
        "keep_categories", "split_sessions", "morning_time",
    ]
    static let columns = names.joined(separator: ", ")
    static let aliasedColumns = names.map { "s." + $0 }.joined(separator: ", ")

    static func values(_ s: UserSettings) -> [SQLValue] {
        [
            .text(windowsJSON(s.windows).text), SQLValue(s.windowsEnabled), .integer(s.sessionMinutes),
            SQLValue(s.sessionMinutesEnabled), .text(s.tone), .text(s.instruction), SQLValue(s.autoUpdate),
            SQLValue(s.notificationsEnabled), .integer(s.reminderMinutes), .integer(s.deleteAfterDays),
            .integer(s.horizonDays), .text(JSONValue.array(s.keepCategories.map { .string($0) }).text),
            SQLValue(s.splitSessions), .text(s.morningTime.description),
        ]
    }

    /// Reads the settings columns starting at `offset`; all NULL (no row) gives the defaults.
    static func decode(_ s: any SQLRow, from offset: Int32, userID: String) throws(StoreError) -> UserSettings {
        var settings = UserSettings()
        guard !s.isNull(offset) else { return settings }
        func bad(_ problem: String) -> StoreError { .malformedRow(entity: "settings", key: userID, problem: problem) }
        settings.windows = try windows(
            from: StoredJSON.parse(s.text(offset), entity: "settings", key: userID), userID: userID)
        settings.windowsEnabled = s.bool(offset + 1)
        settings.sessionMinutes = s.int(offset + 2)
        settings.sessionMinutesEnabled = s.bool(offset + 3)
        settings.tone = s.text(offset + 4)
        settings.instruction = s.text(offset + 5)
        settings.autoUpdate = s.bool(offset + 6)
        settings.notificationsEnabled = s.bool(offset + 7)
        settings.reminderMinutes = s.int(offset + 8)
        settings.deleteAfterDays = s.int(offset + 9)
        settings.horizonDays = s.int(offset + 10)
        guard let kept = try StoredJSON.parse(s.text(offset + 11), entity: "settings", key: userID).arrayValue else {
            throw bad("keep_categories is not an array")
        }
        settings.keepCategories = try kept.map { (v: JSONValue) throws(StoreError) -> String in
            guard let c = v.stringValue else { throw bad("keep_categories holds a non-string") }
            return c
        }
        settings.splitSessions = s.bool(offset + 12)
        guard let morning = TimeOfDay(s.text(offset + 13)) else { throw bad("morning_time is not HH:MM") }
        settings.morningTime = morning
        return settings
    }

    static func windowsJSON(_ windows: WeeklyWindows) -> JSONValue {
        var days: [String: JSONValue] = [:]
        for day in Weekday.allCases where !windows.windows(on: day).isEmpty {
            days[day.rawValue] = .array(windows.windows(on: day).map { .string($0.description) })
        }
        return .object(days)
    }

    static func windows(from json: JSONValue, userID: String) throws(StoreError) -> WeeklyWindows {
        func bad(_ problem: String) -> StoreError { .malformedRow(entity: "settings", key: userID, problem: problem) }
        guard let object = json.objectValue else { throw bad("windows is not an object") }
        var text: [Weekday: [String]] = [:]
        for (name, ranges) in object {
            guard let day = Weekday(rawValue: name) else { throw bad("unknown weekday '\(name)' in windows") }
            guard let list = ranges.arrayValue?.compactMap(\.stringValue), list.count == ranges.arrayValue?.count else {
                throw bad("windows of \(name) are not a list of ranges")
            }
            text[day] = list
        }
        do throws(DataError) {
            return try WeeklyWindows(text: text)
        } catch {
            throw bad("windows: \(error.description)")
        }
    }
}
