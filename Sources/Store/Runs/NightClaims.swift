import Foundation
import Planning

/// Sharing a night between `replan run` workers on several machines (PostgreSQL only): the
/// job-queue pattern of PostgreSQL job systems, with a claim per due student.
///
/// - Every worker seeds the students it finds due as `pending` claims (one row per student and
///   plan date; a second worker's seed of the same student is a no-op).
/// - A worker takes pending claims in small batches with `FOR UPDATE SKIP LOCKED`, so two
///   workers never take the same row and never wait for each other; each take raises the
///   claim's `attempt`.
/// - A worker's liveness is its row in `night_workers`, whose lease a heartbeat renews. The
///   heartbeat touches only that row, never the claims, so it cannot collide with a student's
///   commit. A claim whose worker's lease ran out (killed, frozen, cut off) is taken over by the
///   next worker that asks, with a higher attempt. Times are the server's (`now()`), never a
///   worker's clock.
/// - A student's night commits in one transaction with `finish`, which succeeds only for the
///   claim's current attempt (the fence): a worker that was paused past its lease and wakes up
///   commits nothing, because its attempt is no longer the claim's.
/// - A worker that stops (SIGTERM) hands its unfinished claims back at once (`release`).
///
/// Claims and heartbeats run as single statements outside any transaction (READ COMMITTED):
/// under the night's `REPEATABLE READ`, `SKIP LOCKED` would fail on rows another worker just
/// changed instead of passing them by.
package struct NightClaims {
    let db: any SQLExecutor

    package init(_ db: any SQLExecutor) {
        precondition(db.engine == .postgresql, "night claims exist on PostgreSQL only")
        self.db = db
    }

    /// A student this worker holds for the night.
    package struct Claim: Sendable, Hashable {
        package var userID: String
        package var planDate: CivilDate
        package var attempt: Int
        /// Whether the claim was taken over from a worker whose lease had run out.
        package var rescued: Bool
    }

    /// What is left of the nights from `from` on, for deciding whether a worker may finish.
    package struct Outstanding: Sendable, Equatable {
        package var pending = 0
        /// Claimed by a worker whose lease has not run out (this one's included).
        package var held = 0
        /// Claimed by a worker whose lease ran out: take them over.
        package var abandoned = 0
        /// Seconds until the soonest lease of a worker holding claims runs out.
        package var soonestExpiry: Double?
    }

    /// Registers the worker with a lease of `lease` seconds from the server's now. A name used
    /// before (a test's fixed name) starts over: the row is this run's from now on.
    package func register(worker: String, runID: Int, lease: Int) throws(StoreError) {
        try db.execute(
            """
            INSERT INTO night_workers (worker, run_id, started_at, lease_until)
            VALUES (?, ?, now(), now() + make_interval(secs => ?))
            ON CONFLICT (worker) DO UPDATE SET run_id = excluded.run_id, started_at = excluded.started_at,
                lease_until = excluded.lease_until, stopped_at = NULL
            """, [.text(worker), .integer(runID), .integer(lease)])
    }

    /// Renews the worker's lease. - Returns: false when the worker's row is gone.
    @discardableResult
    package func heartbeat(worker: String, lease: Int) throws(StoreError) -> Bool {
        try db.execute(
            "UPDATE night_workers SET lease_until = now() + make_interval(secs => ?) WHERE worker = ? AND stopped_at IS NULL",
            [.integer(lease), .text(worker)]) == 1
    }

    /// Workers whose lease has not run out and that have not stopped (this one included): they
    /// share the provider's rate limit (docs/model.md §16).
    package func liveWorkers() throws(StoreError) -> Int {
        try db.queryFirst(
            "SELECT count(*) FROM night_workers WHERE lease_until > now() AND stopped_at IS NULL", []
        ) { $0.int(0) } ?? 1
    }

    /// Adds the due students as pending claims. A student already claimed or done tonight is
    /// left alone; one that failed tonight is pending again (a later worker retries it, as a
    /// later run would). With `force`, a student finished before `worker` registered is pending
    /// again too (on the server's clock; one finished since is this night's forced work done).
    package func seed(_ students: [(userID: String, planDate: CivilDate)], force: Bool, worker: String)
        throws(StoreError)
    {
        guard !students.isEmpty else { return }
        let rows = Array(repeating: "(?, ?, 'pending')", count: students.count).joined(separator: ", ")
        var values: [SQLValue] = []
        values.reserveCapacity(2 * students.count + 2)
        for s in students { values += [.text(s.userID), .text(s.planDate.description)] }
        values += [.integer(force ? 1 : 0), .text(worker)]
        let n = 2 * students.count
        try db.execute(
            """
            INSERT INTO night_claims (user_id, plan_date, state) VALUES \(rows)
            ON CONFLICT (user_id, plan_date) DO UPDATE SET state = 'pending', worker = NULL
            WHERE night_claims.state = 'failed'
                OR (?\(n + 1) = 1 AND night_claims.state = 'done'
                    AND night_claims.finished_at < (SELECT started_at FROM night_workers WHERE worker = ?\(n + 2)))
            """, values)
    }

    /// Takes up to `limit` claims: pending ones, and those of workers whose lease ran out,
    /// oldest plan date first, then by student id.
    package func claim(worker: String, limit: Int, from: CivilDate) throws(StoreError) -> [Claim] {
        try db.query(
            """
            WITH picked AS (
                SELECT c.user_id, c.plan_date, c.state AS was FROM night_claims c
                WHERE c.plan_date >= ? AND c.state IN ('pending', 'claimed')
                    AND (c.state = 'pending' OR NOT EXISTS (
                        SELECT 1 FROM night_workers w WHERE w.worker = c.worker AND w.lease_until > now()))
                ORDER BY c.plan_date, c.user_id LIMIT ?
                FOR UPDATE OF c SKIP LOCKED
            )
            UPDATE night_claims c SET state = 'claimed', worker = ?, attempt = c.attempt + 1, claimed_at = now()
            FROM picked p WHERE c.user_id = p.user_id AND c.plan_date = p.plan_date
            RETURNING c.user_id, c.plan_date, c.attempt, p.was
            """, [.text(from.description), .integer(max(1, limit)), .text(worker)]
        ) { (s) throws(StoreError) -> Claim in
            guard let date = s.civilDate(1) else {
                throw StoreError.malformedRow(entity: "night claim", key: s.text(0), problem: "bad plan date")
            }
            return Claim(userID: s.text(0), planDate: date, attempt: s.int(2), rescued: s.text(3) == "claimed")
        }
        .sorted { ($0.planDate, $0.userID) < ($1.planDate, $1.userID) }
    }

    /// Marks the claim done or failed, in the caller's transaction (the student's commit).
    /// - Throws: `.fenced` when the claim is no longer this attempt's: another worker took it
    ///   over, so nothing of this night may be written.
    package func finish(_ claim: Claim, worker: String, failed: Bool) throws(StoreError) {
        let finish = Self.finishQuery(claim, worker: worker, failed: failed)
        try Self.checkFinished(claim, rows: try db.query(finish.sql, finish.values) { $0.int(0) })
    }

    /// `finish` as a query, for a caller that sends it in a batch with reads of its own
    /// (`SQLExecutor.queryEach`, one round trip on PostgreSQL): it answers one row when the
    /// claim was this attempt's, none when it was not; `checkFinished` says which.
    package static func finishQuery(_ claim: Claim, worker: String, failed: Bool) -> (sql: String, values: [SQLValue]) {
        (
            """
            UPDATE night_claims SET state = ?, finished_at = now()
            WHERE user_id = ? AND plan_date = ? AND worker = ? AND attempt = ? AND state = 'claimed'
            RETURNING 1
            """,
            [
                .text(failed ? "failed" : "done"), .text(claim.userID), .text(claim.planDate.description),
                .text(worker), .integer(claim.attempt),
            ]
        )
    }

    /// - Throws: `.fenced` unless `finishQuery` answered exactly one row.
    package static func checkFinished<T>(_ claim: Claim, rows: [T]) throws(StoreError) {
        if rows.count != 1 { throw StoreError.fenced(userID: claim.userID, attempt: claim.attempt) }
    }

    /// Hands the worker's unfinished claims back (pending, for the others to take at once) and
    /// ends its lease. - Returns: how many claims were handed back.
    @discardableResult
    package func release(worker: String) throws(StoreError) -> Int {
        let released = try db.execute(
            "UPDATE night_claims SET state = 'pending', worker = NULL WHERE worker = ? AND state = 'claimed'",
            [.text(worker)])
        try db.execute(
            "UPDATE night_workers SET lease_until = now(), stopped_at = now() WHERE worker = ?", [.text(worker)])
        return released
    }

    /// What the nights from `from` on still hold; `held` counts the other workers' claims
    /// only (`excluding` this worker).
    package func outstanding(from: CivilDate, excluding worker: String) throws(StoreError) -> Outstanding {
        try db.queryFirst(
            """
            SELECT count(*) FILTER (WHERE c.state = 'pending'),
                   count(*) FILTER (WHERE c.state = 'claimed' AND w.lease_until > now() AND c.worker <> ?),
                   count(*) FILTER (WHERE c.state = 'claimed' AND (w.lease_until IS NULL OR w.lease_until <= now())),
                   extract(epoch FROM min(w.lease_until - now())
                       FILTER (WHERE c.state = 'claimed' AND w.lease_until > now() AND c.worker <> ?))
            FROM night_claims c LEFT JOIN night_workers w ON w.worker = c.worker
            WHERE c.plan_date >= ? AND c.state IN ('pending', 'claimed')
            """, [.text(worker), .text(worker), .text(from.description)]
        ) {
            Outstanding(pending: $0.int(0), held: $0.int(1), abandoned: $0.int(2), soonestExpiry: $0.optionalDouble(3))
        }
            ?? Outstanding()
    }
}
