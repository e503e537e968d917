import Planning

/// The task rows one changeset touches, read once inside its write transaction: each task's
/// owner and version (for the ownership and version checks of the task's own edit and of every
/// override and slide under it), the backward reach of its stored slides (for the statistics
/// base), and the overrides and slides stored under it (for deleting it). The checks used to
/// look the same task up again for every row and every check: three times for each override
/// a night writes, once more for its series' slides.
///
/// The applier reports its own task writes here, so owner and version answer as the table
/// would at every point of the transaction. The slide reach and the children are those stored
/// before the changeset's writes, which is what their callers ask for (they read before
/// writing); nothing but the changeset writes in between (the transaction holds the write lock).
final class TouchedTasks {
    struct Row {
        var owner: String
        var version: Int
        /// How many days the task's stored slides can move a session back in all
        /// (`sum(-min(days, 0))`); 0 for a task without slides.
        var backwardShift: Int
    }

    private let db: any SQLExecutor
    /// nil: known to be absent.
    private var rows: [String: Row?] = [:]
    private var children: [String: [ChangesetApplier.Child]] = [:]

    init(db: any SQLExecutor) { self.db = db }

    /// The task's row, or nil when no task has this id (task ids are global: it may be
    /// another user's).
    func row(_ taskID: String) throws(StoreError) -> Row? {
        if let known = rows[taskID] { return known }
        // SQLite's two-argument min is PostgreSQL's least.
        let least = db.engine == .sqlite ? "min" : "least"
        let row = try db.queryFirst(
            """
            SELECT user_id, version, (SELECT coalesce(sum(-\(least)(days, 0)), 0) FROM series_slides WHERE task_id = ?1)
            FROM tasks WHERE id = ?1
            """, [.text(taskID)]
        ) { Row(owner: $0.text(0), version: $0.int(1), backwardShift: $0.int(2)) }
        rows[taskID] = .some(row)
        return row
    }

    /// The overrides and slides stored under the task before the changeset's writes.
    func storedChildren(ofTask taskID: String) throws(StoreError) -> [ChangesetApplier.Child] {
        if let known = children[taskID] { return known }
        let overrides = try OverrideTable.all(taskID: taskID, in: db).map {
            ChangesetApplier.Child(entity: .override, key: $0.occurrenceID.description, image: RowImage.override($0))
        }
        let slides = try SlideTable.all(taskID: taskID, in: db).map {
            ChangesetApplier.Child(entity: .slide, key: $0.key, image: RowImage.slide($0))
        }
        children[taskID] = overrides + slides
        return overrides + slides
    }

    /// The applier wrote the task (inserted or updated).
    func wrote(_ task: StudyTask) {
        let shift = rows[task.id]??.backwardShift ?? 0
        rows[task.id] = .some(Row(owner: task.userID, version: task.version, backwardShift: shift))
    }

    /// The applier deleted the task.
    func deleted(_ taskID: String) {
        rows[taskID] = .some(nil)
    }
}
