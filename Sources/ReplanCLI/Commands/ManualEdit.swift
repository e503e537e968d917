import Foundation
import Nightly
import Planning

/// The command-line side of a student's own edit: which task or occurrence the command names,
/// and the `--user` guard. The edit itself (load, change, commit as a `manual` changeset with
/// version checks) is `ManualEditor`'s.
enum ManualEdit {
    /// The task or occurrence id a command names as its one argument, the editor of its owner
    /// and the owner's plan as loaded.
    static func target(_ ctx: CommandContext, _ target: String, user: String?) throws(CLIError) -> (
        String, OccurrenceID, ManualEditor, UserPlan
    ) {
        guard let oid = OccurrenceID(target) else { throw .badInput("'\(target)' is not a task id or ID@YYYY-MM-DD") }
        let db = try ctx.openExistingDatabase()
        let edit = try useCase { () throws(UseCaseError) in
            try ManualEditor.owning(taskID: oid.taskID, database: db, now: ctx.now)
        }
        try requireUser(user, owns: target, owner: edit.userID)
        return (target, oid, edit, try useCase { () throws(UseCaseError) in try edit.loadPlan() })
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
}
