import Foundation
import Nightly
import Planning

/// `replan export --user ID [--format json|ics]`.
struct ExportCommand: ReplanCommand {
    static let configuration = CommandConfiguration(
        name: "export",
        abstract: "write a student's data as replan/1 JSON (everything) or iCalendar (a date range) to stdout",
        discussion:
            "iCalendar lists each occurrence as its own event; the range defaults to 30 days back and 90 days ahead.")

    @Option(name: "--user", value: "ID", help: "student id") var user: String
    @Option(name: "--format", help: "json (default) or ics") var format: Format?
    @Option(name: "--from", help: "ics: first date") var from: CivilDate?
    @Option(name: "--to", help: "ics: last date") var to: CivilDate?

    func run(_ ctx: CommandContext) throws -> ExitCode {
        let userID = self.user
        let format = self.format ?? .json
        let db = try ctx.openExistingDatabase()
        let exporter = Exporter(database: db)
        if format == .ics {
            let (from, to) = (self.from, self.to)
            let calendar = try useCase { () throws(UseCaseError) in
                try exporter.calendar(userID: userID, from: from, to: to, now: ctx.now)
            }
            ctx.console.outDocument(calendar)
            return .success
        }
        let document = try useCase { () throws(UseCaseError) in try exporter.document(userID: userID) }
        ctx.console.out(document.prettyText)
        return .success
    }

    /// `--format`: the whole replan/1 document, or a date range as iCalendar.
    enum Format: String, ArgumentChoice {
        case json, ics
    }
}
