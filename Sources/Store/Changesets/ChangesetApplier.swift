import Foundation
import JSON
import Planning

/// Checks and applies the row edits of one user's changeset, inside the caller's write
/// transaction. Shared by commit, undo and redo so all three check and write rows alike.
///
/// Every row an edit touches must belong to the changeset's user; a row of another user is
/// refused outright (`.foreignRow`), even with `force`, because task ids are global.
///
/// One applier serves one changeset: it reads each task the changeset touches once
/// (`TouchedTasks`) and keeps that in step with its own writes.
struct ChangesetApplier {
    let db: any SQLExecutor
    let userID: String
    let tasks: TouchedTasks
    /// When the write happens: the `created_at` / `updated_at` of a `users` row a `user` edit writes.
    let now: Date

    init(db: any SQLExecutor, userID: String, now: Date) {
        self.db = db
        self.userID = userID
        self.tasks = TouchedTasks(db: db)
        self.now = now
    }

    /// An override or slide stored for a task, as (entity, key, image).
    struct Child {
        var entity: EditEntity
        var key: String
        var image: JSONValue
    }

    // MARK: Reading the current rows

    /// The stored version of the row (nil = absent). Statistics carry no version: 0 = present.
    func currentVersion(of entity: EditEntity, key: String) throws(StoreError) -> Int? {
        switch entity {
        case .task:
            guard let row = try tasks.row(key) else { return nil }
            guard row.owner == userID else { throw StoreError.foreignRow(entity: entity.rawValue, key: key) }
            return row.version
        case .override, .slide:
            _ = try taskOwned(try childKey(entity, key).0, entity: entity, key: key)
            fallthrough
        case .statistic:
            if let known = tasks.versionAhead(ChangesetApplier.identity(entity, key)) { return known }
            guard let query = try versionQuery(entity, key: key) else { return nil }
            return try db.queryFirst(query.sql, query.values) { $0.int(0) }
        case .focus:
            // Stands in for a version: how many of the user's sessions have this content.
            let k = try focusKey(key)
            let count =
                try db.queryFirst(
                    "SELECT count(*) FROM focus_sessions WHERE user_id = ? AND category = ? AND start = ? AND minutes = ?",
                    [.text(userID), .text(k.category), .text(k.start.description), .integer(k.minutes)]
                ) { $0.int(0) } ?? 0
            return count > 0 ? count : nil
        case .user:
            try requireOwnProfile(key)
            return try db.queryFirst("SELECT version FROM users WHERE id = ?", [.text(key)]) { $0.int(0) }
        }
    }

    /// The statement that reads the version of an override, slide or statistic row.
    private func versionQuery(_ entity: EditEntity, key: String) throws(StoreError) -> TouchedTasks.VersionQuery? {
        let identity = ChangesetApplier.identity(entity, key)
        switch entity {
        case .override:
            let (taskID, date) = try childKey(entity, key)
            return .init(
                identity: identity,
                sql: "SELECT version FROM occurrence_overrides WHERE task_id = ? AND original_date = ?",
                values: [.text(taskID), .text(date.description)])
        case .slide:
            let (taskID, date) = try childKey(entity, key)
            return .init(
                identity: identity, sql: "SELECT version FROM series_slides WHERE task_id = ? AND from_date = ?",
                values: [.text(taskID), .text(date.description)])
        case .statistic:
            return .init(
                identity: identity, sql: "SELECT 0 FROM statistics WHERE user_id = ? AND category = ?",
                values: [.text(userID), .text(key)])
        case .task, .focus, .user: return nil
        }
    }

