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

    /// What a `log` found.
    package struct Entries: Sendable {
        package var totals: [RunTotals] = []
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
        } else {
            found.totals = try storeCall { () throws(StoreError) in
                try store.runTotals(
                    limit: q.limit, since: q.since, userID: q.userID, filter: q.filter, includeEmpty: q.includeEmpty)
            }
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
