import Foundation
import JSON

/// The JSON image of one stored row (task, occurrence override, series slide), as kept in a
/// changeset's before/after columns. Images round-trip exactly, so undo restores a deleted
/// task with the same id, subtasks, dates and version.
package enum RowImage {
    package static func task(_ t: StudyTask) -> JSONValue {
        var repeatValue: JSONValue = .null
        if let r = t.repeatRule {
            var rep: [String: JSONValue] = [
                "every": .string(r.every.rawValue), "until": r.until.map { .string($0.description) } ?? .null,
            ]
            // Written only when set, so images of tasks without a chosen policy stay as before.
            if let m = r.missed { rep["missed"] = .string(m.rawValue) }
            repeatValue = .object(rep)
        }
        return [
            "id": .string(t.id), "user": .string(t.userID), "title": .string(t.title), "note": .string(t.note),
            "category": .string(t.category), "color": .string(t.color.rawValue),
            "start": .string(t.start.description), "end": .string(t.end.description),
            "allDay": .bool(t.allDay), "completed": .bool(t.completed),
            "subtasks": .array(t.subtasks.map { ["title": .string($0.title), "done": .bool($0.done)] }),
            "repeat": repeatValue,
            "createdAt": .string(Timestamp.text(t.createdAt)), "updatedAt": .string(Timestamp.text(t.updatedAt)),
            "version": .int(t.version),
        ]
    }

    package static func task(from image: JSONValue) throws(DataError) -> StudyTask {
        let r = ImageReader(image, entity: "task")
        var rule: RepeatRule?
        if let rep = image["repeat"], rep != .null {
            guard let every = rep["every"]?.stringValue.flatMap(RepeatRule.Frequency.init(rawValue:)) else {
                throw r.bad("repeat.every")
            }
            var until: CivilDate?
            if let u = rep["until"], u != .null {
                guard let date = u.stringValue.flatMap({ CivilDate($0) }) else { throw r.bad("repeat.until") }
                until = date
            }
            var missed: RepeatRule.MissedPolicy?
            if let m = rep["missed"], m != .null {
                guard let policy = m.stringValue.flatMap(RepeatRule.MissedPolicy.init(rawValue:)) else {
                    throw r.bad("repeat.missed")
                }
                missed = policy
            }
            rule = RepeatRule(every: every, until: until, missed: missed)
        }
        guard let subtaskImages = image["subtasks"]?.arrayValue else { throw r.bad("subtasks") }
        let subtasks = try subtaskImages.map { (s: JSONValue) throws(DataError) -> Subtask in
            guard let title = s["title"]?.stringValue, let done = s["done"]?.boolValue else { throw r.bad("subtasks") }
            return Subtask(title: title, done: done)
        }
        guard let color = TaskColor(rawValue: try r.string("color")) else { throw r.bad("color") }
        return StudyTask(
            id: try r.string("id"), userID: try r.string("user"), title: try r.string("title"),
            note: try r.string("note"), category: try r.string("category"), color: color,
            start: try r.dateTime("start"), end: try r.dateTime("end"), allDay: try r.bool("allDay"),
            completed: try r.bool("completed"), subtasks: subtasks, repeatRule: rule,
            createdAt: try r.timestamp("createdAt"), updatedAt: try r.timestamp("updatedAt"),
            version: try r.int("version"))
    }

    package static func override(_ o: OccurrenceOverride) -> JSONValue {
        [
            "task": .string(o.taskID), "date": .string(o.originalDate.description), "state": .string(o.state.rawValue),
            "start": o.start.map { .string($0.description) } ?? .null,
            "end": o.end.map { .string($0.description) } ?? .null,
            "version": .int(o.version),
        ]
    }

    package static func override(from image: JSONValue) throws(DataError) -> OccurrenceOverride {
        let r = ImageReader(image, entity: "override")
        guard let state = OccurrenceState(rawValue: try r.string("state")) else { throw r.bad("state") }
        let start = try r.optionalDateTime("start")
        let end = try r.optionalDateTime("end")
        // A move has both ends or neither; half of one would silently not be a move.
        guard (start == nil) == (end == nil) else { throw r.bad(start == nil ? "start" : "end") }
        return OccurrenceOverride(
            taskID: try r.string("task"), originalDate: try r.date("date"), state: state,
            start: start, end: end, version: try r.int("version"))
    }

    package static func slide(_ s: SeriesSlide) -> JSONValue {
        [
            "task": .string(s.taskID), "from": .string(s.from.description), "days": .int(s.days),
            "version": .int(s.version),
        ]
    }

    package static func slide(from image: JSONValue) throws(DataError) -> SeriesSlide {
        let r = ImageReader(image, entity: "slide")
        return SeriesSlide(
            taskID: try r.string("task"), from: try r.date("from"), days: try r.int("days"),
            version: try r.int("version"))
    }
}

/// Reads the fields of a row image; a malformed image is a typed error, never a crash or a
/// silently dropped value.
private struct ImageReader {
    let image: JSONValue
    let entity: String

    init(_ image: JSONValue, entity: String) {
        self.image = image
        self.entity = entity
    }

    func bad(_ key: String) -> DataError { DataError(path: key, message: "malformed \(entity) row image") }
    func string(_ key: String) throws(DataError) -> String {
        guard let v = image[key]?.stringValue else { throw bad(key) }
        return v
    }
    func bool(_ key: String) throws(DataError) -> Bool {
        guard let v = image[key]?.boolValue else { throw bad(key) }
        return v
    }
    func int(_ key: String) throws(DataError) -> Int {
        guard let v = image[key]?.intValue else { throw bad(key) }
        return v
    }
    func date(_ key: String) throws(DataError) -> CivilDate {
        guard let v = CivilDate(try string(key)) else { throw bad(key) }
        return v
    }
    func dateTime(_ key: String) throws(DataError) -> CivilDateTime {
        guard let v = CivilDateTime(try string(key)) else { throw bad(key) }
        return v
    }
    /// A nullable column: absent or null is nil; anything else must be a date-time.
    func optionalDateTime(_ key: String) throws(DataError) -> CivilDateTime? {
        guard let v = image[key], v != .null else { return nil }
        guard v.stringValue != nil else { throw bad(key) }
        return try dateTime(key)
    }
    func timestamp(_ key: String) throws(DataError) -> Date {
        guard let v = Timestamp.date(try string(key)) else { throw bad(key) }
        return v
    }
}
