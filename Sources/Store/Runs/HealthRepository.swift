import Foundation
import JSON
import Planning

/// The few facts `replan status` reads: the latest runs, students failing night after night,
/// the outbox backlog and the oldest history. Each is one small query over an index or a
/// small table, so a health check every minute costs nothing next to a night.
package struct HealthRepository {
    let db: any SQLExecutor

    package init(_ db: any SQLExecutor) { self.db = db }

    /// One run's timestamps and counts.
    package struct RunFacts: Sendable, Equatable {
        package var id: Int
        package var startedAt: Date
        package var finishedAt: Date?
        package var due = 0
        package var failed = 0
        /// Students whose model stage ended in an error (their local edits may have committed).
        package var modelErrors = 0
        /// Why the run stopped asking the model part-way (the quota, a deadline, a provider
        /// that refused everything: the `modelStopped` of the run's options), if it did.
        package var modelStopped: String?
    }

    /// The latest run (finished or not) and the latest finished run.
    package func latestRuns() throws(StoreError) -> (latest: RunFacts?, finished: RunFacts?) {
        try db.read { (db) throws(StoreError) in
            let latest = try facts(
                db, "SELECT id, started_at, finished_at, options FROM runs ORDER BY id DESC LIMIT 1")
            let finished = try facts(
                db,
                """
                SELECT id, started_at, finished_at, options FROM runs WHERE finished_at IS NOT NULL
                ORDER BY id DESC LIMIT 1
                """)
            return (latest, finished)
        }
    }

    private func facts(_ db: any SQLExecutor, _ sql: String) throws(StoreError) -> RunFacts? {
        guard
            var run = try db.queryFirst(
                sql, [],
                { (s) throws(StoreError) -> RunFacts in
                    var run = RunFacts(
                        id: s.int(0), startedAt: Timestamp.date(s.text(1)) ?? .distantPast,
                        finishedAt: s.optionalText(2).flatMap(Timestamp.date))
                    if let options = try? JSONValue(parsing: s.text(3)) {
                        run.modelStopped = options["modelStopped"]?.stringValue
                    }
                    return run
                })
        else { return nil }
        try db.queryFirst(
            """
            SELECT count(*), coalesce(sum(CASE WHEN status = 'failed' THEN 1 ELSE 0 END), 0),
                coalesce(sum(CASE WHEN status <> 'failed' AND error IS NOT NULL THEN 1 ELSE 0 END), 0)
            FROM user_runs WHERE run_id = ?
            """, [.integer(run.id)]
        ) { (s) throws(StoreError) in
            run.due = s.int(0)
            run.failed = s.int(1)
            run.modelErrors = s.int(2)
        }
        return run
    }

    /// Students whose latest `nights` plan dates all failed (a plan date is a failed night when
    /// a run failed the student and none finished them; retries within the night count once).
    package func failingStudents(nights: Int) throws(StoreError) -> [String] {
        try db.query(
            """
            WITH nights AS (
                SELECT user_id, plan_date,
                    max(CASE WHEN status IN ('changed', 'unchanged') THEN 1 ELSE 0 END) AS ok,
                    max(CASE WHEN status = 'failed' THEN 1 ELSE 0 END) AS bad
                FROM user_runs GROUP BY user_id, plan_date
            ), ranked AS (
                SELECT user_id, ok, bad, row_number() OVER (PARTITION BY user_id ORDER BY plan_date DESC) AS n
                FROM nights
            )
            SELECT user_id FROM ranked WHERE n <= ? GROUP BY user_id
            HAVING count(*) = ? AND sum(ok) = 0 AND sum(bad) = ? ORDER BY user_id
            """, [.integer(nights), .integer(nights), .integer(nights)]
        ) { $0.text(0) }
    }

    /// Rows waiting in the notification outbox and the oldest one's creation time.
    package func outboxBacklog() throws(StoreError) -> (rows: Int, oldest: Date?) {
        try db.queryFirst("SELECT count(*), min(created_at) FROM notification_outbox") {
            ($0.int(0), $0.optionalText(1).flatMap(Timestamp.date))
        } ?? (0, nil)
    }

    /// When the oldest run started (what retention prunes by), nil without runs.
    package func oldestRunStart() throws(StoreError) -> Date? {
        try db.queryFirst("SELECT min(started_at) FROM runs") { $0.optionalText(0).flatMap(Timestamp.date) } ?? nil
    }
}
