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

    /// An override whose version to read ahead, by its identity (`ChangesetApplier.identity`).
    struct OverrideKey {
        var identity: String
        var taskID: String
        var date: String
    }

    /// Reads as one batch (`queryEach`: one round trip on PostgreSQL, instead of one per row)
    /// the rows of `taskIDs` not read yet, the stored children of `parents`, the versions of
    /// `overrides` and the versions `versions` ask for, and runs the caller's `also` queries
    /// with them (each answers integers in its first column).
    /// - Returns: the rows of each `also` query, in order.
    ///
    /// Tasks and override versions go several rows to a statement (groups of 32, 16, …, 1:
    /// `rowGroups`): a night's student reads a dozen of each, and a server spends on a
    /// statement about what it spends on a row (docs/benchmark.md). The rows they answer are
    /// those the one-at-a-time reads (`row`, `ChangesetApplier.currentVersion`) would give.
    @discardableResult
    func readAhead(
        tasks taskIDs: [String], childrenOf parents: [String], overrides: [OverrideKey], versions: [VersionQuery],
        also: [(sql: String, values: [SQLValue])] = []
    ) throws(StoreError) -> [[Int]] {
        let taskIDs = Array(Set(taskIDs.filter { rows[$0] == nil })).sorted()
        let parents = Array(Set(parents.filter { children[$0] == nil })).sorted()
        var seen = Set<String>()
        let overrides = overrides.filter { versionsAhead[$0.identity] == nil && seen.insert($0.identity).inserted }
        // A single read saves nothing: the checks read it when they need it.
        guard taskIDs.count + 2 * parents.count + overrides.count + versions.count + also.count > 1 else {
            return try also.map { (q) throws(StoreError) in try db.query(q.sql, q.values) { $0.int(0) } }
        }
        var queries: [(sql: String, values: [SQLValue])] = also
        var kinds: [Kind] = also.indices.map { .also($0) }
        for group in rowGroups(taskIDs.count) {
            queries.append((rowsSQL(group.count), taskIDs[group].map { .text($0) }))
            kinds.append(.tasks)
        }
        for group in rowGroups(overrides.count) {
            let arguments: [SQLValue] = overrides[group].flatMap { [.text($0.taskID), .text($0.date)] }
            queries.append((Self.overrideVersionsSQL(group.count), arguments))
            kinds.append(.overrideVersions)
        }
        // The children of several deleted tasks to a statement, in each task's order.
        for group in rowGroups(parents.count) {
            let ids = parents[group].map { SQLValue.text($0) }
            let list = placeholders(group.count)
            queries.append(
                (
                    "SELECT \(OverrideTable.columns) FROM occurrence_overrides WHERE task_id IN (\(list)) "
                        + "ORDER BY task_id, original_date", ids
                ))
            kinds.append(.overridesOf)
            queries.append(
                (
                    "SELECT \(SlideTable.columns) FROM series_slides WHERE task_id IN (\(list)) "
                        + "ORDER BY task_id, from_date", ids
                ))
            kinds.append(.slidesOf)
        }
        for i in versions.indices {
            queries.append((versions[i].sql, versions[i].values))
            kinds.append(.version(i))
        }
        let answers = try db.queryEach(queries) { (index, s) throws(StoreError) -> ReadAhead in
            switch kinds[index] {
            case .tasks: .task(id: s.text(0), Row(owner: s.text(1), version: s.int(2), backwardShift: s.int(3)))
            case .overrideVersions: .overrideVersion(taskID: s.text(0), date: s.text(1), s.int(2))
            case .overridesOf: .override(try OverrideTable.decode(s))
            case .slidesOf: .slide(try SlideTable.decode(s))
            case .version: .version(s.int(0))
            case .also: .also(s.int(0))
            }
        }
        var alsoRows = Array(repeating: [Int](), count: also.count)
        for id in taskIDs { rows[id] = .some(nil) }
        var identities: [String: String] = [:]
        for o in overrides {
            versionsAhead[o.identity] = .some(nil)
            identities[o.taskID + "@" + o.date] = o.identity
        }
        var overridesOf: [String: [OccurrenceOverride]] = [:]
        var slidesOf: [String: [SeriesSlide]] = [:]
        for (index, rowsOfQuery) in answers.enumerated() {
            for answer in rowsOfQuery {
                switch (kinds[index], answer) {
                case (.tasks, .task(let id, let row)): rows[id] = .some(row)
                case (.overrideVersions, .overrideVersion(let taskID, let date, let version)):
                    if let identity = identities[taskID + "@" + date] { versionsAhead[identity] = .some(version) }
                case (.overridesOf, .override(let o)): overridesOf[o.taskID, default: []].append(o)
                case (.slidesOf, .slide(let slide)): slidesOf[slide.taskID, default: []].append(slide)
                case (.version(let i), .version(let version)):
                    let identity = versions[i].identity
                    if versionsAhead[identity] == nil { versionsAhead[identity] = .some(version) }
                case (.also(let i), .also(let value)): alsoRows[i].append(value)
                default: continue
                }
            }
        }
        for id in parents {
            children[id] = Self.children(overrides: overridesOf[id] ?? [], slides: slidesOf[id] ?? [])
        }
        for v in versions where versionsAhead[v.identity] == nil { versionsAhead[v.identity] = .some(nil) }
        return alsoRows
    }

    /// The task rows of `count` ids (`row`'s columns, the id first).
    private func rowsSQL(_ count: Int) -> String {
        let least = db.engine == .sqlite ? "min" : "least"
        return """
            SELECT t.id, t.user_id, t.version,
                (SELECT coalesce(sum(-\(least)(s.days, 0)), 0) FROM series_slides s WHERE s.task_id = t.id)
            FROM tasks t WHERE t.id IN (\(repeatElement("?", count: count).joined(separator: ", ")))
            """
    }

    /// The versions of `count` overrides, by key. An `OR` of keys rather than a row-value `IN`:
    /// both engines look each key up in the primary key (SQLite scans the table for `IN (VALUES …)`).
    private static func overrideVersionsSQL(_ count: Int) -> String {
        "SELECT task_id, original_date, version FROM occurrence_overrides WHERE "
            + repeatElement("(task_id = ? AND original_date = ?)", count: count).joined(separator: " OR ")
    }

    /// What a statement of the read ahead reads.
    private enum Kind {
        case tasks
        case overrideVersions
        case overridesOf
        case slidesOf
        case version(Int)
        case also(Int)
    }

    /// One row of a batch `readAhead` sent.
    private enum ReadAhead {
        case task(id: String, Row)
        case overrideVersion(taskID: String, date: String, Int)
        case override(OccurrenceOverride)
        case slide(SeriesSlide)
        case version(Int)
        case also(Int)
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