    /// Reads ahead, as one batch (one round trip on PostgreSQL), what `conflicts(of:)`,
    /// `statisticEdits(for:)` and `storedChildren(ofTask:)` would read one row at a time for
    /// these steps: every task they touch, the children of every task they delete, the version
    /// of every override and slide they write, and the statistic row of every category their
    /// tasks have. Only a speed-up: a row not read ahead (a malformed key, say) is read, and
    /// fails, where it is checked. Call it before the first write, which forgets the versions.
    /// `also`: the caller's own queries, sent in the same batch (`TouchedTasks.readAhead`).
    /// - Returns: the rows of each `also` query.
    @discardableResult
    func readAhead(
        _ steps: [ChangesetEdit], also: [(sql: String, values: [SQLValue])] = []
    ) throws(StoreError) -> [[Int]] {
        var taskIDs: [String] = []
        var deleted: [String] = []
        var versions: [TouchedTasks.VersionQuery] = []
        var overrides: [TouchedTasks.OverrideKey] = []
        var categories = Set<String>()
        for step in steps {
            switch step.entity {
            case .task:
                taskIDs.append(step.key)
                if step.after == nil { deleted.append(step.key) }
                if let category = step.after?["category"]?.stringValue, categories.insert(category).inserted,
                    let query = try? versionQuery(.statistic, key: category)
                {
                    versions.append(query)
                }
            case .override:
                guard let parsed = ChildRowKey(step.key) else { continue }
                taskIDs.append(parsed.taskID)
                overrides.append(
                    .init(
                        identity: ChangesetApplier.identity(.override, step.key), taskID: parsed.taskID,
                        date: parsed.date.description))
            case .slide:
                guard let parsed = ChildRowKey(step.key) else { continue }
                taskIDs.append(parsed.taskID)
                if let query = try? versionQuery(step.entity, key: step.key) { versions.append(query) }
            case .statistic, .focus, .user: continue
            }
        }
        return try tasks.readAhead(
            tasks: taskIDs, childrenOf: deleted, overrides: overrides, versions: versions, also: also)
    }

    /// The student as stored now (profile and settings), nil when absent.
    func currentProfile(_ key: String) throws(StoreError) -> User? {
        try requireOwnProfile(key)
        return try UserRepository(db).find(key)
    }

    /// A `user` edit is keyed by the changeset's own user: any other key is another user's row.
    private func requireOwnProfile(_ key: String) throws(StoreError) {
        guard key == userID else { throw StoreError.foreignRow(entity: EditEntity.user.rawValue, key: key) }
    }

    /// The student an image of a `user` edit describes (nil for none).
    func profile(_ image: JSONValue?, key: String) throws(StoreError) -> User? {
        guard let image else { return nil }
        let user = try ProfileImage.user(from: image, key: key)
        guard user.id == key else {
            throw StoreError.malformedRow(entity: "user", key: key, problem: "image id differs from key")
        }
        return user
    }

    /// What `currentVersion` must find for the row to look as `image` says.
    static func expectedVersion(of entity: EditEntity, image: JSONValue?) -> Int? {
        guard entity == .focus else { return RowChange.version(of: image) }
        let count = FocusRowKey.count(of: image)
        return count > 0 ? count : nil
    }

    func focusKey(_ key: String) throws(StoreError) -> FocusRowKey {
        guard let parsed = FocusRowKey(key) else {
            throw StoreError.malformedRow(entity: "focus", key: key, problem: "key is not START|MINUTES|CATEGORY")
        }
        return parsed
    }

    /// Whether the task exists; throws when it exists but belongs to another user.
    private func taskOwned(_ taskID: String, entity: EditEntity, key: String) throws(StoreError) -> Bool {
        guard let row = try tasks.row(taskID) else { return false }
        guard row.owner == userID else { throw StoreError.foreignRow(entity: entity.rawValue, key: key) }
        return true
    }

    /// Splits `TASKID@YYYY-MM-DD`.
    func childKey(_ entity: EditEntity, _ key: String) throws(StoreError) -> (String, CivilDate) {
        guard let parsed = ChildRowKey(key) else {
            throw StoreError.malformedRow(entity: entity.rawValue, key: key, problem: "key is not TASKID@YYYY-MM-DD")
        }
        return (parsed.taskID, parsed.date)
    }

    /// The overrides and slides stored for a task before this changeset's writes.
    func storedChildren(ofTask taskID: String) throws(StoreError) -> [Child] {
        try tasks.storedChildren(ofTask: taskID)
    }

    // MARK: Conflicts

