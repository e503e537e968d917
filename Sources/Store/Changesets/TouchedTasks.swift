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
        let row = try db.queryFirst(rowSQL, [.text(taskID)]) { Self.decodeRow($0) }
        rows[taskID] = .some(row)
        return row
    }

    private var rowSQL: String {
        // SQLite's two-argument min is PostgreSQL's least.
        let least = db.engine == .sqlite ? "min" : "least"
        return """
            SELECT user_id, version, (SELECT coalesce(sum(-\(least)(days, 0)), 0) FROM series_slides WHERE task_id = ?1)
            FROM tasks WHERE id = ?1
            """
    }

    private static func decodeRow(_ s: any SQLRow) -> Row {
        Row(owner: s.text(0), version: s.int(1), backwardShift: s.int(2))
    }

    /// The overrides and slides stored under the task before the changeset's writes.
    func storedChildren(ofTask taskID: String) throws(StoreError) -> [ChangesetApplier.Child] {
        if let known = children[taskID] { return known }
        let found = Self.children(
            overrides: try OverrideTable.all(taskID: taskID, in: db), slides: try SlideTable.all(taskID: taskID, in: db)
        )
        children[taskID] = found
        return found
    }

    private static func children(overrides: [OccurrenceOverride], slides: [SeriesSlide]) -> [ChangesetApplier.Child] {
        overrides.map {
            ChangesetApplier.Child(entity: .override, key: $0.occurrenceID.description, image: RowImage.override($0))
        }
            + slides.map { ChangesetApplier.Child(entity: .slide, key: $0.key, image: RowImage.slide($0)) }
    }

    // MARK: Reading ahead

    /// Versions read ahead (`readAhead`) by `ChangesetApplier.identity`, nil for an absent
    /// row; true only until the changeset's first write, which forgets them.
    private var versionsAhead: [String: Int?] = [:]

    /// The version read ahead for the row, if it was (`.some(nil)`: read ahead, absent).
    func versionAhead(_ identity: String) -> Int?? { versionsAhead[identity] }

    func forgetVersionsAhead() { versionsAhead.removeAll() }

    /// A version to read ahead: the row's identity and the query that gives it.
    struct VersionQuery {
        var identity: String
        var sql: String
        var values: [SQLValue]
    }

    /// Reads as one batch (`queryEach`: one round trip on PostgreSQL, instead of one per row)
    /// the rows of `taskIDs` not read yet, the stored children of `parents` and the versions
    /// `versions` ask for, with the same statements the one-at-a-time reads run.
    func readAhead(tasks taskIDs: [String], childrenOf parents: [String], versions: [VersionQuery])
        throws(StoreError)
    {
        let taskIDs = Array(Set(taskIDs.filter { rows[$0] == nil })).sorted()
        let parents = Array(Set(parents.filter { children[$0] == nil })).sorted()
        var queries: [(sql: String, values: [SQLValue])] = taskIDs.map { (rowSQL, [.text($0)]) }
        for id in parents {
            queries.append((OverrideTable.allSQL, [.text(id)]))
            queries.append((SlideTable.allSQL, [.text(id)]))
        }
        queries += versions.map { ($0.sql, $0.values) }
        // A single read saves nothing: the checks read it when they need it.
        guard queries.count > 1 else { return }
        let childrenStart = taskIDs.count
        let versionsStart = childrenStart + 2 * parents.count
        let answers = try db.queryEach(queries) { (index, s) throws(StoreError) -> ReadAhead in
            if index < childrenStart { return .task(Self.decodeRow(s)) }
            if index < versionsStart {
                return (index - childrenStart) % 2 == 0
                    ? .override(try OverrideTable.decode(s)) : .slide(try SlideTable.decode(s))
            }
            return .version(s.int(0))
        }
        for (i, id) in taskIDs.enumerated() {
            guard case .task(let row)? = answers[i].first else {
                rows[id] = .some(nil)
                continue
            }
            rows[id] = .some(row)
        }
        for (i, id) in parents.enumerated() {
            let overrides = answers[childrenStart + 2 * i].compactMap {
                if case .override(let o) = $0 { o } else { nil }
            }
            let slides = answers[childrenStart + 2 * i + 1].compactMap { if case .slide(let s) = $0 { s } else { nil } }
            children[id] = Self.children(overrides: overrides, slides: slides)
        }
        for (i, v) in versions.enumerated() {
            guard case .version(let version)? = answers[versionsStart + i].first else {
                versionsAhead[v.identity] = .some(nil)
                continue
            }
            versionsAhead[v.identity] = .some(version)
        }
    }

    /// One row of a batch `readAhead` sent.
    private enum ReadAhead {
        case task(Row)
        case override(OccurrenceOverride)
        case slide(SeriesSlide)
        case version(Int)
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
