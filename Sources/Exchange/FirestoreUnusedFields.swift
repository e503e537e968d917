/// The fields of the app's documents that the import does not use, listed in the report
/// (issue 28, item 18): the importer reads each document by the names below, and a field of
/// any other name (or a second spelling after the one it took) would otherwise vanish
/// without a word, as a reminder lead under a name it did not guess once did.
enum FirestoreUnusedFields {
    static let studySettings: Set<String> = [
        "studyDuration", "isStudyTimePreferenceEnabled", "isStudyDatePreferenceEnabled", "tone", "selectedDays",
        "dailyStartHours", "dailyStartMinutes", "dailyEndHours", "dailyEndMinutes",
    ]
    /// Every name is tried in this order; the first one present is used.
    static let notificationNames = ["notificationsEnabled", "notificationEnabled", "isNotificationEnabled"]
    static let reminderNames = ["reminderMinutes", "notificationOffset", "reminderOffset"]
    static let focusNames = ["focusTime", "focusMinutes", "totalFocusTime", "totalFocusMinutes"]
    /// What a task's values become; `createdAt`, `userId` and `notificationEnabled` are only
    /// checked (the app dropped a task without them), their values are not kept.
    static let task: Set<String> = [
        "title", "color", "focusTime", "category", "isAllDay", "isCompleted", "repeatType", "startDate", "endDate",
        "note", "repeatEndDate",
    ]
    static let instance: Set<String> = ["date", "isCompleted"]

    /// Why a field of a known name is not used; others get the general reason.
    static let reasons: [String: String] = [
        "createdAt": "replan records when it imported the task instead",
        "updatedAt": "replan records when each row changed instead",
        "userId": "the owner is the user of the document's path",
        "parentTaskId": "the task is the one the instance is filed under",
        "notificationEnabled": "replan's reminders are on or off per student, not per task",
        "notificationOffset": "replan keeps one reminder lead per student (settings), not per task",
        "completedCount": "replan recounts it from the tasks every night",
        "taskCount": "replan recounts it from the tasks every night",
        "promptTokens": "the app's own model usage; replan counts its own",
        "completionTokens": "the app's own model usage; replan counts its own",
        "totalTokens": "the app's own model usage; replan counts its own",
    ]

    static func list(_ records: FirestoreUserRecords, report: inout FirestoreImportReport) {
        let prefix = records.source.map { "\($0):" } ?? ""
        func note(_ doc: FirestoreDocument, pattern: String, used: Set<String>) {
            for field in doc.fields.keys.sorted() where !used.contains(field) {
                let why = reasons[field] ?? "replan has no use for a field of this name; its value is not imported"
                report.unused("\(prefix)\(pattern).\(field)", in: doc.path, why)
            }
        }
        if let doc = records.studySettings { note(doc, pattern: "studySettings/*", used: studySettings) }
        if let doc = records.settings {
            let used = [notificationNames, reminderNames].compactMap { names in names.first { doc[$0] != nil } }
            note(doc, pattern: "settings/*", used: Set(used))
        }
        for t in records.tasks {
            note(t.document, pattern: "tasks/*/userTasks/*", used: task)
            for i in t.instances { note(i, pattern: "tasks/*/userTasks/*/instances/*", used: instance) }
        }
        if let doc = records.statisticsRoot { note(doc, pattern: "userStatistics/*", used: []) }
        for doc in records.statistics {
            let focus = focusNames.first { doc[$0] != nil }
            note(doc, pattern: "userStatistics/*/statistics/*", used: Set(["category"] + (focus.map { [$0] } ?? [])))
        }
    }
}