    /// The rows that do not look as `steps` expect: the version (or absence) of each touched
    /// row must equal its `before` image's; an override or slide can only be written under a
    /// task that exists or that `steps` creates; a task can only be deleted when the steps
    /// account for all its overrides and slides. Statistic rows are never compared (the
    /// nightly job recomputes their counts). Focus edits compare how many sessions of their
    /// content there are, so sessions recorded since with other content never conflict.
    func conflicts(of steps: [ChangesetEdit]) throws(StoreError) -> [ChangesetConflict.Row] {
        var rows: [ChangesetConflict.Row] = []
        let touched = Set(steps.map { ChangesetApplier.identity($0.entity, $0.key) })
        let createdTasks = Set(steps.filter { $0.entity == .task && $0.after != nil }.map(\.key))
        for step in steps where step.entity != .statistic {
            if step.entity == .user {
                if let row = try profileConflict(step) { rows.append(row) }
                continue
            }
            let expected = ChangesetApplier.expectedVersion(of: step.entity, image: step.before)
            let found = try currentVersion(of: step.entity, key: step.key)
            if step.entity == .override || step.entity == .slide, step.after != nil {
                let (taskID, _) = try childKey(step.entity, step.key)
                // Checked first: such a row can not be written at all, forced or not.
                if !createdTasks.contains(taskID), try tasks.row(taskID) == nil {
                    rows.append(
                        .init(
                            entity: step.entity, key: step.key, expectedVersion: expected, foundVersion: found,
                            kind: .parentMissing))
                    continue
                }
            }
            let mismatch = step.before == nil ? found != nil : (found == nil || expected != found)
            if mismatch {
                rows.append(.init(entity: step.entity, key: step.key, expectedVersion: expected, foundVersion: found))
                continue
            }
            if step.entity == .task && step.after == nil {
                for child in try storedChildren(ofTask: step.key)
                where !touched.contains(ChangesetApplier.identity(child.entity, child.key)) {
                    rows.append(
                        .init(
                            entity: child.entity, key: child.key, expectedVersion: nil,
                            foundVersion: RowChange.version(of: child.image), kind: .unrecordedChild))
                }
            }
        }
        return rows
    }

    /// A `user` edit compares content, not versions (`ProfileImage`): the student must look as
    /// the `before` image says (absent for none), or already as the edit leaves them (after an
    /// undo kept a student who has rows of their own, see `apply`, its redo finds them so). The
    /// row's `expectedVersion` is 0 for "present" (images carry no version), `foundVersion` the
    /// `users` row's version.
    func profileConflict(_ step: ChangesetEdit) throws(StoreError) -> ChangesetConflict.Row? {
        let found = try currentProfile(step.key)
        let expected = try profile(step.before, key: step.key)
        guard found != expected, try found != profile(step.after, key: step.key) else { return nil }
        return .init(
            entity: .user, key: step.key, expectedVersion: expected == nil ? nil : 0,
            foundVersion: try currentVersion(of: .user, key: step.key))
    }

    static func identity(_ entity: EditEntity, _ key: String) -> String { "\(entity.rawValue)|\(key)" }

    // MARK: Statistics

    /// Statistic rows to create: one per category of a task the steps write that has no row
    /// yet for this user (docs/data-format.md §2.7: the first task of a new category creates its statistic).
    func statisticEdits(for steps: [ChangesetEdit]) throws(StoreError) -> [ChangesetEdit] {
        var categories: [String] = []
        for step in steps where step.entity == .task {
            guard let category = step.after?["category"]?.stringValue, !categories.contains(category) else { continue }
            if try currentVersion(of: .statistic, key: category) == nil { categories.append(category) }
        }
        return categories.map {
            ChangesetEdit(
                seq: 0, entity: .statistic, key: $0, before: nil, after: statisticImage(category: $0),
                reason: "first task in category")
        }
    }

    func statisticImage(category: String) -> JSONValue {
        [
            "user": .string(userID), "category": .string(category), "taskCount": 0, "completedCount": 0,
            "completionRate": 0, "focusMinutes": 0,
        ]
    }

    // MARK: Writing

    /// The task an image of a `task` edit describes, checked to be the key's and the user's;
    /// with `version`, that version instead of the image's.
    private func task(key: String, image: JSONValue, version: Int?) throws(StoreError) -> StudyTask {
        var task = try decode(.task, key) { (image) throws(DataError) in try RowImage.task(from: image) }(image)
        guard task.id == key else {
            throw StoreError.malformedRow(entity: "task", key: key, problem: "image id differs from key")
        }
        guard task.userID == userID else { throw StoreError.foreignRow(entity: "task", key: key) }
        if let version { task.version = version }
        return task
    }

