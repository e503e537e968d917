import Foundation
import Planning
import Store

/// The nightly recount of a student's per-category statistics (data.md "Statistic"): every
/// non-skipped session whose day has come, and how many of them were completed, over the
/// whole history as it stands once tonight's changeset is committed. Same definition as
/// `replan stats`; the store adds the focus minutes.
public enum StatisticsRefresh {
    /// Recounts and stores a student's statistics as the database holds them now (after an
    /// undo or redo, say).
    public static func recount(userID: String, today: CivilDate, db: Database) throws(StoreError) {
        let counts = try counts(userID: userID, planDate: today, changes: [], db: db)
        try StatisticsRepository(db).recompute(userID: userID, counts: counts)
    }

    static func counts(userID: String, planDate: CivilDate, changes: [RowChange], db: Database) throws(StoreError) -> [String: CategoryCount] {
        let full = try PlanRepository(db).loadPlan(userID: userID, window: nil)
        let after: UserPlan
        do { after = try full.applying(changes) } catch {
            throw StoreError.malformedRow(entity: "changeset", key: userID, problem: error.description)
        }
        guard let first = CategoryStatistics.firstDate(of: after, focusSessions: []), first <= planDate else { return [:] }
        var counts: [String: CategoryCount] = [:]
        for s in CategoryStatistics.compute(plan: after, focusSessions: [], from: first, through: planDate) where s.taskCount > 0 {
            counts[s.category] = CategoryCount(tasks: s.taskCount, completed: s.completedCount)
        }
        return counts
    }
}
