import Foundation
import Nightly
import Planning
import Store

/// A student's own edit from the command line, committed as a `manual` changeset so it is
/// logged and undoable like everything else. The plan is loaded, edited in memory and
/// committed with version checks: if another process changed a touched row meanwhile, the
/// commit is refused (exit 2) instead of overwriting it.
struct ManualEdit {
    let context: CommandContext
    let db: Database
    let userID: String

    func loadPlan() throws(CLIError) -> UserPlan {
        try storeCall { () throws(StoreError) in try PlanRepository(db).loadPlan(userID: userID, window: nil) }
    }

    /// Commits the difference between `original` and `working`; returns the changeset id, or
    /// nil when nothing changed.
    @discardableResult
    func commit(original: UserPlan, working: UserPlan) throws(CLIError) -> (ChangesetID, [PlanEdit])? {
        let today = working.zone.civil(context.now).date
        guard
            let prepared = PlanCommitter().prepare(
                original: original, working: working, origin: .manual, planDate: nil, now: context.now, reasons: [:],
                defaultReason: .manual, through: today.adding(days: working.settings.horizonDays))
        else { return nil }
        let id = try storeCall { () throws(StoreError) in try ChangesetStore(db).commit(prepared.changeset) }
        return (id, prepared.edits)
    }

    /// The task or occurrence id a command names as its one argument, the edit of its owner
    /// and the owner's plan as loaded.
    static func target(_ ctx: CommandContext, _ target: String, user: String?) throws(CLIError) -> (
        String, OccurrenceID, ManualEdit, UserPlan
    ) {
        guard let oid = OccurrenceID(target) else { throw .badInput("'\(target)' is not a task id or ID@YYYY-MM-DD") }
        let db = try ctx.openDatabase()
        let owner = try owner(of: oid.taskID, db: db)
        try requireUser(user, owns: target, owner: owner)
        let edit = ManualEdit(context: ctx, db: db, userID: owner)
        return (target, oid, edit, try edit.loadPlan())
    }

    /// `--user`, when given next to an id, must name the id's owner: a script that means one
    /// student must never act on another's data (exit 65, nothing done).
    static func requireUser(_ user: String?, owns target: String, owner: String) throws(CLIError) {
        if let named = user, named != owner {
            throw .badInput("\(target) belongs to \(owner), not to --user \(named); nothing done")
        }
    }

    /// The help of the `--user` option of commands that take an id: a guard, checked against
    /// the owner.
    static let userGuardHelp = "refuse (exit 65) unless the id belongs to this student"

    /// The user who owns a task id (task ids are unique across users).
    static func owner(of taskID: String, db: Database) throws(CLIError) -> String {
        guard let owner = try storeCall({ () throws(StoreError) in try PlanRepository(db).taskOwner(taskID: taskID) })
        else {
            throw .badInput("no task '\(taskID)'")
        }
        return owner
    }
}
