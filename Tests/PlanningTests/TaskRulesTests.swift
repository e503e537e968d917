import Planning
import ReplanTestSupport
import Testing

private func task(
    start: String = "2025-01-06T10:00", end: String = "2025-01-06T11:00", allDay: Bool = false,
    repeatRule: RepeatRule? = nil, change: (inout StudyTask) -> Void = { _ in }
) -> StudyTask {
    var t = StudyTask(
        id: "eng-1", userID: "mei", title: "English reading", category: "English",
        start: at(start), end: at(end), allDay: allDay, repeatRule: repeatRule)
    change(&t)
    return t
}

@Suite("TaskRules")
struct TaskRulesTests {
    @Test(
        "a title is 1–200 characters after trimming",
        arguments: [
            "x", "  English reading  ", String(repeating: "字", count: 200),
            " " + String(repeating: "a", count: 200) + "\n",
        ])
    func titleLength(_ title: String) throws {
        try TaskRules.validateTitle(title)
    }

    @Test("an empty or blank title is rejected", arguments: ["", "   ", "\t\n", "\u{3000}"])
    func blankTitle(_ title: String) {
        #expect(throws: DataError(path: "title", message: "must not be empty")) { try TaskRules.validateTitle(title) }
    }

    @Test("a title of 201 characters is rejected")
    func longTitle() {
        #expect(throws: DataError(path: "title", message: "must be at most 200 characters after trimming, got 201")) {
            try TaskRules.validateTitle(String(repeating: "a", count: 201))
        }
    }

    @Test("a note is at most 4000 characters and may be empty")
    func noteLength() throws {
        try TaskRules.validateNote("")
        try TaskRules.validateNote(String(repeating: "n", count: 4000))
        #expect(throws: DataError(path: "note", message: "must be at most 4000 characters, got 4001")) {
            try TaskRules.validateNote(String(repeating: "n", count: 4001))
        }
    }

    @Test("a category is 1–50 characters", arguments: ["English", "社團", "作業", String(repeating: "c", count: 50)])
    func categoryAccepted(_ category: String) throws {
        try TaskRules.validateCategory(category)
    }

    @Test("a category is never empty")
    func emptyCategory() {
        #expect(throws: DataError(path: "category", message: "must not be empty")) {
            try TaskRules.validateCategory("")
        }
        #expect(throws: DataError(path: "category", message: "must not be empty")) {
            try TaskRules.validateCategory("  ")
        }
    }

    @Test("a category is never a placeholder for no category", arguments: ["未分類", "Uncategorized", " Uncategorized "])
    func placeholderCategory(_ category: String) {
        #expect(throws: DataError.self) { try TaskRules.validateCategory(category) }
    }

    @Test("a category of 51 characters is rejected")
    func longCategory() {
        #expect(throws: DataError(path: "category", message: "must be at most 50 characters, got 51")) {
            try TaskRules.validateCategory(String(repeating: "c", count: 51))
        }
    }

    @Test("a timed task ends after it starts")
    func timedOrder() throws {
        try TaskRules.validateTimes(start: at("2025-01-06T10:00"), end: at("2025-01-06T10:01"), allDay: false)
        try TaskRules.validateTimes(start: at("2025-01-06T23:00"), end: at("2025-01-07T01:00"), allDay: false)
        #expect(throws: DataError(path: "end", message: "end 2025-01-06T10:00 must be after start 2025-01-06T10:00")) {
            try TaskRules.validateTimes(start: at("2025-01-06T10:00"), end: at("2025-01-06T10:00"), allDay: false)
        }
        #expect(throws: DataError.self) {
            try TaskRules.validateTimes(start: at("2025-01-06T10:00"), end: at("2025-01-06T09:00"), allDay: false)
        }
    }

    @Test("an all-day task ends on its last day, inclusive: one day has end = start")
    func allDayInclusiveEnd() throws {
        try TaskRules.validateTimes(start: at("2025-01-06T00:00"), end: at("2025-01-06T00:00"), allDay: true)
        try TaskRules.validateTimes(start: at("2025-01-06T00:00"), end: at("2025-01-08T00:00"), allDay: true)
        #expect(throws: DataError(path: "end", message: "last day 2025-01-05 is before the first day 2025-01-06")) {
            try TaskRules.validateTimes(start: at("2025-01-06T00:00"), end: at("2025-01-05T00:00"), allDay: true)
        }
    }

    @Test("an all-day task takes dates, not times")
    func allDayTakesDates() {
        #expect(throws: DataError.self) {
            try TaskRules.validateTimes(start: at("2025-01-06T09:00"), end: at("2025-01-06T00:00"), allDay: true)
        }
    }

    @Test("a task id has no '@', which separates it from the date in occurrence ids")
    func taskIDs() throws {
        try TaskRules.validateID("eng-1")
        #expect(throws: DataError.self) { try TaskRules.validateID("eng@1") }
        #expect(throws: DataError.self) { try TaskRules.validateID("") }
    }
}

