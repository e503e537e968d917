import Assistant
import Planning
import Store

/// Everything one student's night reads before planning, in one read transaction: the plan
/// for the night's window and what tonight's statistics recount needs besides it
/// (`StatisticsRefresh.Source`). One snapshot for both, so the counts and the plan they are
/// added to can not disagree, and no row is read twice:
///
/// - no usable statistics base (the first night, after an edit that reached back into settled
///   days, or after more than `windowHistoryDays` nights without a run): the whole plan is
///   read, once (as the rules see it: `PlanRepository.wholePlanAsTheRulesSeeIt`), and the rules
///   get all of it, so every stale session of its history is dropped (docs/planning.md §2);
/// - a base a few days old (normally yesterday's): the window, and the one-off tasks that
///   start in the days between the base and the window; the window's series rows already
///   cover those days (see `StatisticsRefresh.Source.gapOneOffs`);
/// - a base up to `windowHistoryDays` older: the window; the recount reads the days in between
///   itself.
struct NightRead {
    /// How many settled days a window read may lag behind the last night's base: the window
    /// holds every series override from about a week before its start
    /// (`PlanRepository.overrideMarginDays`), so stale sessions of those days are still seen.
    static let windowHistoryDays = 7

    let plan: UserPlan
    let statistics: StatisticsRefresh.Source
    /// What the model last reviewed (the call policy's memory): one primary-key lookup.
    var memory: ModelMemory?
    /// The model's edits the student undid under the instruction they have now.
    var takenBack = TakenBack(edits: [])

    private enum Opening {
        case memory(ModelMemory?)
        case base(StatisticsBaseRepository.StoredRow)
    }

    static func read(user: User, window: ClosedRange<CivilDate>, db: any SQLExecutor) throws(StoreError) -> NightRead {
        try db.read { (db) throws(StoreError) -> NightRead in
            // Two lookups by primary key, one batch (one round trip on PostgreSQL, with the
            // transaction's BEGIN).
            let id: [SQLValue] = [.text(user.id)]
            let opening = try db.queryEach(
                [(ModelMemoryRepository.memorySQL, id), (StatisticsBaseRepository.baseSQL, id)]
            ) { (index, s) -> Opening in
                index == 0
                    ? .memory(ModelMemoryRepository.decodeMemory(s)) : .base(StatisticsBaseRepository.StoredRow(s))
            }
            var memory: ModelMemory?
            if case .memory(let found)? = opening[0].first { memory = found }
            var storedRow: StatisticsBaseRepository.StoredRow?
            if case .base(let row)? = opening[1].first { storedRow = row }
            let stored = try StatisticsBaseRepository.base(storedRow, userID: user.id)
            let takenBack = try UserPipeline.takenBack(of: user, db: db)
            let settled = window.lowerBound.adding(days: -1)
            let plans = PlanRepository(db)
            // The window's history reaches about a week behind its start; a base older than that
            // means nights were missed (downtime, auto-update off) or deleteAfterDays was
            // shortened, and the stale sessions of those days are only found in the whole plan
            // (docs/planning.md §2: every one is dropped).
            guard let through = stored.through, through <= settled,
                through >= settled.adding(days: -NightRead.windowHistoryDays)
            else {
                let whole = try plans.wholePlanAsTheRulesSeeIt(of: user)
                return NightRead(
                    plan: whole, statistics: StatisticsRefresh.Source(stored: stored, whole: whole), memory: memory,
                    takenBack: takenBack)
            }
            var plan = try plans.loadPlan(user: user, window: window)
            // A kept category's stale sessions stay open, and its flag counts all of them
            // (docs/planning.md §11.7): those few series get their whole history.
            for id in plan.seriesWantingWholeHistory {
                plan.addWholeHistory(ofSeries: id, overrides: try plans.overrides(taskID: id))
            }
            var source = StatisticsRefresh.Source(stored: stored)
            let gapStart = through.adding(days: 1)
            if gapStart <= settled, StatisticsRefresh.Source.windowCoversSeries(ofGapFrom: gapStart, window: window) {
                source.gapOneOffs = try plans.oneOffTasks(userID: user.id, startingIn: gapStart...settled)
            }
            return NightRead(plan: plan, statistics: source, memory: memory, takenBack: takenBack)
        }
    }
}