    /// Sets the row to `image`, or deletes it when `image` is nil. With `version` (a forced
    /// overwrite of a conflicting row) the row is written with that fresh version instead of
    /// the image's, so every later check sees it changed. `stored`: the conflict check
    /// found the row, so it is updated rather than upserted (see `TaskTable.write`).
    func apply(_ entity: EditEntity, key: String, image: JSONValue?, version: Int? = nil, stored: Bool = false)
        throws(StoreError)
    {
        tasks.forgetVersionsAhead()
        switch entity {
        case .task:
            guard let image else {
                try TaskTable.delete(id: key, in: db)
                return tasks.deleted(key)
            }
            let task = try self.task(key: key, image: image, version: version)
            try TaskTable.write(task, stored: stored, in: db)
            tasks.wrote(task)
        case .override:
            guard let image else {
                let (taskID, date) = try childKey(entity, key)
                return try OverrideTable.delete(taskID: taskID, date: date, in: db)
            }
            try OverrideTable.write(try override(key: key, image: image, version: version), stored: stored, in: db)
        case .slide:
            let (taskID, date) = try childKey(entity, key)
            guard let image else { return try SlideTable.delete(taskID: taskID, from: date, in: db) }
            var s = try decode(entity, key) { (image) throws(DataError) in try RowImage.slide(from: image) }(image)
            guard s.taskID == taskID, s.from == date else {
                throw StoreError.malformedRow(entity: "slide", key: key, problem: "image differs from key")
            }
            try requireTask(taskID, entity: entity, key: key)
            if let version { s.version = version }
            try SlideTable.upsert(s, in: db)
        case .statistic:
            if image != nil {
                try db.send(
                    "INSERT INTO statistics (user_id, category) VALUES (?, ?) ON CONFLICT DO NOTHING",
                    [.text(userID), .text(key)])
            } else {
                // Removed only when no task of the category is left: another changeset may have
                // added one since, and its statistic must survive this undo.
                try db.send(
                    """
                    DELETE FROM statistics WHERE user_id = ?1 AND category = ?2
                    AND NOT EXISTS (SELECT 1 FROM tasks WHERE user_id = ?1 AND category = ?2)
                    """, [.text(userID), .text(key)])
            }
        case .focus:
            let k = try focusKey(key)
            if let owner = image?["user"]?.stringValue, owner != userID {
                throw StoreError.foreignRow(entity: "focus", key: key)
            }
            let target = FocusRowKey.count(of: image)
            let present = try currentVersion(of: .focus, key: key) ?? 0
            let content: [SQLValue] = [
                .text(userID), .text(k.category), .text(k.start.description), .integer(k.minutes),
            ]
            for _ in 0..<max(target - present, 0) {
                try db.execute(
                    "INSERT INTO focus_sessions (user_id, category, start, minutes) VALUES (?, ?, ?, ?)", content)
            }
            if present > target {
                try db.execute(
                    """
                    DELETE FROM focus_sessions WHERE id IN (SELECT id FROM focus_sessions
                        WHERE user_id = ? AND category = ? AND start = ? AND minutes = ? ORDER BY id DESC LIMIT ?)
                    """, content + [.integer(present - target)])
            }
        case .user:
            try applyProfile(key: key, image: image)
        }
    }

    /// The override an edit's image writes, checked against its key and its task.
    private func override(key: String, image: JSONValue, version: Int?) throws(StoreError) -> OccurrenceOverride {
        let (taskID, date) = try childKey(.override, key)
        var o = try decode(.override, key) { (image) throws(DataError) in try RowImage.override(from: image) }(image)
        guard o.taskID == taskID, o.originalDate == date else {
            throw StoreError.malformedRow(entity: "override", key: key, problem: "image differs from key")
        }
        try requireTask(taskID, entity: .override, key: key)
        if let version { o.version = version }
        return o
    }

