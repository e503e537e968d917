/// One user's settings (docs/data-format.md §2.2), with the documented defaults.
package struct UserSettings: Hashable, Sendable {
    package var windows: WeeklyWindows = .standard
    package var windowsEnabled = true
    package var sessionMinutes = 60
    package var sessionMinutesEnabled = true
    package var tone = "a calm, professional tutor"
    package var instruction = ""
    package var autoUpdate = true
    package var notificationsEnabled = false
    package var reminderMinutes = 10
    package var deleteAfterDays = 7
    package var horizonDays = 14
    package var keepCategories: [String] = []
    package var splitSessions = false
    /// When the student's morning note is delivered, local time (docs/planning.md §12).
    package var morningTime = UserSettings.defaultMorningTime

    package static let defaultMorningTime = TimeOfDay(hour: 7, minute: 30)

    package static let allowedReminderMinutes = [0, 5, 10, 15, 30, 60]

    package init() {}

    /// The windows planning uses: the user's own, or 08:00–22:00 every day when turned off.
    package var effectiveWindows: WeeklyWindows { windowsEnabled ? windows : .windowsOff }

    /// Checks the ranges of docs/data-format.md §2.2; the error names the setting.
    package func validate() throws(DataError) {
        guard (15...240).contains(sessionMinutes) else {
            throw DataError(path: "sessionMinutes", message: "must be between 15 and 240, got \(sessionMinutes)")
        }
        guard UserSettings.allowedReminderMinutes.contains(reminderMinutes) else {
            throw DataError(
                path: "reminderMinutes", message: "must be one of 0, 5, 10, 15, 30, 60, got \(reminderMinutes)")
        }
        guard (0...365).contains(deleteAfterDays) else {
            throw DataError(path: "deleteAfterDays", message: "must be between 0 and 365, got \(deleteAfterDays)")
        }
        guard (1...90).contains(horizonDays) else {
            throw DataError(path: "horizonDays", message: "must be between 1 and 90, got \(horizonDays)")
        }
        try TaskRules.rejectControlCharacters(tone, path: "tone")
        try TaskRules.rejectControlCharacters(instruction, path: "instruction")
        guard tone.count <= 500 else { throw DataError(path: "tone", message: "must be at most 500 characters") }
        guard instruction.count <= 4000 else {
            throw DataError(path: "instruction", message: "must be at most 4000 characters")
        }
        for (i, c) in keepCategories.enumerated() {
            do { try TaskRules.validateCategory(c) } catch { throw error.under("keepCategories[\(i)]") }
        }
    }
}
