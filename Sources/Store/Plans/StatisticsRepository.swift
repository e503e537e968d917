/// How many tasks (occurrences, as the caller counts them) a category has and how many are done.
package struct CategoryCount: Hashable, Sendable {
    package var tasks: Int
    package var completed: Int

    package init(tasks: Int, completed: Int) {
        self.tasks = tasks
        self.completed = completed
    }
}

/// One row of a user's statistics.
package struct CategoryStatistic: Hashable, Sendable {
    package var category: String
    package var taskCount: Int
    package var completedCount: Int
    /// completed / tasks, 0 when there are no tasks.
    package var completionRate: Double
    package var focusMinutes: Int

    package init(category: String, taskCount: Int, completedCount: Int, completionRate: Double, focusMinutes: Int) {
        self.category = category
        self.taskCount = taskCount
        self.completedCount = completedCount
        self.completionRate = completionRate
        self.focusMinutes = focusMinutes
    }
}

/// Per-user, per-category statistics. The counting rules belong to the caller (Planning knows
/// what an occurrence is); the store combines them with the recorded focus minutes.
package struct StatisticsRepository {
    let db: any SQLExecutor

    package init(_ db: any SQLExecutor) { self.db = db }

    /// Replaces a user's statistic rows: one per category in `counts` or with focus sessions.
    ///
    /// Decision: only the rows that differ are written. The stored rows are read first (one
    /// query); a row whose numbers stay is left alone, a changed or new one is upserted, one
    /// no longer wanted is deleted. The table ends up exactly as deleting and re-inserting
    /// every row would leave it, for a fraction of the writes: from one night to the next most
    /// of a student's categories keep their numbers.
    /// - Returns: the new rows by category.
    @discardableResult
    package func recompute(userID: String, counts: [String: CategoryCount]) throws(StoreError) -> [CategoryStatistic] {
        try db.write { (db) throws(StoreError) -> [CategoryStatistic] in
            guard try UserRepository(db).exists(userID) else { throw StoreError.unknownUser(userID) }
            let focus = try FocusSessionRepository(db).minutesByCategory(userID: userID)
            let rows = Set(counts.keys).union(focus.keys).sorted().map { category in
                let c = counts[category] ?? CategoryCount(tasks: 0, completed: 0)
                return CategoryStatistic(
                    category: category, taskCount: c.tasks, completedCount: c.completed,
                    completionRate: c.tasks > 0 ? Double(c.completed) / Double(c.tasks) : 0,
                    focusMinutes: focus[category] ?? 0)
            }
            var stored = Dictionary(
                try StatisticsRepository(db).statistics(userID: userID).map { ($0.category, $0) },
                uniquingKeysWith: { a, _ in a })
            for r in rows {
                if stored.removeValue(forKey: r.category) == r { continue }
                try db.execute(
                    """
                    INSERT INTO statistics (user_id, category, task_count, completed_count, completion_rate, focus_minutes)
                    VALUES (?, ?, ?, ?, ?, ?)
                    ON CONFLICT (user_id, category) DO UPDATE SET task_count = excluded.task_count,
                        completed_count = excluded.completed_count, completion_rate = excluded.completion_rate,
                        focus_minutes = excluded.focus_minutes
                    """,
                    [
                        .text(userID), .text(r.category), .integer(r.taskCount), .integer(r.completedCount),
                        .real(r.completionRate), .integer(r.focusMinutes),
                    ])
            }
            for category in stored.keys {
                try db.execute(
                    "DELETE FROM statistics WHERE user_id = ? AND category = ?", [.text(userID), .text(category)])
            }
            return rows
        }
    }

    /// A user's statistic rows by category.
    package func statistics(userID: String) throws(StoreError) -> [CategoryStatistic] {
        try db.query(
            """
            SELECT category, task_count, completed_count, completion_rate, focus_minutes FROM statistics
            WHERE user_id = ? ORDER BY category
            """, [.text(userID)]
        ) {
            CategoryStatistic(
                category: $0.text(0), taskCount: $0.int(1), completedCount: $0.int(2),
                completionRate: $0.double(3), focusMinutes: $0.int(4))
        }
    }
}