    /// `apply` of each edit in turn (a row with a before image is stored), except that a run of
    /// writes of one kind one after the other (override upserts, task upserts, task deletes)
    /// goes out as one write of several rows (`OverrideTable.writeAll`, `TaskTable.writeAll`,
    /// `TaskTable.deleteAll`): a night moves a student's sessions mostly by overrides, seven of
    /// them for an average student, and a numbered course by a few tasks at once, and on
    /// PostgreSQL each statement costs the server about what a row does. A run ends at any
    /// other edit, so every row is still written after the task it hangs off and before
    /// anything that follows it.
    func applyAll(_ edits: [ChangesetEdit]) throws(StoreError) {
        // Consecutive writes of one kind (override upserts, task upserts, task deletes) go out
        // together, several rows to a statement on PostgreSQL. Nothing else runs between the
        // writes of a run, so the rows end up as one statement each would leave them.
        var overrides: [(OccurrenceOverride, stored: Bool)] = []
        var written: [(StudyTask, stored: Bool)] = []
        var deleted: [String] = []
        var keys = Set<String>()
        func flush() throws(StoreError) {
            try OverrideTable.writeAll(overrides, in: db)
            try TaskTable.writeAll(written, in: db)
            for row in written { tasks.wrote(row.0) }
            try TaskTable.deleteAll(ids: deleted, in: db)
            for id in deleted { tasks.deleted(id) }
            overrides.removeAll()
            written.removeAll()
            deleted.removeAll()
            keys.removeAll()
        }
        for edit in edits {
            let kind: Int? =
                switch (edit.entity, edit.after) {
                case (.override, _?): 0
                case (.task, _?): 1
                case (.task, nil): 2
                default: nil
                }
            guard let kind else {
                try flush()
                try apply(edit.entity, key: edit.key, image: edit.after, stored: edit.before != nil)
                continue
            }
            let current = !overrides.isEmpty ? 0 : !written.isEmpty ? 1 : !deleted.isEmpty ? 2 : kind
            // The same row twice in one statement is an error on PostgreSQL: the first write
            // goes out alone, then the run starts again.
            if current != kind || !keys.insert(edit.key).inserted {
                try flush()
                keys.insert(edit.key)
            }
            tasks.forgetVersionsAhead()
            switch kind {
            case 0:
                overrides.append((try override(key: edit.key, image: edit.after!, version: nil), edit.before != nil))
            case 1: written.append((try task(key: edit.key, image: edit.after!, version: nil), edit.before != nil))
            default: deleted.append(edit.key)
            }
        }
        try flush()
    }

    /// Writes a `user` edit's image: creates the student (with their settings row), or changes
    /// their profile and settings where they differ. Without an image the student is removed,
    /// unless rows of their own are left that the changeset did not bring (tasks, focus
    /// sessions: the undo of their import runs after everything it brought is gone): those are
    /// the student's, so the student stays, with the profile the import gave.
    private func applyProfile(key: String, image: JSONValue?) throws(StoreError) {
        try requireOwnProfile(key)
        guard let user = try profile(image, key: key) else {
            try db.execute(
                """
                DELETE FROM users WHERE id = ?1
                AND NOT EXISTS (SELECT 1 FROM tasks WHERE user_id = ?1)
                AND NOT EXISTS (SELECT 1 FROM focus_sessions WHERE user_id = ?1)
                """, [.text(key)])
            return
        }
        let users = UserRepository(db)
        guard let current = try users.find(key) else { return try users.add(user, now: now) }
        if current.zone != user.zone || current.language != user.language || current.displayName != user.displayName {
            try users.update(user, now: now)
        }
        if current.settings != user.settings { _ = try users.saveSettings(user.settings, for: key) }
    }

    private func requireTask(_ taskID: String, entity: EditEntity, key: String) throws(StoreError) {
        guard try taskOwned(taskID, entity: entity, key: key) else {
            throw StoreError.malformedRow(
                entity: entity.rawValue, key: key, problem: "its task \(taskID) does not exist")
        }
    }

    private func decode<T>(
        _ entity: EditEntity, _ key: String,
        _ read: @escaping (JSONValue) throws(DataError) -> T
    ) -> (JSONValue) throws(StoreError) -> T {
        { (image) throws(StoreError) -> T in
            do throws(DataError) { return try read(image) } catch {
                throw StoreError.malformedRow(entity: entity.rawValue, key: key, problem: error.description)
            }
        }
    }
}