@Suite("StudyTask.validate")
struct StudyTaskValidateTests {
    @Test("a valid one-off task and a valid series pass")
    func validTasks() throws {
        try task().validate()
        try task(repeatRule: RepeatRule(every: .daily, until: date("2025-01-31"))).validate()
        try task(start: "2025-01-06T00:00", end: "2025-01-06T00:00", allDay: true).validate()
    }

    @Test("each field rule applies, named by its field")
    func fieldRules() {
        #expect(throws: DataError(path: "title", message: "must not be empty")) {
            try task { $0.title = " " }.validate()
        }
        #expect(throws: DataError(path: "category", message: "'Uncategorized' is not a specific category")) {
            try task { $0.category = "Uncategorized" }.validate()
        }
        #expect(throws: DataError.self) { try task { $0.note = String(repeating: "n", count: 4001) }.validate() }
        #expect(throws: DataError.self) { try task(end: "2025-01-06T09:00").validate() }
    }

    @Test("subtask titles follow the title rule, located by index")
    func subtasks() throws {
        try task { $0.subtasks = [Subtask(title: "vocabulary list", done: true)] }.validate()
        #expect(throws: DataError(path: "subtasks[1].title", message: "must not be empty")) {
            try task { $0.subtasks = [Subtask(title: "vocabulary list"), Subtask(title: "")] }.validate()
        }
        #expect(
            throws: DataError(
                path: "subtasks[0].title", message: "must be at most 200 characters after trimming, got 201")
        ) {
            try task { $0.subtasks = [Subtask(title: String(repeating: "s", count: 201))] }.validate()
        }
    }

    @Test("until may be the first day but not before it")
    func untilBeforeStart() throws {
        try task(repeatRule: RepeatRule(every: .weekly, until: date("2025-01-06"))).validate()
        #expect(
            throws: DataError(
                path: "repeat.until", message: "until 2025-01-05 is before the first session on 2025-01-06")
        ) {
            try task(repeatRule: RepeatRule(every: .weekly, until: date("2025-01-05"))).validate()
        }
    }

    @Test("a series is completed per occurrence, not as a whole")
    func seriesNotCompleted() {
        #expect(throws: DataError(path: "completed", message: "a series is completed per occurrence, not as a whole")) {
            try task(repeatRule: RepeatRule(every: .daily)) { $0.completed = true }.validate()
        }
    }

    @Test("length in civil minutes; all-day counts inclusive days")
    func length() {
        #expect(task().lengthMinutes == 60)
        #expect(task(start: "2025-01-06T00:00", end: "2025-01-06T00:00", allDay: true).lengthMinutes == 1440)
        #expect(task(start: "2025-01-06T00:00", end: "2025-01-08T00:00", allDay: true).lengthMinutes == 3 * 1440)
    }
}
