import Foundation
import Planning
import Store

/// The nightly recount of a student's per-category statistics (docs/data-format.md §2.7): every
/// non-skipped session whose day has come, and how many of them were completed, over the
/// whole history as it stands once tonight's changeset is committed. Same definition as
/// `replan stats`; the store adds the focus minutes.
///
/// Counting the whole history every night would make a student's night cost grow with every
/// day of use, so the count is split by start date at the night's loaded window:
/// `counts = base (sessions through a settled date, stored) + sessions after it`. Tonight's
/// window is already in memory; only the days between the stored base and the window (one
/// day, on consecutive nights) are read. The whole history is read only when there is no
/// valid base: the first night, or after a write reached back to or before the base's date
/// (`StatisticsBaseRepository` drops it then). Both ways give the same numbers.
package enum StatisticsRefresh {
    /// What a night stores: the counts, and the base to settle for the next nights.
    package struct Night: Sendable {
        package var counts: [String: CategoryCount]
        /// The settled counts through `baseThrough` (the day before tonight's window).
        package var base: [String: CategoryCount]
        package var baseThrough: CivilDate
        /// The base serial the counts were read with; the writer stores `base` only if it is
        /// unchanged.
        package var readSerial: Int
        /// Whether the whole history was read (no valid base).
        package var fromScratch: Bool
    }

    /// What the recount reads besides the night's window, in the window's snapshot
    /// (`NightRead`).
    package struct Source: Sendable {
        /// The base as stored when the night read its plan.
        package var stored: StatisticsBase
        /// The whole plan, read when there was no usable base.
        package var whole: UserPlan?
        /// The one-off tasks that start in the days between the base and the window, read when
        /// the window's own series rows cover those days: `loadPlan(user:window:)` reads every
        /// series with all its slides, and its overrides from `overrideMarginDays` (and the
        /// series' spans) before the window on, which includes every override whose session can
        /// start in days no further back than the margin.
        package var gapOneOffs: [StudyTask]?

        package init(stored: StatisticsBase, whole: UserPlan? = nil, gapOneOffs: [StudyTask]? = nil) {
            self.stored = stored
            self.whole = whole
            self.gapOneOffs = gapOneOffs
        }

        static func windowCoversSeries(ofGapFrom gapStart: CivilDate, window: ClosedRange<CivilDate>) -> Bool {
            gapStart >= window.lowerBound.adding(days: -PlanRepository.overrideMarginDays)
        }
    }

    /// Recounts and stores a student's statistics as the database holds them now (after an
    /// undo or redo, say).
    package static func recount(userID: String, today: CivilDate, db: any SQLExecutor) throws(StoreError) {
        let full = try PlanRepository(db).loadPlan(userID: userID, window: nil)
        try StatisticsRepository(db).recompute(userID: userID, counts: counts(of: full, from: nil, through: today))
    }

    /// Tonight's counts of `user`, whose plan was loaded as `original` for the window from
    /// `windowStart` and stands as `after` once tonight's `changes` (not yet committed) are;
    /// `source` is what was read with it, `db` the night's reader (for what `source` lacks).
    static func night(
        user: User, planDate: CivilDate, windowStart: CivilDate, original: UserPlan, after: UserPlan,
        changes: [RowChange], source: Source, db: any SQLExecutor
    ) throws(StoreError) -> Night {
        let settled = windowStart.adding(days: -1)
        let stored = source.stored

        if let through = stored.through, through <= settled,
            sessionsUnchanged(original, after, by: changes, through: settled)
        {
            // The stored base, plus the days between it and tonight's window, read from the
            // database as they are (tonight's changes leave them alone).
            var base = stored.counts
            if through < settled {
                let gap = through.adding(days: 1)...settled
                let plan: UserPlan
                if let oneOffs = source.gapOneOffs {
                    plan = original.replacingOneOffTasks(with: oneOffs)
                } else {
                    plan = try PlanRepository(db).loadPlan(user: user, window: gap)
                }
                base = sum(base, counts(of: plan, from: gap.lowerBound, through: gap.upperBound))
            }
            return Night(
                counts: sum(base, counts(of: after, from: windowStart, through: planDate)), base: base,
                baseThrough: settled, readSerial: stored.serial, fromScratch: false)
        }

        let loaded: UserPlan
        if let whole = source.whole {
            loaded = whole
        } else {
            loaded = try PlanRepository(db).loadPlan(user: user, window: nil)
        }
        let full: UserPlan
        do { full = try loaded.applying(changes) } catch {
            throw StoreError.malformedRow(entity: "changeset", key: user.id, problem: error.description)
        }
        let base = counts(of: full, from: nil, through: settled)
        return Night(
            counts: sum(base, counts(of: full, from: windowStart, through: planDate)), base: base, baseThrough: settled,
            readSerial: stored.serial, fromScratch: true)
    }

    /// Whether `changes` leave every session that starts on or before `through` as it was: the
    /// sessions of both plans from the earliest date the changes can reach are compared
    /// (nothing reaches that far back on most nights). The loaded plans may lack old rows the
    /// night did not need; those are the same on both sides, and a session they would have
    /// kept in place only makes the comparison see a difference and count from scratch.
    static func sessionsUnchanged(_ original: UserPlan, _ after: UserPlan, by changes: [RowChange], through: CivilDate)
        -> Bool
    {
        let backward = { (taskID: String) -> Int in
            (original.slides[taskID] ?? []).reduce(0) { $0 + max(-$1.days, 0) }
        }
        guard
            let earliest = ChangesetEdit.earliestAffectedDate(
                of: changes.map { ChangesetEdit(seq: 0, $0) }, backwardShift: backward),
            earliest <= through
        else { return true }
        func sessions(_ plan: UserPlan) -> [Occurrence] {
            plan.occurrences(from: earliest, through: through).filter {
                $0.start.date >= earliest && $0.start.date <= through
            }
        }
        let key = { (o: Occurrence) in Session(id: o.id, start: o.start, state: o.state, category: o.category) }
        return Set(sessions(original).map(key)) == Set(sessions(after).map(key))
    }

    /// What of a session the statistics depend on.
    private struct Session: Hashable {
        var id: OccurrenceID
        var start: CivilDateTime
        var state: OccurrenceState
        var category: String
    }

    /// Counts of the sessions of `plan` that start in `from … through` (`from` nil: since the
    /// plan's first task).
    static func counts(of plan: UserPlan, from: CivilDate?, through: CivilDate) -> [String: CategoryCount] {
        guard let first = from ?? CategoryStatistics.firstDate(of: plan, focusSessions: []), first <= through else {
            return [:]
        }
        var counts: [String: CategoryCount] = [:]
        for s in CategoryStatistics.compute(plan: plan, focusSessions: [], from: first, through: through)
        where s.taskCount > 0 {
            counts[s.category] = CategoryCount(tasks: s.taskCount, completed: s.completedCount)
        }
        return counts
    }

    static func sum(_ a: [String: CategoryCount], _ b: [String: CategoryCount]) -> [String: CategoryCount] {
        a.merging(b) { CategoryCount(tasks: $0.tasks + $1.tasks, completed: $0.completed + $1.completed) }
    }
}
