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
    /// - Parameter userChecked: the caller's transaction has already found the user (a
    ///   changeset's commit does), so it is not looked up again.
    package func recompute(userID: String, counts: [String: CategoryCount], userChecked: Bool = false)
        throws(StoreError) -> [CategoryStatistic]
    {
        try db.write { (db) throws(StoreError) -> [CategoryStatistic] in
            // Reads of which none needs another's answer: one batch (one round trip on
            // PostgreSQL).
            var reads: [(sql: String, values: [SQLValue])] = [
                (FocusSessionRepository.minutesSQL, [.text(userID)]), (Self.statisticsSQL, [.text(userID)]),
            ]
            if !userChecked { reads.append((UserRepository.existsSQL, [.text(userID)])) }
            let answers = try db.queryEach(reads) { (index, s) -> Read in
                switch index {
                case 0: .focus(s.text(0), s.int(1))
                case 1: .statistic(Self.decode(s))
                default: .user
                }
            }
            guard userChecked || !answers[2].isEmpty else { throw StoreError.unknownUser(userID) }
            var focus: [String: Int] = [:]
            for case .focus(let category, let minutes) in answers[0] { focus[category, default: 0] += minutes }
            let rows = Set(counts.keys).union(focus.keys).sorted().map { category in
                let c = counts[category] ?? CategoryCount(tasks: 0, completed: 0)
                return CategoryStatistic(
                    category: category, taskCount: c.tasks, completedCount: c.completed,
                    completionRate: c.tasks > 0 ? Double(c.completed) / Double(c.tasks) : 0,
                    focusMinutes: focus[category] ?? 0)
            }
            var stored: [String: CategoryStatistic] = [:]
            for case .statistic(let row) in answers[1] where stored[row.category] == nil { stored[row.category] = row }
            // Categories are distinct, so no statement upserts one row twice.
            let changed = rows.filter { stored.removeValue(forKey: $0.category) != $0 }
            try db.sendRows(
                "INSERT INTO statistics (user_id, category, task_count, completed_count, completion_rate, focus_minutes)",
                changed.map { r in
                    [
                        .text(userID), .text(r.category), .integer(r.taskCount), .integer(r.completedCount),
                        .real(r.completionRate), .integer(r.focusMinutes),
                    ]
                },
                then: """
                    ON CONFLICT (user_id, category) DO UPDATE SET task_count = excluded.task_count,
                        completed_count = excluded.completed_count, completion_rate = excluded.completion_rate,
                        focus_minutes = excluded.focus_minutes
                    """)
            for category in stored.keys {
                try db.send(
                    "DELETE FROM statistics WHERE user_id = ? AND category = ?", [.text(userID), .text(category)])
            }
            return rows
        }
    }

    /// A user's statistic rows by category.
    package func statistics(userID: String) throws(StoreError) -> [CategoryStatistic] {
        try db.query(Self.statisticsSQL, [.text(userID)]) { Self.decode($0) }
    }

    static let statisticsSQL = """
        SELECT category, task_count, completed_count, completion_rate, focus_minutes FROM statistics
        WHERE user_id = ? ORDER BY category
        """

    static func decode(_ s: any SQLRow) -> CategoryStatistic {
        CategoryStatistic(
            category: s.text(0), taskCount: s.int(1), completedCount: s.int(2), completionRate: s.double(3),
            focusMinutes: s.int(4))
    }

    /// One row of `recompute`'s batch of reads.
    private enum Read {
        case user
        case focus(String, Int)
        case statistic(CategoryStatistic)
    }
}
