import Foundation
import Planning

/// Deletes history older than the retention: changesets (their edits with them), user runs
/// (their transcripts with them), runs left without user runs, and outbox rows whose
/// reminder time passed before the cutoff (nobody can be reminded of those any more).
/// Nothing else keeps growing with every night.
///
/// An outbox row is not history: it outlives its changeset (its `changeset_id` becomes
/// NULL), so a reminder for a session weeks ahead stays until it is delivered.
///
/// Each batch of `batchSize` rows is its own short write transaction, so the nightly run and
/// an operator's commands get the writer between batches instead of waiting for the whole
/// prune. The batches find old rows through `changesets_by_time` and, for user runs, the old
/// runs (one row per run, a small table) and `user_runs_by_run`, so each costs about its own
/// size.
package struct RetentionPruner {
    let db: any SQLExecutor

    package init(_ db: any SQLExecutor) { self.db = db }

    /// A user run of a run that started before the cutoff (`?`): the run's own clock, which
    /// is `--now` in a reproduction, decides, like it decides the changesets' `created_at`.
    /// Found through `user_runs_by_run` for the few old runs.
    static let oldUserRun = "run_id IN (SELECT id FROM runs WHERE started_at < ?)"

    package struct Report: Hashable, Sendable {
        package var changesets = 0
        package var userRuns = 0
        package var transcripts = 0
        package var runs = 0
        /// Outbox rows whose `fire_at` was before the cutoff, delivered or not.
        package var outbox = 0
        /// PostgreSQL: finished night claims of plan dates before the cutoff, and the rows of
        /// stopped or lost workers whose run was pruned (`NightClaims`).
        package var nightClaims = 0
        package var nightWorkers = 0
        package var batches = 0
        /// Whether `shouldStop` ended the prune before everything old was gone.
        package var stopped = false

        package init() {}
    }

    /// How many rows `prune` would delete, without deleting.
    package func count(olderThan cutoff: Date) throws(StoreError) -> Report {
        let c = SQLValue.text(Timestamp.text(cutoff))
        return try db.read { (db) throws(StoreError) -> Report in
            var r = Report()
            r.changesets =
                try db.queryFirst("SELECT count(*) FROM changesets WHERE created_at < ?", [c]) { $0.int(0) } ?? 0
            r.userRuns =
                try db.queryFirst("SELECT count(*) FROM user_runs WHERE \(RetentionPruner.oldUserRun)", [c]) {
                    $0.int(0)
                } ?? 0
            r.transcripts =
                try db.queryFirst(
                    """
                    SELECT count(*) FROM transcripts WHERE user_run_id IN (SELECT id FROM user_runs WHERE \(RetentionPruner.oldUserRun))
                    """, [c]
                ) { $0.int(0) } ?? 0
            r.runs = try db.queryFirst("SELECT count(*) FROM runs WHERE started_at < ?", [c]) { $0.int(0) } ?? 0
            r.outbox =
                try db.queryFirst("SELECT count(*) FROM notification_outbox WHERE fire_at < ?", [c]) { $0.int(0) } ?? 0
            return r
        }
    }

    /// Deletes everything older than `cutoff`, in batches; `shouldStop` is asked between
    /// batches (a run's time budget, a signal).
    package func prune(
        olderThan cutoff: Date, batchSize: Int = 500,
        shouldStop: () -> Bool = { false }
    ) throws(StoreError) -> Report {
        let c = SQLValue.text(Timestamp.text(cutoff))
        let n = SQLValue.integer(max(1, batchSize))
        var report = Report()
        func batches(_ body: (any SQLExecutor) throws(StoreError) -> Int) throws(StoreError) -> Bool {
            while true {
                if shouldStop() {
                    report.stopped = true
                    return false
                }
                let deleted = try db.write { (db) throws(StoreError) -> Int in try body(db) }
                report.batches += 1
                if deleted == 0 { return true }
            }
        }
        guard
            try batches({ (db) throws(StoreError) -> Int in
                let deleted = try db.execute(
                    "DELETE FROM changesets WHERE id IN (SELECT id FROM changesets WHERE created_at < ? LIMIT ?)",
                    [c, n])
                report.changesets += deleted
                return deleted
            })
        else { return report }
        guard
            try batches({ (db) throws(StoreError) -> Int in
                // Transcripts go with their user runs (ON DELETE CASCADE); counted first.
                let ids = try db.query("SELECT id FROM user_runs WHERE \(RetentionPruner.oldUserRun) LIMIT ?", [c, n]) {
                    $0.int(0)
                }
                guard !ids.isEmpty else { return 0 }
                let list = ids.map(String.init).joined(separator: ",") // integers from the database itself
                report.transcripts +=
                    try db.queryFirst("SELECT count(*) FROM transcripts WHERE user_run_id IN (\(list))") { $0.int(0) }
                    ?? 0
                report.userRuns += try db.execute("DELETE FROM user_runs WHERE id IN (\(list))")
                return ids.count
            })
        else { return report }
        guard
            try batches({ (db) throws(StoreError) -> Int in
                let deleted = try db.execute(
                    """
                    DELETE FROM runs WHERE id IN (SELECT id FROM runs WHERE started_at < ?
                        AND NOT EXISTS (SELECT 1 FROM user_runs WHERE run_id = runs.id) ORDER BY id LIMIT ?)
                    """, [c, n])
                report.runs += deleted
                return deleted
            })
        else { return report }
        if db.engine == .postgresql {
            // Claims are one row per student and night: without this they would be the one
            // table that grows with every night. A claim before the cutoff is finished history
            // (a worker looks at plan dates from the day before today on).
            let day = SQLValue.text(String(Timestamp.text(cutoff).prefix(10)))
            guard
                try batches({ (db) throws(StoreError) -> Int in
                    let deleted = try db.execute(
                        """
                        DELETE FROM night_claims WHERE (user_id, plan_date) IN (SELECT user_id, plan_date FROM night_claims
                            WHERE plan_date < ? AND state IN ('done', 'failed') LIMIT ?)
                        """, [day, n])
                    report.nightClaims += deleted
                    return deleted
                })
            else { return report }
            report.nightWorkers += try db.write { (db) throws(StoreError) -> Int in
                try db.execute(
                    "DELETE FROM night_workers WHERE run_id IS NULL AND (stopped_at IS NOT NULL OR lease_until < now())"
                )
            }
        }
        _ = try batches({ (db) throws(StoreError) -> Int in
            let deleted = try db.execute(
                """
                DELETE FROM notification_outbox WHERE id IN
                    (SELECT id FROM notification_outbox WHERE fire_at < ? ORDER BY id LIMIT ?)
                """, [c, n])
            report.outbox += deleted
            return deleted
        })
        return report
    }
}
