import Foundation
import Planning

/// One run with its students' outcomes summed: what `replan log` prints as one line, so a
/// night of 1,000 students is one line rather than 1,000.
package struct RunTotals: Hashable, Sendable {
    package var run: RunRecord
    /// User runs recorded (the students that were due and reached an outcome).
    package var users: Int
    package var changed: Int
    package var unchanged: Int
    package var skipped: Int
    package var failed: Int
    /// Students whose model stage ended in an error but who did not fail (their local edits
    /// committed, or they were skipped by `--on-model-error=skip`).
    package var modelErrors: Int
    package var modelCalls: Int
    package var promptTokens: Int
    package var completionTokens: Int
    package var reasoningTokens: Int
    package var cachedTokens: Int
}

/// Which user runs a `log` query is about.
package enum UserRunFilter: Hashable, Sendable {
    case status(UserRunStatus)
    /// An error recorded on a student who did not fail: a model error.
    case modelError

    /// The SQL condition on a `user_runs` row (no parameters: the values are fixed words).
    var condition: String {
        switch self {
        case .status(let s): "status = '\(s.rawValue)'"
        case .modelError: "error IS NOT NULL AND status != 'failed'"
        }
    }
}

extension RunStore {
    /// Runs newest first with their totals. Runs in which nobody was due (the hourly timer's
    /// usual tick) are left out unless `includeEmpty`; `userID` and `filter` keep the runs with
    /// at least one such user run; `since` keeps runs started at or after it; `before` keeps
    /// runs with a lower id (the next page).
    package func runTotals(
        limit: Int, since: Date? = nil, userID: String? = nil, filter: UserRunFilter? = nil,
        includeEmpty: Bool = false, before: Int? = nil
    ) throws(StoreError) -> [RunTotals] {
        try db.read { (db) throws(StoreError) -> [RunTotals] in
            var conditions: [String] = []
            var values: [SQLValue] = []
            if let before {
                conditions.append("id < ?")
                values.append(.integer(before))
            }
            if let since {
                // started_at is canonical UTC text, so text order is time order.
                conditions.append("started_at >= ?")
                values.append(.text(Timestamp.text(since)))
            }
            var userRunConditions = ["run_id = runs.id"]
            if let userID {
                userRunConditions.append("user_id = ?")
                values.append(.text(userID))
            }
            if let filter { userRunConditions.append(filter.condition) }
            if !includeEmpty || userRunConditions.count > 1 {
                conditions.append(
                    "EXISTS (SELECT 1 FROM user_runs WHERE \(userRunConditions.joined(separator: " AND ")))")
            }
            values.append(.integer(limit))
            let runs = try db.query(
                """
                SELECT id, started_at, finished_at, options FROM runs
                \(conditions.isEmpty ? "" : "WHERE " + conditions.joined(separator: " AND "))
                ORDER BY id DESC LIMIT ?
                """, values
            ) { (s) throws(StoreError) in try RunStore.decodeRun(s) }
            return try runs.map { (run) throws(StoreError) -> RunTotals in try RunStore(db).totals(of: run) }
        }
    }

    /// One run with its totals, or nil when there is no such run.
    package func runTotals(id: Int) throws(StoreError) -> RunTotals? {
        try db.read { (db) throws(StoreError) -> RunTotals? in
            let run = try db.queryFirst(
                "SELECT id, started_at, finished_at, options FROM runs WHERE id = ?", [.integer(id)]
            ) {
                (s) throws(StoreError) in try RunStore.decodeRun(s)
            }
            return try run.map { (run) throws(StoreError) -> RunTotals in try RunStore(db).totals(of: run) }
        }
    }

    /// The sums over one run's user runs (an index range of `user_runs_by_run`).
    func totals(of run: RunRecord) throws(StoreError) -> RunTotals {
        let t =
            try db.queryFirst(
                """
                SELECT count(*), sum(CASE WHEN status = 'changed' THEN 1 ELSE 0 END),
                    sum(CASE WHEN status = 'unchanged' THEN 1 ELSE 0 END), sum(CASE WHEN status = 'skipped' THEN 1 ELSE 0 END),
                    sum(CASE WHEN status = 'failed' THEN 1 ELSE 0 END),
                    sum(CASE WHEN error IS NOT NULL AND status != 'failed' THEN 1 ELSE 0 END), sum(model_calls),
                    sum(prompt_tokens), sum(completion_tokens), sum(reasoning_tokens), sum(cached_tokens)
                FROM user_runs WHERE run_id = ?
                """, [.integer(run.id)]
            ) { s in (0..<11).map { s.int(Int32($0)) } } ?? Array(repeating: 0, count: 11)
        return RunTotals(
            run: run, users: t[0], changed: t[1], unchanged: t[2], skipped: t[3], failed: t[4], modelErrors: t[5],
            modelCalls: t[6], promptTokens: t[7], completionTokens: t[8], reasoningTokens: t[9], cachedTokens: t[10])
    }

    /// The user runs of one run (all of them, or those matching `userID` / `filter`), in the
    /// order they were recorded.
    package func userRuns(runID: Int, userID: String? = nil, filter: UserRunFilter? = nil) throws(StoreError)
        -> [UserRunRecord]
    {
        var sql = "SELECT \(RunStore.userRunColumns) FROM user_runs WHERE run_id = ?"
        var values: [SQLValue] = [.integer(runID)]
        if let userID {
            sql += " AND user_id = ?"
            values.append(.text(userID))
        }
        if let filter { sql += " AND \(filter.condition)" }
        return try db.query(sql + " ORDER BY id", values) { (s) throws(StoreError) in try RunStore.decodeUserRun(s) }
    }
}
