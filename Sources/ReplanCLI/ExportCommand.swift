import Foundation
import Nightly
import Planning

/// `replan export --user ID [--format json|ics]`.
enum ExportCommand {
    static let descriptor = CommandDescriptor(
        path: ["export"], synopsis: "export --user ID [--format json|ics] [--from DATE] [--to DATE]",
        summary: "write a student's data as replan/1 JSON (everything) or iCalendar (a date range) to stdout",
        details:
            "iCalendar lists each occurrence as its own event; the range defaults to 30 days back and 90 days ahead.",
        options: [
            .value("--user", "student id"), .value("--format", "json (default) or ics"),
            .value("--from", "ics: first date"), .value("--to", "ics: last date"),
        ]
    ) { ctx in
        try ctx.arguments.rejectExtraPositionals(beyond: 0)
        let a = ctx.arguments
        let userID = try a.required("--user")
        let format = a.value("--format") ?? "json"
        guard format == "json" || format == "ics" else {
            throw CLIError.usage("--format must be json or ics, got '\(format)'")
        }
        let db = try ctx.openExistingDatabase()
        let exporter = Exporter(database: db)
        if format == "ics" {
            let (from, to) = (try a.date("--from"), try a.date("--to"))
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
}
