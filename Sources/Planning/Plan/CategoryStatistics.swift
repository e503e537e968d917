/// Per-category counts of one user's plan (docs/data-format.md §2.7): sessions due so far,
/// completed ones, completion rate and focus minutes.
package struct CategoryStatistics: Hashable, Sendable {
    package var category: String
    /// Occurrences in the period that were not skipped.
    package var taskCount: Int
    package var completedCount: Int
    package var focusMinutes: Int

    package var completionRate: Double { taskCount == 0 ? 0 : Double(completedCount) / Double(taskCount) }

    /// Counts occurrences that start within `from ... through` (skipped ones do not count; a
    /// session is "due" once its day has come) and the focus minutes recorded in that period.
    /// Sorted by category.
    package static func compute(plan: UserPlan, focusSessions: [FocusSession], from: CivilDate, through: CivilDate)
        -> [CategoryStatistics]
    {
        var byCategory: [String: CategoryStatistics] = [:]
        func entry(_ c: String) -> CategoryStatistics {
            byCategory[c] ?? CategoryStatistics(category: c, taskCount: 0, completedCount: 0, focusMinutes: 0)
        }
        // Counted per task first (occurrences of a task share its category), in no order: the
        // nightly job counts a student's whole history this way on a first night.
        plan.forEachTask(occurrencesFrom: from, through: through) { task, occurrences in
            var due = 0
            var completed = 0
            for o in occurrences where o.state != .skipped && o.start.date >= from {
                due += 1
                if o.state == .completed { completed += 1 }
            }
            guard due > 0 else { return }
            var e = entry(task.category)
            e.taskCount += due
            e.completedCount += completed
            byCategory[task.category] = e
        }
        for f in focusSessions where f.start.date >= from && f.start.date <= through {
            var e = entry(f.category)
            e.focusMinutes += f.minutes
            byCategory[f.category] = e
        }
        return byCategory.keys.sorted().map { byCategory[$0]! }
    }

    /// The first date any of the plan's tasks touch (the start of "all time").
    package static func firstDate(of plan: UserPlan, focusSessions: [FocusSession]) -> CivilDate? {
        (plan.tasks.values.map(\.start.date) + focusSessions.map(\.start.date)).min()
    }
}
