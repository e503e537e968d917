import Planning
import Testing

private func settings(_ change: (inout UserSettings) -> Void) -> UserSettings {
    var s = UserSettings()
    change(&s)
    return s
}

@Suite("UserSettings")
struct UserSettingsTests {
    @Test("defaults of docs/data-format.md §2.2")
    func defaults() throws {
        let s = UserSettings()
        #expect(s.windows == .standard)
        #expect(s.windowsEnabled)
        #expect(s.sessionMinutes == 60)
        #expect(s.sessionMinutesEnabled)
        #expect(s.tone == "a calm, professional tutor")
        #expect(s.instruction == "")
        #expect(s.autoUpdate)
        #expect(!s.notificationsEnabled)
        #expect(s.reminderMinutes == 10)
        #expect(s.deleteAfterDays == 7)
        #expect(s.horizonDays == 14)
        #expect(s.keepCategories.isEmpty)
        #expect(!s.splitSessions)
        try s.validate()
    }

    @Test("effective windows are the user's own, or 08:00–22:00 every day when turned off")
    func effectiveWindows() {
        #expect(UserSettings().effectiveWindows == .standard)
        #expect(settings { $0.windowsEnabled = false }.effectiveWindows == .windowsOff)
    }

    @Test("session length 15–240 minutes", arguments: [15, 60, 240])
    func sessionMinutesInRange(_ minutes: Int) throws {
        try settings { $0.sessionMinutes = minutes }.validate()
    }

    @Test("session length outside 15–240 is an error naming the setting", arguments: [14, 0, -60, 241, 1000])
    func sessionMinutesOutOfRange(_ minutes: Int) {
        #expect(throws: DataError(path: "sessionMinutes", message: "must be between 15 and 240, got \(minutes)")) {
            try settings { $0.sessionMinutes = minutes }.validate()
        }
    }

    @Test("reminder minutes are one of 0, 5, 10, 15, 30, 60", arguments: [0, 5, 10, 15, 30, 60])
    func reminderMinutesAllowed(_ minutes: Int) throws {
        try settings { $0.reminderMinutes = minutes }.validate()
    }

    @Test("any other reminder is an error naming the setting", arguments: [1, 20, 45, 90, -5])
    func reminderMinutesRejected(_ minutes: Int) {
        #expect(
            throws: DataError(path: "reminderMinutes", message: "must be one of 0, 5, 10, 15, 30, 60, got \(minutes)")
        ) {
            try settings { $0.reminderMinutes = minutes }.validate()
        }
    }

    @Test("planning knobs stay in sane ranges")
    func planningKnobs() {
        #expect(throws: DataError.self) { try settings { $0.deleteAfterDays = -1 }.validate() }
        #expect(throws: DataError.self) { try settings { $0.horizonDays = 0 }.validate() }
        #expect(throws: DataError.self) { try settings { $0.horizonDays = 91 }.validate() }
    }

    @Test("kept categories follow the category rules, located by index")
    func keepCategories() throws {
        try settings { $0.keepCategories = ["Exams"] }.validate()
        #expect(throws: DataError(path: "keepCategories[1].category", message: "'未分類' is not a specific category")) {
            try settings { $0.keepCategories = ["Exams", "未分類"] }.validate()
        }
    }

    @Test("tone and instruction are free text, may be empty")
    func freeText() throws {
        try settings {
            $0.tone = "沉著穩重的專家"
            $0.instruction = ""
        }.validate()
        try settings { $0.instruction = "每天安排兩小時英文" }.validate()
    }
}
