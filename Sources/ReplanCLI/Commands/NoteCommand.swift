import Foundation
import JSON
import Nightly
import Planning

/// `replan note --user ID [CHANGESET]`: the morning note as the student gets it (docs/planning.md
/// §12), so an operator can read it before turning delivery on.
struct NoteCommand: ReplanCommand {
    static let configuration = CommandConfiguration(
        name: "note",
        abstract: "the morning note a student gets for a night: what changed, in words, in the student's language",
        discussion: """
            Prints the note of CHANGESET, or of the student's latest night with a note (a night that
            changed nothing but needs the student has one too, without a changeset): its title, then
            what was made up, which course moved along and by how much, what was added after a
            course's end, which habit days were let go, what was removed as too old, what the
            student should decide, the assistant's words, and the changeset that takes the night
            back. A student whose language has no texts gets English, and a warning says so.
            """)

    @Option(name: "--user", value: "ID", help: "student id") var user: String
    @Argument(name: "CHANGESET", what: "CHANGESET id", help: "a changeset id (default: the latest night's)")
    var changeset: String?
    @Flag(name: "--json", help: "print JSON") var json: Bool

    func run(_ ctx: CommandContext) throws -> ExitCode {
        let db = try ctx.openExistingDatabase()
        let reader = PlanReader(database: db)
        let userID = user
        let student = try useCase { () throws(UseCaseError) in try reader.user(userID) }
        let id: ChangesetID
        if let given = changeset {
            id = ChangesetID(given)
        } else {
            switch try useCase({ () throws(UseCaseError) in try NightNote.latest(userID: userID, database: db) }) {
            case .changeset(let last): id = last
            case .withoutChangeset(let run):
                // A night that needed the student and changed nothing: no changeset to name.
                return show(NightNote.note(of: run, user: student), changesetID: nil, student: student, ctx)
            case nil:
                throw CLIError.badInput(
                    "\(userID) has no nightly changeset yet (replan log --user \(userID) lists the runs)")
            }
        }
        let record = try useCase { () throws(UseCaseError) in try RunLog(database: db).changeset(id) }
        try ManualEdit.requireUser(userID, owns: "changeset \(id)", owner: record.header.userID)
        return show(NightNote.note(of: record, user: student), changesetID: id, student: student, ctx)
    }

    private func show(_ note: MorningNote?, changesetID id: ChangesetID?, student: User, _ ctx: CommandContext)
        -> ExitCode
    {
        let userID = student.id
        if let note, note.fellBack {
            ctx.console.log(
                "\(userID)'s language '\(student.language)' has no texts; the note is in English", priority: .warning)
        }
        if json {
            let o: JSONValue = [
                "schema": "replan.note/1", "user": .string(userID),
                "changesetId": id.map { .string($0.description) } ?? .null,
                "note": NightNote.json(note),
            ]
            ctx.console.out(o.prettyText)
            return .success
        }
        guard let note else {
            ctx.console.out(
                "(no note: changeset \(id?.description ?? "") changed nothing the student needs to hear about)")
            return .success
        }
        ctx.console.out(ctx.console.paint(note.title, .bold))
        ctx.console.out("")
        ctx.console.out(note.body)
        return .success
    }
}
