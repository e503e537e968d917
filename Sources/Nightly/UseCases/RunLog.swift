import Foundation
import JSON
import Planning
import Store

/// `log` and `show`: what the runs did and what each changeset holds, read only.
package struct RunLog {
    /// Which runs and changesets a `log` asks for.
    package struct Query: Sendable {
        /// One run (`--run N`); nil: the latest runs.
        package var runID: Int?
        /// Only this student's lines and changesets.
        package var userID: String?
        package var filter: UserRunFilter?
        package var since: Date?
        package var limit = 20
        /// Also runs in which nobody was due.
        package var includeEmpty = false
        /// A line per student under each run.
        package var students = false

        package init() {}
    }

    /// One night: the run of one worker (SQLite, or a PostgreSQL night one worker ran), or the
    /// runs of the workers that shared it (`SharedNights`).
    package struct Night: Sendable {
        /// Its runs, newest first.
        package var runs: [RunTotals]
        /// The night's workers on PostgreSQL; nil on SQLite.
        package var shared: SharedNights.Night?

        /// The night's name: its first run's id.
        package var id: Int { runs.map(\.run.id).min() ?? 0 }
    }

    /// What a `log` found.
    package struct Entries: Sendable {
        /// The runs listed, newest first (every worker's run of each night).
        package var totals: [RunTotals] = []
        /// The same runs by night, newest first; `limit` counts nights.
        package var nights: [Night] = []
        /// The students of each run (by run id), when the query asked for them.
        package var students: [Int: [UserRunRecord]] = [:]
        /// Changesets newest first; only in the overview (no `runID`, no `filter`).
        package var changesets: [ChangesetHeader] = []
    }

    let database: ReplanDatabase

    package init(database: ReplanDatabase) { self.database = database }

    package func entries(_ q: Query) throws(UseCaseError) -> Entries {
        let db = database.connection
        if let user = q.userID { _ = try storeCall { () throws(StoreError) in try UserRepository(db).get(user) } }
        let store = RunStore(db)
        var found = Entries()
        if let runID = q.runID {
            guard let one = try storeCall({ () throws(StoreError) in try store.runTotals(id: runID) }) else {
                throw .badInput("no run \(runID) (replan log lists the runs)")
            }
            found.totals = [one]
            found.nights = [Night(runs: [one], shared: nil)]
        } else {
            found.nights = try storeCall { () throws(StoreError) in try nights(q, store: store) }
            found.totals = found.nights.flatMap(\.runs)
        }
        if q.students {
            for t in found.totals {
                found.students[t.run.id] = try storeCall { () throws(StoreError) in
                    try store.userRuns(runID: t.run.id, userID: q.userID, filter: q.filter)
                }
            }
        }
        // Changesets belong to the overview; a question about runs (--run, --status) gets runs.
        if q.runID == nil && q.filter == nil {
            found.changesets = try storeCall { () throws(StoreError) in
                try ChangesetStore(db).changesets(userID: q.userID, limit: q.limit)
            }
            if let since = q.since { found.changesets = found.changesets.filter { $0.createdAt >= since } }
        }
        return found
    }

    /// The latest nights that hold a run matching the query, newest first, each with all its
    /// workers' runs (a worker in which nobody was due included). Runs are read page by page
    /// until `limit` nights are found; on SQLite every run is a night.
    private func nights(_ q: Query, store: RunStore) throws(StoreError) -> [Night] {
        let shared = try SharedNights(database.connection).nights()
        var nightOf: [Int: SharedNights.Night] = [:]
        for n in shared { for id in n.runIDs { nightOf[id] = n } }
        var found: [Night] = []
        var seen: Set<Int> = []
        var known: [Int: RunTotals] = [:]
        var before: Int?
        pages: while found.count < q.limit {
            let page = try store.runTotals(
                limit: q.limit, since: q.since, userID: q.userID, filter: q.filter, includeEmpty: q.includeEmpty,
                before: before)
            for t in page {
                known[t.run.id] = t
                if let n = nightOf[t.run.id] {
                    if seen.insert(n.id).inserted { found.append(Night(runs: [], shared: n)) }
                } else {
                    found.append(Night(runs: [t], shared: nil))
                }
                if found.count == q.limit { break pages }
            }
            guard page.count == q.limit, let last = page.last else { break }
            before = last.run.id
        }
        for i in found.indices {
            guard let n = found[i].shared else { continue }
            var runs: [RunTotals] = []
            for id in n.runIDs.reversed() {
                if let t = known[id] {
                    runs.append(t)
                } else if let t = try store.runTotals(id: id) {
                    runs.append(t)
                }
            }
            found[i].runs = runs
        }
        return found
    }

    /// The latest night on PostgreSQL (the one in progress, if any): its claims in total and per
    /// worker, and each worker's run with what it recorded so far. Nil when no worker ever ran
    /// a night here; always nil on SQLite, where one run at a time plans the night.
    package func latestNight() throws(UseCaseError) -> (progress: NightProgress, runs: [Int: RunTotals])? {
        let db = database.connection
        guard
            let progress = try storeCall({ () throws(StoreError) in try SharedNights(db).latest() })
        else { return nil }
        var runs: [Int: RunTotals] = [:]
        let store = RunStore(db)
        for id in progress.night.runIDs {
            runs[id] = try storeCall { () throws(StoreError) in try store.runTotals(id: id) }
        }
        return (progress, runs)
    }

    /// One changeset in full: its header, row images and report.
    package func changeset(_ id: ChangesetID) throws(UseCaseError) -> ChangesetRecord {
        let store = ChangesetStore(database.connection)
        return try storeCall { () throws(StoreError) in try store.changeset(id) }
    }

    /// The edits a changeset's report recorded, in its order.
    package static func edits(of record: ChangesetRecord) -> [PlanEdit] {
        (record.report["edits"]?.arrayValue ?? []).compactMap(EditReport.edit(from:))
    }

    /// The model exchange of the night that wrote changeset `id`; nil when no model was asked
    /// (or the changeset is not a night's).
    package func transcript(of id: ChangesetID) throws(UseCaseError) -> JSONValue? {
        let runs = RunStore(database.connection)
        guard let run = try storeCall({ () throws(StoreError) in try runs.userRun(changesetID: id) }) else {
            return nil
        }
        return try storeCall { () throws(StoreError) in try runs.transcript(userRunID: run.id) }
    }
}
