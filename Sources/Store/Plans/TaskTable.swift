import JSON
import Planning

/// The `tasks` table: how a `StudyTask` maps to a row and back. Shared by the plan loader and
/// the changeset applier so both read and write tasks identically.
enum TaskTable {
    static let names = [
        "id", "user_id", "title", "note", "category", "color", "start", #""end""#, "all_day", "completed",
        "subtasks", "repeat_every", "repeat_until", "created_at", "updated_at", "version", "repeat_missed",
    ]
    static let columns = names.joined(separator: ", ")
    /// The same columns prefixed with a table alias `t.`.
    static let aliasedColumns = names.map { "t." + $0 }.joined(separator: ", ")

    static func values(_ t: StudyTask) -> [SQLValue] {
        let subtasks =
            t.subtasks.isEmpty
            ? "[]" : JSONValue.array(t.subtasks.map { ["title": .string($0.title), "done": .bool($0.done)] }).text
        return [
            .text(t.id), .text(t.userID), .text(t.title), .text(t.note), .text(t.category), .text(t.color.rawValue),
            .text(t.start.description), .text(t.end.description), SQLValue(t.allDay), SQLValue(t.completed),
            .text(subtasks), SQLValue(t.repeatRule?.every.rawValue), SQLValue(t.repeatRule?.until?.description),
            .text(Timestamp.text(t.createdAt)), .text(Timestamp.text(t.updatedAt)), .integer(t.version),
            SQLValue(t.repeatRule?.missed?.rawValue),
        ]
    }

    /// Reads a row selected with `columns` (from column 0).
    static func decode(_ s: any SQLRow) throws(StoreError) -> StudyTask {
        let id = s.text(0)
        func bad(_ problem: String) -> StoreError { .malformedRow(entity: "task", key: id, problem: problem) }
        guard let color = s.taskColor(5) else { throw bad("unknown color") }
        guard let start = s.civilDateTime(6), let end = s.civilDateTime(7) else { throw bad("bad start or end") }
        var rule: RepeatRule?
        if !s.isNull(11) {
            guard let frequency = s.repeatFrequency(11) else { throw bad("unknown repeat") }
            var until: CivilDate?
            if !s.isNull(12) {
                guard let date = s.civilDate(12) else { throw bad("bad repeat_until") }
                until = date
            }
            var missed: RepeatRule.MissedPolicy?
            if !s.isNull(16) {
                guard let policy = RepeatRule.MissedPolicy(rawValue: s.text(16)) else {
                    throw bad("unknown repeat_missed")
                }
                missed = policy
            }
            rule = RepeatRule(every: frequency, until: until, missed: missed)
        }
        var subtasks: [Subtask] = []
        // Most tasks have none: skip the JSON parser for the stored empty list, and read the
        // shape replan writes without it.
        let subtasksText = s.text(10)
        if subtasksText != "[]" {
            if let canonical = SubtasksColumn.canonical(subtasksText) {
                subtasks = canonical
            } else {
                for item in try StoredJSON.parse(subtasksText, entity: "task", key: id).arrayValue ?? [] {
                    guard let title = item["title"]?.stringValue, let done = item["done"]?.boolValue else {
                        throw bad("bad subtasks")
                    }
                    subtasks.append(Subtask(title: title, done: done))
                }
            }
        }
        guard let created = s.timestamp(13), let updated = s.timestamp(14) else { throw bad("bad timestamps") }
        return StudyTask(
            id: id, userID: s.text(1), title: s.text(2), note: s.text(3), category: s.text(4), color: color,
            start: start, end: end, allDay: s.bool(8), completed: s.bool(9), subtasks: subtasks,
            repeatRule: rule, createdAt: created, updatedAt: updated, version: s.int(15))
    }

    /// An upsert, not INSERT OR REPLACE: REPLACE deletes the old row first, and the foreign key
    /// cascade would take the task's overrides and slides with it. Built once: every changed
    /// task of every student is written with it.
    static let upsertSQL = """
        INSERT INTO tasks (\(columns)) VALUES (\(placeholders(names.count)))
        \(upsertTail)
        """

    static func upsert(_ task: StudyTask, in db: any SQLExecutor) throws(StoreError) {
        try db.send(upsertSQL, values(task))
    }

    static let updateSQL =
        "UPDATE tasks SET \(names.dropFirst().map { "\($0) = ?" }.joined(separator: ", ")) WHERE id = ?"

    /// Writes the task, as an UPDATE when the caller knows the row is stored: an upsert runs
    /// the table's CHECK constraints on its insert attempt and again on its update, and each
    /// `IN (…)` check costs SQLite a temporary b-tree. Falls back to the upsert when no row
    /// was there after all, so the row ends up the same either way.
    static func write(_ task: StudyTask, stored: Bool, in db: any SQLExecutor) throws(StoreError) {
        // On PostgreSQL the upsert, which needs no answer, goes out with the transaction's
        // next round trip; waiting for the update's count would cost one of its own.
        if stored && db.engine == .sqlite {
            let v = values(task)
            if try db.execute(updateSQL, Array(v.dropFirst()) + [v[0]]) == 1 { return }
        }
        try upsert(task, in: db)
    }

    static let upsertTail =
        "ON CONFLICT (id) DO UPDATE SET \(names.dropFirst().map { "\($0) = excluded.\($0)" }.joined(separator: ", "))"

    /// Writes the tasks (`write` of each, with `stored` as there), on PostgreSQL several rows to
    /// a statement (`sendRows`): a night's changeset writes a few tasks of a course at once.
    /// No task may appear twice.
    static func writeAll(_ rows: [(StudyTask, stored: Bool)], in db: any SQLExecutor) throws(StoreError) {
        guard db.engine == .postgresql, rows.count > 1 else {
            for row in rows { try write(row.0, stored: row.stored, in: db) }
            return
        }
        try db.sendRows("INSERT INTO tasks (\(columns))", rows.map { values($0.0) }, then: upsertTail)
    }

    /// Deletes the tasks, on PostgreSQL several to a statement (groups of `rowGroups`).
    static func deleteAll(ids: [String], in db: any SQLExecutor) throws(StoreError) {
        guard db.engine == .postgresql, ids.count > 1 else {
            for id in ids { try delete(id: id, in: db) }
            return
        }
        for group in rowGroups(ids.count) {
            try db.send(
                "DELETE FROM tasks WHERE id IN (\(placeholders(group.count)))", ids[group].map { .text($0) })
        }
    }

    static func delete(id: String, in db: any SQLExecutor) throws(StoreError) {
        try db.send("DELETE FROM tasks WHERE id = ?", [.text(id)])
    }

    static func find(id: String, in db: any SQLExecutor) throws(StoreError) -> StudyTask? {
        let rows = try db.query("SELECT \(columns) FROM tasks WHERE id = ?", [.text(id)]) { (s) throws(StoreError) in
            try decode(s)
        }
        return rows.first
    }

    /// The owner and version of a task, if it exists.
    static func ownerAndVersion(id: String, in db: any SQLExecutor) throws(StoreError) -> (owner: String, version: Int)?
    {
        try db.queryFirst("SELECT user_id, version FROM tasks WHERE id = ?", [.text(id)]) { ($0.text(0), $0.int(1)) }
    }
}

/// `?, ?, …` for `count` placeholders.
func placeholders(_ count: Int) -> String {
    Array(repeating: "?", count: count).joined(separator: ", ")
}
