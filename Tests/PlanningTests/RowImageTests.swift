import Foundation
import JSON
import Planning
import ReplanTestSupport
import Testing

private let created = Date(timeIntervalSince1970: 1_736_218_800) // 2025-01-07T03:00:00Z
private let updated = Date(timeIntervalSince1970: 1_736_305_205) // 2025-01-08T03:00:05Z

private let series = StudyTask(
    id: "vocab", userID: "mei", title: "Vocab 單字 📚", note: "Unit 3\n\"quoted\"", category: "English", color: .blue,
    start: at("2025-01-06T20:00"), end: at("2025-01-06T20:30"),
    subtasks: [Subtask(title: "list", done: true), Subtask(title: "quiz")],
    repeatRule: RepeatRule(every: .daily, until: date("2025-01-31")), createdAt: created, updatedAt: updated, version: 7
)

private let oneOff = StudyTask(
    id: "essay", userID: "mei", title: "Essay", category: "Writing", color: .red,
    start: at("2025-01-07T15:00"), end: at("2025-01-07T17:00"), completed: true, createdAt: created, version: 1)

private let allDay = StudyTask(
    id: "trip", userID: "mei", title: "Trip", category: "Geography", color: .yellow,
    start: at("2025-01-11T00:00"), end: at("2025-01-12T00:00"), allDay: true,
    repeatRule: RepeatRule(every: .monthly), createdAt: created, updatedAt: updated, version: 2)

/// `image` with `key` set to `value` (nil removes it).
private func changing(_ image: JSONValue, _ key: String, _ value: JSONValue?) -> JSONValue {
    var members = image.objectValue!
    members[key] = value
    return .object(members)
}

private func taskError(_ image: JSONValue) -> DataError? {
    do {
        _ = try RowImage.task(from: image)
        return nil
    } catch { return error }
}

private func overrideError(_ image: JSONValue) -> DataError? {
    do {
        _ = try RowImage.override(from: image)
        return nil
    } catch { return error }
}

private func slideError(_ image: JSONValue) -> DataError? {
    do {
        _ = try RowImage.slide(from: image)
        return nil
    } catch { return error }
}

@Suite("RowImage")
struct RowImageTests {
    @Test("task images round-trip exactly", arguments: [series, oneOff, allDay])
    func taskRoundTrip(_ task: StudyTask) throws {
        let image = RowImage.task(task)
        #expect(try RowImage.task(from: image) == task)
        // Through text too, as the store keeps it.
        #expect(try RowImage.task(from: JSONValue(parsing: image.text)) == task)
    }

