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

    /// What `task edit` changes in a task; nil leaves a field as it is. Times are the student's
    /// local ones. `until` and `missed` apply to a series only: `.some(nil)` removes the
    /// series' last date, or gives it back its kind's policy for missed sessions.
    package struct TaskChanges: Sendable, Equatable {
        package var title: String?
        package var category: String?
        package var color: TaskColor?
        package var note: String?
        package var start: CivilDateTime?
        package var end: CivilDateTime?
        package var until: CivilDate??
        package var missed: RepeatRule.MissedPolicy??

        package init() {}

        /// Whether the change rewrites what a series' past sessions were (their titles,
        /// categories and statistics), not only what comes.
        package var changesHistory: Bool {
            title != nil || category != nil || color != nil || note != nil || start != nil || end != nil
        }
    }

    /// `original` with one occurrence of a series moved. Without `end` the occurrence keeps
    /// its length; without `start` it keeps its start. A completed occurrence is history.
    package func moving(
        _ oid: OccurrenceID, start: CivilDateTime?, end: CivilDateTime?, in original: UserPlan
    ) throws(UseCaseError) -> UserPlan {
        guard let task = original.tasks[oid.taskID] else { throw .badInput("no task '\(oid.taskID)'") }
        guard let occurrence = original.occurrence(oid) else {
            throw .badInput("\(oid) is not an occurrence of \(oid.taskID)")
        }
        guard occurrence.state != .completed else { throw .badInput("\(oid) is completed; its history is not changed") }
        let newStart = start ?? occurrence.start
        let newEnd = end ?? newStart.adding(minutes: occurrence.end.minuteNumber - occurrence.start.minuteNumber)
        do throws(DataError) { try TaskRules.validateTimes(start: newStart, end: newEnd, allDay: task.allDay) } catch {
            throw .invalid(DataError(path: "end", message: error.message))
        }
        var working = original
        working.move(oid, start: newStart, end: newEnd)
        return working
    }

    /// The outcome of `editing`: the plan to commit and, when the series was split, the id
    /// of the series that continues with the change and its first date.
    package struct EditedTask: Sendable {
        package var working: UserPlan
        package var continued: (id: String, from: CivilDate)?
    }

    /// `original` with task `taskID` changed. `from` (a series only) changes it from its first
    /// session on or after that date: the series ends the day before, and a new series (a new
    /// id) continues with the change, so the past keeps its titles, categories and statistics.
    /// A new start without a new end keeps the task's length.
    package func editing(
        _ taskID: String, _ changes: TaskChanges, from: CivilDate?, in original: UserPlan
    ) throws(UseCaseError) -> EditedTask {
        guard var task = original.tasks[taskID] else { throw .badInput("no task '\(taskID)'") }
        var working = original
        var continued: (id: String, from: CivilDate)?
        if let from {
            guard task.isSeries else {
                throw .badInput("\(taskID) does not repeat; a date to change it from applies to a series")
            }
            guard let split = original.splitDate(ofSeries: taskID, from: from) else {
                throw .badInput("\(taskID) has no session on or after \(from)")
            }
            if split > task.start.date {
                let newID = try newTaskID()
                guard let rest = working.splitSeries(taskID, at: split, newID: newID, now: now) else {
                    throw .badInput("\(taskID) cannot be split at \(split)")
                }
                task = rest
                continued = (newID, split)
            }
        }
        if let v = changes.title { task.title = v.trimmingWhitespace() }
        if let v = changes.category { task.category = v.trimmingWhitespace() }
        if let v = changes.color { task.color = v }
        if let v = changes.note { task.note = v }
        if let s = changes.start {
            if changes.end == nil { task.end = s.adding(minutes: task.end.minuteNumber - task.start.minuteNumber) }
            task.start = s
        }
        if let e = changes.end { task.end = e }
        if let until = changes.until {
            guard task.repeatRule != nil else {
                throw .invalid(DataError(path: "repeatRule.until", message: "applies to a repeating task only"))
            }
            task.repeatRule?.until = until
        }
        if let missed = changes.missed {
            guard task.repeatRule != nil else {
                throw .invalid(DataError(path: "repeatRule.missed", message: "applies to a repeating task only"))
            }
            task.repeatRule?.missed = missed
        }
        do throws(DataError) { try task.validate() } catch { throw .invalid(error) }
        working.put(task)
        return EditedTask(working: working, continued: continued)
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
