import Foundation
import Planning
import Store

/// A student's own edit (`task add|edit|rm|done`), committed as a `manual` changeset so it is
/// logged and undoable like everything else. The plan is loaded, edited in memory by the
/// caller (or by the checked operations below) and committed with version checks: if another
/// process changed a touched row meanwhile, the commit is refused (a conflict) instead of
/// overwriting it.
package struct ManualEditor {
    /// What a committed edit did.
    package struct Change: Sendable {
        package var changesetID: ChangesetID
        package var edits: [PlanEdit]
    }

    let database: ReplanDatabase
    package let userID: String
    package let now: Date

    package init(database: ReplanDatabase, userID: String, now: Date) {
        self.database = database
        self.userID = userID
        self.now = now
    }

    /// The editor of the student who owns `taskID` (task ids are unique across students).
    package static func owning(taskID: String, database: ReplanDatabase, now: Date) throws(UseCaseError)
        -> ManualEditor
    {
        let plans = PlanRepository(database.connection)
        guard let owner = try storeCall({ () throws(StoreError) in try plans.taskOwner(taskID: taskID) }) else {
            throw .badInput("no task '\(taskID)'")
        }
        return ManualEditor(database: database, userID: owner, now: now)
    }

    /// The student, for their zone and settings.
    package func user() throws(UseCaseError) -> User {
        let users = UserRepository(database.connection)
        return try storeCall { () throws(StoreError) in try users.get(userID) }
    }

    /// The student's whole plan as stored.
    package func loadPlan() throws(UseCaseError) -> UserPlan {
        let plans = PlanRepository(database.connection)
        return try storeCall { () throws(StoreError) in try plans.loadPlan(userID: userID, window: nil) }
    }

    /// Whether any student has a task `id`.
    package func taskExists(_ id: String) throws(UseCaseError) -> Bool {
        let plans = PlanRepository(database.connection)
        return try storeCall { () throws(StoreError) in try plans.task(id: id) } != nil
    }

    /// A task id no task has yet.
    package func newTaskID() throws(UseCaseError) -> String {
        while true {
            let id = "t-" + StableID.base32(UInt64.random(in: 0...UInt64.max), length: 10)
            if try !taskExists(id) { return id }
        }
    }

    /// `original` with `oid` removed: a task id deletes the task (a whole series with its
    /// history), an occurrence id skips that occurrence. A completed occurrence is history and
    /// is not changed.
    package func removing(_ oid: OccurrenceID, from original: UserPlan) throws(UseCaseError) -> UserPlan {
        var working = original
        if oid.originalDate != nil {
            guard let o = original.occurrence(oid) else {
                throw .badInput("\(oid) is not an occurrence of \(oid.taskID)")
            }
            guard o.state != .completed else { throw .badInput("\(oid) is completed; its history is not changed") }
            working.skip(oid)
        } else {
            working.deleteTask(oid.taskID)
        }
        return working
    }

    /// `original` with the occurrence `oid` completed (a one-off task's id names its one
    /// occurrence; a series needs `ID@DATE`).
    package func completing(_ oid: OccurrenceID, in original: UserPlan) throws(UseCaseError) -> UserPlan {
        guard original.occurrence(oid) != nil else {
            if original.tasks[oid.taskID]?.isSeries == true, oid.originalDate == nil {
                throw .badInput("\(oid) is a series; name the occurrence as \(oid)@YYYY-MM-DD")
            }
            throw .badInput("\(oid) is not an occurrence of \(oid.taskID)")
        }
        var working = original
        working.complete(oid)
        return working
    }

    /// Commits the difference between `original` and `working`; nil when nothing changed.
    package func commit(original: UserPlan, working: UserPlan) throws(UseCaseError) -> Change? {
        let today = working.zone.civil(now).date
        guard
            let prepared = PlanCommitter().prepare(
                original: original, working: working, origin: .manual, planDate: nil, now: now, reasons: [:],
                defaultReason: .manual, through: today.adding(days: working.settings.horizonDays))
        else { return nil }
        let store = ChangesetStore(database.connection)
        let id = try storeCall { () throws(StoreError) in try store.commit(prepared.changeset) }
        return Change(changesetID: id, edits: prepared.edits)
    }
}
