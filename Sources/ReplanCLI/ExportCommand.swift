import Exchange
import Foundation
import Planning
import Store

/// `replan export --user ID [--format json|ics]`.
struct ExportCommand: ReplanCommand {
    static let configuration = CommandConfiguration(
        name: "export",
        abstract: "write a student's data as replan/1 JSON (everything) or iCalendar (a date range) to stdout",
        discussion:
            "iCalendar lists each occurrence as its own event; the range defaults to 30 days back and 90 days ahead.")

    @Option(name: "--user", value: "ID", help: "student id") var user: String
    @Option(
        name: "--format", value: "json|ics", help: "json (default) or ics", completion: .words(["json", "ics"]))
    var format: String?
    @Option(name: "--from", help: "ics: first date") var from: CivilDate?
    @Option(name: "--to", help: "ics: last date") var to: CivilDate?

    func run(_ ctx: CommandContext) throws -> ExitCode { try Self.run(ctx, self) }

    static func run(_ ctx: CommandContext, _ a: ExportCommand) throws -> ExitCode {
        let userID = a.user
        let format = a.format ?? "json"
        guard format == "json" || format == "ics" else {
            throw CLIError.usage("--format must be json or ics, got '\(format)'")
        }
        let db = try ctx.openExistingDatabase()
        let plan = try storeCall { () throws(StoreError) in try PlanRepository(db).loadPlan(userID: userID, window: nil)
        }
        if format == "ics" {
            let today = plan.zone.civil(ctx.now).date
            let from = a.from ?? today.adding(days: -30)
            let to = a.to ?? today.adding(days: 90)
            guard from <= to else { throw CLIError.badInput("--from \(from) is after --to \(to)") }
            let dropped = try storeCall { () throws(StoreError) in
                try ChangesetStore(db).droppedSessions(
                    userID: userID, since: FeedsCommand.droppedSince(from...to, zone: plan.zone))
            }
            ctx.console.outDocument(
                ICalendarExport.render(plan, from: from, through: to, stamp: ctx.now, dropped: dropped))
            return .success
        }
        let focus = try storeCall { () throws(StoreError) in try FocusSessionRepository(db).sessions(userID: userID) }
        let entry = ReplanDocument.Entry(
            user: plan.user, tasks: plan.sortedTasks, overrides: plan.allOverrides, slides: plan.allSlides,
            focusSessions: focus.map { FocusSession(category: $0.category, start: $0.start, minutes: $0.minutes) })
        ctx.console.out(ReplanDocument(entries: [entry]).json.prettyText)
        return .success
    }
}
