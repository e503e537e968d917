import Foundation
import Planning

/// The nights that several `replan run` workers shared on PostgreSQL, read back for `log` and
/// `night`: which runs made up one night, and how far the night in progress has got.
///
/// Decision: a night is identified by time, with no key of its own (and no schema change).
/// Workers share the claims of whatever is due while they run, and a worker ends only when no
/// live worker holds a claim any more, so the workers of one night are exactly those whose
/// spans overlap: a worker's span runs from its registration to its stop, or, for a worker that
/// died, to the moment its lease ran out (when its claims became the others'). Both ends are the
/// server's clock (`night_workers`), never a worker's. A worker that starts after the others
/// stopped begins a night of its own (usually one in which nobody is due). A night is named by
/// its first run's id.
package struct SharedNights {
    let db: any SQLExecutor

    package init(_ db: any SQLExecutor) { self.db = db }

    /// One worker of a night: a `replan run` process and its run.
    package struct Worker: Sendable, Hashable {
        package enum State: String, Sendable {
            /// Its lease is current: it is planning or waiting for the others.
            case running
            /// It stopped and handed its claims back.
            case stopped
            /// Its lease ran out without a stop (killed, frozen, cut off): its claims were the
            /// others' to take over.
            case lost
        }

        package var name: String
        package var runID: Int
        /// Server clock.
        package var startedAt: Date
        /// When it stopped, or when its lease runs (or ran) out.
        package var endsAt: Date
        package var state: State
        /// Seconds until the lease runs out (negative: since it ran out), on the server's clock.
        package var leaseLeft: Double
    }

    /// The runs of one night, first worker first.
    package struct Night: Sendable, Hashable {
        package var workers: [Worker]
        /// The night's name: its first run's id.
        package var id: Int { workers.map(\.runID).min() ?? 0 }
        package var runIDs: [Int] { workers.map(\.runID).sorted() }
        package var startedAt: Date { workers.map(\.startedAt).min() ?? Date(timeIntervalSince1970: 0) }
        /// The last worker's end; nil while a worker is still running.
        package var finishedAt: Date? {
            workers.contains { $0.state == .running } ? nil : workers.map(\.endsAt).max()
        }
    }

    /// Every night on record, oldest first; empty on SQLite (one run is one night there).
    package func nights() throws(StoreError) -> [Night] {
        guard db.engine == .postgresql else { return [] }
        let workers = try db.query(
            """
            SELECT worker, run_id, extract(epoch FROM started_at), extract(epoch FROM coalesce(stopped_at, lease_until)),
                CASE WHEN stopped_at IS NOT NULL THEN 'stopped' WHEN lease_until > now() THEN 'running' ELSE 'lost' END,
                extract(epoch FROM lease_until - now())
            FROM night_workers WHERE run_id IS NOT NULL ORDER BY started_at, run_id
            """, []
        ) { s in
            Worker(
                name: s.text(0), runID: s.int(1), startedAt: Date(timeIntervalSince1970: s.double(2)),
                endsAt: Date(timeIntervalSince1970: max(s.double(2), s.double(3))),
                state: Worker.State(rawValue: s.text(4)) ?? .lost, leaseLeft: s.double(5))
        }
        return Self.group(workers)
    }

    /// Workers sorted by start, grouped into nights of overlapping spans (a running worker's
    /// span reaches at least to now: it may still take claims).
    static func group(_ workers: [Worker]) -> [Night] {
        var nights: [Night] = []
        var end = Date.distantPast
        for w in workers {
            let reach = w.state == .running ? Date.distantFuture : w.endsAt
            if nights.isEmpty || w.startedAt > end {
                nights.append(Night(workers: [w]))
                end = reach
            } else {
                nights[nights.count - 1].workers.append(w)
                end = max(end, reach)
            }
        }
        return nights
    }

    /// What the claims of a night hold, in total and per worker.
    package struct Progress: Sendable, Hashable {
        package struct Counts: Sendable, Hashable {
            /// Seeded, not yet taken (or handed back by a worker that stopped).
            package var pending = 0
            /// Taken by a worker and not finished (`abandoned` of them by a lost worker).
            package var claimed = 0
            package var abandoned = 0
            package var done = 0
            package var failed = 0
            /// Taken more than once (attempt > 1): taken over from a lost worker, handed back by
            /// a stopped one, retried after a failure or planned again with `--force`.
            package var retried = 0
            package var due: Int { pending + claimed + done + failed }

            package init() {}
        }

        package var night: Night
        package var total = Counts()
        package var byWorker: [String: Counts] = [:]
    }

    /// The latest night (the one in progress, if any) and its claims; nil when no worker ever
    /// ran (or on SQLite).
    ///
    /// A claim belongs to the night of the worker that holds or finished it; pending claims
    /// belong to the latest night (the next worker takes them).
    package func latest() throws(StoreError) -> Progress? {
        guard let night = try nights().last else { return nil }
        var progress = Progress(night: night)
        let names = night.workers.map(\.name)
        let lost = Set(night.workers.filter { $0.state == .lost }.map(\.name))
        // Pending claims of an older plan date than the night's day before (UTC) are no
        // worker's business any more (a worker claims from there on).
        let from = CivilDate(String(Timestamp.text(night.startedAt).prefix(10)))?.adding(days: -1).description ?? ""
        let rows = try db.query(
            """
            SELECT coalesce(worker, ''), state, count(*), count(*) FILTER (WHERE attempt > 1) FROM night_claims
            WHERE worker IN (\(placeholders(names.count))) OR (state = 'pending' AND plan_date >= ?)
            GROUP BY 1, 2
            """, names.map { SQLValue.text($0) } + [.text(from)]
        ) { s in (worker: s.text(0), state: s.text(1), count: s.int(2), retried: s.int(3)) }
        for r in rows {
            func add(_ c: inout Progress.Counts) {
                switch r.state {
                case "pending": c.pending += r.count
                case "claimed":
                    c.claimed += r.count
                    if lost.contains(r.worker) { c.abandoned += r.count }
                case "done": c.done += r.count
                default: c.failed += r.count
                }
                c.retried += r.retried
            }
            add(&progress.total)
            if r.state != "pending" && !r.worker.isEmpty {
                add(&progress.byWorker[r.worker, default: Progress.Counts()])
            }
        }
        return progress
    }
}
