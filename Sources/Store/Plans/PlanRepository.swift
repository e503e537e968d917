import Planning

/// Reads one user's plan (tasks, overrides, slides) into a `UserPlan` working copy, and looks
/// tasks up by their global id. Writing goes through `ChangesetStore`.
package struct PlanRepository {
    let db: any SQLExecutor

    package init(_ db: any SQLExecutor) { self.db = db }

    /// Days of slack before the window when selecting overrides of series (see `loadPlan`).
    /// Overrides before it are not loaded, so the working copy can not see them; a changeset
    /// that nevertheless creates one of them conflicts rather than overwriting it.
    package static let overrideMarginDays = 7

    /// "The task is a series". The schema's CHECK allows only `daily`, `weekly` and `monthly`
    /// besides NULL, so this says the same as listing them; SQLite builds a temporary b-tree
    /// for every execution of an `IN (…)` list, a range on `tasks_by_user_kind_end` costs
    /// nothing extra.
    static let seriesCondition = "repeat_every IS NOT NULL"

    /// Loads a user's plan in one read snapshot.
    ///
    /// - `window == nil` loads everything (export).
    /// - With a window: every series of the user with all its slides; of the series' overrides
    ///   those whose original date is at or after the earliest one the expander could look at
    ///   for the window (its start moved back by the series' span and its forward slides) or
    ///   whose moved place ends at or after the window's start, each moved back by
    ///   `overrideMarginDays`, however far in the future they lie (see `seriesOverrides`); and
    ///   the one-off tasks that end in the window or later, however far ahead (the rules check
    ///   a placement against whatever is busy on its day, docs/planning.md G1; one-off tasks are
    ///   few), plus every open one-off task before it: the nightly rules look at all of those,
    ///   however old, so a forgotten session is dropped rather than kept forever. The plan's
    ///   `historyFrom` says from which original date on the series' overrides are all there.
    ///
    /// Decision: the queries ask for no order. `UserPlan` keeps rows in dictionaries (and sorts
    /// each series' slides itself), so the order rows arrive in changes nothing, and an
    /// `ORDER BY` that no index provides costs SQLite a sorter per query.
    /// - Throws: `.unknownUser`.
    package func loadPlan(userID: String, window: ClosedRange<CivilDate>?) throws(StoreError) -> UserPlan {
        try db.read { (db) throws(StoreError) -> UserPlan in
            try PlanRepository(db).loadPlan(user: try UserRepository(db).get(userID), window: window)
        }
    }

    /// `loadPlan(userID:window:)` for a user the caller has already read (the nightly job reads
    /// each user once, while streaming them, instead of decoding the row and its settings again).
    package func loadPlan(user: User, window: ClosedRange<CivilDate>?) throws(StoreError) -> UserPlan {
        try db.read { (db) throws(StoreError) -> UserPlan in
            let userID = user.id
            guard let window else { return try everything(of: user) }
            // The series, their slides and the one-off tasks in one batch (one round trip on
            // PostgreSQL); the overrides wanted depend on the series and slides, so they follow.
            let rows = try Self.rows(
                [
                    (
                        "SELECT \(TaskTable.columns) FROM tasks WHERE user_id = ? AND \(PlanRepository.seriesCondition)",
                        [.text(userID)], .task
                    ),
                    (Self.seriesSlidesSQL, [.text(userID)], .slide),
                    (
                        """
                        SELECT \(TaskTable.columns) FROM tasks
                        WHERE user_id = ? AND repeat_every IS NULL AND ("end" >= ? OR completed = 0)
                        """, [.text(userID), .text(window.lowerBound.description)], .task
                    ),
                ], in: db)
            let series = rows[0].tasks
            let slides = rows[1].slides
            let selection = WindowSelection(window: window, series: series, slides: slides)
            let overrides = try seriesOverrides(userID: userID, series: series, selection: selection)
            let oneOffs = rows[2].tasks.filter(selection.keeps)
            return UserPlan(
                user: user, tasks: series + oneOffs, overrides: overrides, slides: slides,
                historyFrom: selection.overridesFrom)
        }
    }

    /// The part of a whole plan (`loadPlan(user:window: nil)`) that `loadPlan(user:window:)`
    /// reads for `window`: the same rows, chosen by the same `WindowSelection`. The nightly job
    /// reads a student's whole history once anyway when it settles their statistics base, and
    /// takes the window from it instead of reading it a second time.
    package static func window(_ window: ClosedRange<CivilDate>, of whole: UserPlan) -> UserPlan {
        let series = whole.tasks.values.filter { $0.repeatRule != nil }
        let slides = series.flatMap { whole.slides[$0.id] ?? [] }
        let selection = WindowSelection(window: window, series: series, slides: slides)
        let seriesIDs = Set(series.map(\.id))
        let overrides = whole.overrides.values.filter { seriesIDs.contains($0.taskID) && selection.keeps($0) }
        let oneOffs = whole.tasks.values.filter { $0.repeatRule == nil && selection.keeps($0) }
        return UserPlan(
            user: whole.user, tasks: series + oneOffs, overrides: overrides, slides: slides,
            historyFrom: selection.overridesFrom)
    }

    /// The one-off tasks of a user whose sessions start in `days` (the nightly statistics count
    /// the days between a stored base and the window with them).
    package func oneOffTasks(userID: String, startingIn days: ClosedRange<CivilDate>) throws(StoreError) -> [StudyTask]
    {
        // `end` bounds the index range (a task starting in the days ends on or after their first).
        try db.query(
            """
            SELECT \(TaskTable.columns) FROM tasks
            WHERE user_id = ? AND repeat_every IS NULL AND "end" >= ?2 AND start >= ?2 AND start < ?3
            """,
            [.text(userID), .text(days.lowerBound.description), .text(days.upperBound.adding(days: 1).description)]
        ) {
            (s) throws(StoreError) in try TaskTable.decode(s)
        }
    }

    /// Every task of the user, and the overrides and slides of their series: all that the
    /// nightly rules and statistics can see of a plan (a one-off task's occurrence is the task
    /// itself; no override or slide applies to it). Reading one-off tasks' children too (as
    /// `everything` does, for export) probes both tables once per one-off task, most of a
    /// student's tasks, for rows that change nothing.
    package func wholePlanAsTheRulesSeeIt(of user: User) throws(StoreError) -> UserPlan {
        try db.read { (db) throws(StoreError) -> UserPlan in
            let id: [SQLValue] = [.text(user.id)]
            let rows = try Self.rows(
                [
                    ("SELECT \(TaskTable.columns) FROM tasks WHERE user_id = ?", id, .task),
                    (
                        """
                        SELECT \(OverrideTable.aliasedColumns) FROM occurrence_overrides o JOIN tasks t ON t.id = o.task_id
                        WHERE t.user_id = ? AND t.\(PlanRepository.seriesCondition)
                        """, id, .override
                    ),
                    (Self.seriesSlidesSQL, id, .slide),
                ], in: db)
            return UserPlan(user: user, tasks: rows[0].tasks, overrides: rows[1].overrides, slides: rows[2].slides)
        }
    }

    /// Every slide of the user's series.
    private static let seriesSlidesSQL = """
        SELECT \(SlideTable.aliasedColumns) FROM series_slides s JOIN tasks t ON t.id = s.task_id
        WHERE t.user_id = ? AND t.\(PlanRepository.seriesCondition)
        """

    private func everything(of user: User) throws(StoreError) -> UserPlan {
        let id: [SQLValue] = [.text(user.id)]
        let rows = try Self.rows(
            [
                ("SELECT \(TaskTable.columns) FROM tasks WHERE user_id = ?", id, .task),
                (
                    """
                    SELECT \(OverrideTable.aliasedColumns) FROM occurrence_overrides o JOIN tasks t ON t.id = o.task_id
                    WHERE t.user_id = ?
                    """, id, .override
                ),
                (
                    """
                    SELECT \(SlideTable.aliasedColumns) FROM series_slides s JOIN tasks t ON t.id = s.task_id
                    WHERE t.user_id = ?
                    """, id, .slide
                ),
            ], in: db)
        return UserPlan(user: user, tasks: rows[0].tasks, overrides: rows[1].overrides, slides: rows[2].slides)
    }

    // MARK: Reading several row kinds in one batch

    private enum RowKind { case task, override, slide }

    /// What one query of a batch answered: the rows of its kind, the other two empty.
    private struct Rows {
        var tasks: [StudyTask] = []
        var overrides: [OccurrenceOverride] = []
        var slides: [SeriesSlide] = []
    }

    private enum Row {
        case task(StudyTask)
        case override(OccurrenceOverride)
        case slide(SeriesSlide)
    }

    /// Runs queries of which none needs another's answer as one `queryEach` (one round trip on
    /// PostgreSQL instead of one each), each row decoded as its query's `kind` says.
    private static func rows(
        _ queries: [(sql: String, values: [SQLValue], kind: RowKind)], in db: any SQLExecutor
    ) throws(StoreError) -> [Rows] {
        let answers = try db.queryEach(queries.map { ($0.sql, $0.values) }) { (index, s) throws(StoreError) -> Row in
            switch queries[index].kind {
            case .task: .task(try TaskTable.decode(s))
            case .override: .override(try OverrideTable.decode(s))
            case .slide: .slide(try SlideTable.decode(s))
            }
        }
        return answers.map { answer in
            var rows = Rows()
            for row in answer {
                switch row {
                case .task(let t): rows.tasks.append(t)
                case .override(let o): rows.overrides.append(o)
                case .slide(let slide): rows.slides.append(slide)
                }
            }
            return rows
        }
    }

    /// The overrides of the user's series that the window can need (see `loadPlan`).
    ///
    /// Decision: bounded below only. The window bounds what the nightly rules start from, not
    /// what they may write: a series slide (docs/planning.md §4.4) moves the whole tail of the series
    /// from s1's original date on, pins every completed occurrence of that tail, and re-places
    /// slid occurrences that collide as far as its busy index grows, which has no fixed end (a
    /// daily series re-placed into weekday windows falls further behind every week). An
    /// override the working copy did not load looks absent there: the rules would move a
    /// completed occurrence along with the slide, or create the override again and conflict
    /// with their own earlier night, every night. History stays bounded (an override whose
    /// original date and place both lie before the window is not read); the future holds only
    /// what students and earlier nights wrote ahead.
    private func seriesOverrides(userID: String, series: [StudyTask], selection: WindowSelection) throws(StoreError)
        -> [OccurrenceOverride]
    {
        guard !series.isEmpty else { return [] }
        // The second part takes only what the first leaves out (older original dates), so the
        // two are disjoint and UNION ALL needs no de-duplicating b-tree. The first is a range of
        // the primary key; the second is pinned to the partial index on moved overrides, which
        // SQLite would otherwise trade for a scan of the series' whole history by primary key.
        // PostgreSQL has no such hint and picks the partial index by its statistics.
        let hint = db.engine == .sqlite ? "INDEXED BY occurrence_overrides_moved" : ""
        return try db.query(
            """
            SELECT \(OverrideTable.aliasedColumns) FROM occurrence_overrides o JOIN tasks t ON t.id = o.task_id
            WHERE t.user_id = ?1 AND t.\(PlanRepository.seriesCondition) AND o.original_date >= ?2
            UNION ALL
            SELECT \(OverrideTable.aliasedColumns) FROM occurrence_overrides o \(hint)
                JOIN tasks t ON t.id = o.task_id
            WHERE t.user_id = ?1 AND t.\(PlanRepository.seriesCondition) AND o.start IS NOT NULL AND o."end" >= ?3
                AND o.original_date < ?2
            """,
            [.text(userID), .text(selection.overridesFrom.description), .text(selection.movedEndingFrom.description)]
        ) {
            (s) throws(StoreError) in try OverrideTable.decode(s)
        }
    }

    /// A task by its id (ids are global across users), or nil.
    package func task(id: String) throws(StoreError) -> StudyTask? {
        try TaskTable.find(id: id, in: db)
    }

    /// The user owning a task, or nil when no task has this id.
    package func taskOwner(taskID: String) throws(StoreError) -> String? {
        try TaskTable.ownerAndVersion(id: taskID, in: db)?.owner
    }

    /// Every override of a task, by original date.
    package func overrides(taskID: String) throws(StoreError) -> [OccurrenceOverride] {
        try OverrideTable.all(taskID: taskID, in: db)
    }

    /// Every slide of a series, by from date.
    package func slides(taskID: String) throws(StoreError) -> [SeriesSlide] {
        try SlideTable.all(taskID: taskID, in: db)
    }
}