    @Test("a task image holds every column, with null for no repeat rule")
    func taskImageShape() {
        #expect(
            RowImage.task(oneOff) == [
                "id": "essay", "user": "mei", "title": "Essay", "note": "", "category": "Writing", "color": "red",
                "start": "2025-01-07T15:00", "end": "2025-01-07T17:00", "allDay": false, "completed": true,
                "subtasks": [], "repeat": nil, "createdAt": "2025-01-07T03:00:00Z", "updatedAt": "2025-01-07T03:00:00Z",
                "version": 1,
            ])
        #expect(RowImage.task(series)["repeat"] == ["every": "daily", "until": "2025-01-31"])
        #expect(RowImage.task(allDay)["repeat"] == ["every": "monthly", "until": nil])
        #expect(
            RowImage.task(series)["subtasks"] == [["title": "list", "done": true], ["title": "quiz", "done": false]])
    }

    @Test(
        "override images round-trip exactly",
        arguments: [
            OccurrenceOverride(taskID: "vocab", originalDate: date("2025-01-06"), state: .completed, version: 3),
            OccurrenceOverride(taskID: "vocab", originalDate: date("2025-01-07"), state: .skipped),
            OccurrenceOverride(
                taskID: "vocab", originalDate: date("2025-01-08"), state: .open,
                start: at("2025-01-08T15:00"), end: at("2025-01-08T16:00"), version: 2),
            OccurrenceOverride(
                taskID: "vocab", originalDate: date("2025-01-09"), state: .completed,
                start: at("2025-01-10T07:00"), end: at("2025-01-10T07:30")),
        ])
    func overrideRoundTrip(_ override: OccurrenceOverride) throws {
        #expect(try RowImage.override(from: RowImage.override(override)) == override)
        #expect(try RowImage.override(from: JSONValue(parsing: RowImage.override(override).text)) == override)
    }

    @Test("an override image holds every column, with null for no move")
    func overrideImageShape() {
        #expect(
            RowImage.override(
                OccurrenceOverride(taskID: "vocab", originalDate: date("2025-01-09"), state: .skipped, version: 4)) == [
                    "task": "vocab", "date": "2025-01-09", "state": "skipped", "start": nil, "end": nil, "version": 4,
                ])
    }

    @Test(
        "slide images round-trip exactly",
        arguments: [
            SeriesSlide(taskID: "vocab", from: date("2025-01-10"), days: 1),
            SeriesSlide(taskID: "vocab", from: date("2025-02-01"), days: -3, version: 9),
        ])
    func slideRoundTrip(_ slide: SeriesSlide) throws {
        #expect(
            RowImage.slide(slide) == [
                "task": .string(slide.taskID), "from": .string(slide.from.description),
                "days": .int(slide.days), "version": .int(slide.version),
            ])
        #expect(try RowImage.slide(from: RowImage.slide(slide)) == slide)
    }

    @Test(
        "a malformed task image is a DataError naming the column",
        arguments: [
            ("id", nil), ("user", 5), ("title", nil), ("note", false), ("category", nil), ("color", "purple"),
            ("color", "0.7,0.16,0.13,0.4"), ("start", "2025-01-06"), ("end", "tomorrow"), ("allDay", "false"),
            ("completed", nil), ("createdAt", "2025-01-07"), ("updatedAt", 0), ("version", "7"),
            ("version", .number(1.5)),
        ] as [(String, JSONValue?)])
    func malformedTask(key: String, value: JSONValue?) {
        let error = taskError(changing(RowImage.task(series), key, value))
        #expect(error?.path == key)
    }

    @Test("a malformed repeat rule or subtask list is a DataError")
    func malformedTaskParts() {
        let image = RowImage.task(series)
        #expect(taskError(changing(image, "repeat", ["every": "yearly"]))?.path == "repeat.every")
        #expect(taskError(changing(image, "repeat", ["until": "2025-01-31"]))?.path == "repeat.every")
        #expect(taskError(changing(image, "subtasks", [["title": "list"]]))?.path == "subtasks")
        #expect(taskError(changing(image, "subtasks", [["done": true]]))?.path == "subtasks")
        #expect(taskError("not an object") != nil)
        #expect(taskError(nil) != nil)
    }

    @Test(
        "a malformed override image is a DataError naming the column",
        arguments: [
            ("task", nil), ("date", "2025-02-30"), ("date", nil), ("state", "moved"), ("state", nil), ("version", nil),
        ] as [(String, JSONValue?)])
    func malformedOverride(key: String, value: JSONValue?) {
        let image = RowImage.override(
            OccurrenceOverride(
                taskID: "vocab", originalDate: date("2025-01-08"), state: .open,
                start: at("2025-01-08T15:00"), end: at("2025-01-08T16:00")))
        #expect(overrideError(changing(image, key, value))?.path == key)
    }

    @Test(
        "a malformed slide image is a DataError naming the column",
        arguments: [
            ("task", 1), ("from", "2025-1-10"), ("days", nil), ("days", "1"), ("version", nil),
        ] as [(String, JSONValue?)])
    func malformedSlide(key: String, value: JSONValue?) {
        let image = RowImage.slide(SeriesSlide(taskID: "vocab", from: date("2025-01-10"), days: 1))
        #expect(slideError(changing(image, key, value))?.path == key)
    }

    @Test("a malformed nullable column is an error, not silently dropped; null or absent means none")
    func malformedNullableColumns() throws {
        let image = RowImage.task(series)
        #expect(
            taskError(changing(image, "repeat", ["every": "daily", "until": "2025-02-30"]))?.path == "repeat.until")
        #expect(taskError(changing(image, "repeat", ["every": "daily", "until": 20_250_131]))?.path == "repeat.until")
        #expect(taskError(changing(image, "subtasks", "none"))?.path == "subtasks")
        #expect(taskError(changing(image, "subtasks", nil))?.path == "subtasks")
        #expect(
            try RowImage.task(from: changing(image, "repeat", ["every": "daily"])).repeatRule
                == RepeatRule(every: .daily))
        #expect(try RowImage.task(from: changing(image, "repeat", nil)).repeatRule == nil)

        let moved = RowImage.override(
            OccurrenceOverride(
                taskID: "vocab", originalDate: date("2025-01-08"), state: .open,
                start: at("2025-01-08T15:00"), end: at("2025-01-08T16:00")))
        #expect(overrideError(changing(moved, "start", "tomorrow"))?.path == "start")
        #expect(overrideError(changing(moved, "end", 5))?.path == "end")
        #expect(overrideError(changing(moved, "end", .null))?.path == "end") // a move has both ends
        #expect(overrideError(changing(moved, "start", nil))?.path == "start")
        #expect(try RowImage.override(from: changing(changing(moved, "start", .null), "end", nil)).isMove == false)
    }
}
