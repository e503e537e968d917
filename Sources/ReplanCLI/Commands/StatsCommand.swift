import Foundation
import JSON
import Nightly
import Planning

/// `replan stats --user ID [--today] [--json]`.
struct StatsCommand: ReplanCommand {
    static let configuration = CommandConfiguration(
        name: "stats", abstract: "per-category sessions, completed sessions, completion rate and focus minutes",
        discussion:
            "Counts every non-skipped session up to today (with --today: today's only); a bar chart on a terminal.")

    @Option(name: "--user", value: "ID", help: "student id") var user: String
    @Flag(name: "--today", help: "only today") var today: Bool
    @Flag(name: "--json", help: "print JSON") var json: Bool

    func run(_ ctx: CommandContext) throws -> ExitCode {
        let userID = self.user
        let db = try ctx.openExistingDatabase()
        let reader = PlanReader(database: db)
        let plan = try useCase { () throws(UseCaseError) in try reader.plan(userID: userID, window: nil) }
        let focus = try useCase { () throws(UseCaseError) in try reader.focusSessions(userID: userID) }
        let today = plan.zone.civil(ctx.now).date
        let from = self.today ? today : (CategoryStatistics.firstDate(of: plan, focusSessions: focus) ?? today)
        let stats = CategoryStatistics.compute(plan: plan, focusSessions: focus, from: min(from, today), through: today)
        if self.json {
            ctx.console.out(
                JSONValue.object([
                    "schema": "replan.stats/1", "user": .string(userID), "from": .string(min(from, today).description),
                    "to": .string(today.description),
                    "categories": .array(
                        stats.map { s in
                            [
                                "category": .string(s.category), "taskCount": .int(s.taskCount),
                                "completedCount": .int(s.completedCount),
                                "completionRate": .number((s.completionRate * 1000).rounded() / 1000),
                                "focusMinutes": .int(s.focusMinutes),
                            ]
                        }),
                ]).prettyText)
            return .success
        }
        if stats.isEmpty {
            ctx.console.out("no sessions yet")
            return .success
        }
        let width = max(8, stats.map { DisplayWidth.of($0.category) }.max() ?? 0)
        ctx.console.out(
            ctx.console.paint(DisplayWidth.padded("category", to: width) + "  sessions  done  rate   focus", .bold))
        for s in stats {
            var line = DisplayWidth.padded(s.category, to: width)
            line +=
                "  " + Self.pad(s.taskCount, 8) + "  " + Self.pad(s.completedCount, 4) + "  "
                + Self.pad(Int((s.completionRate * 100).rounded()), 3) + "%"
            line += "  " + Self.pad(s.focusMinutes, 4) + " min"
            if ctx.console.stdoutIsTTY {
                let bar = String(repeating: "█", count: Int((s.completionRate * 20).rounded()))
                line += "  " + ctx.console.paint(bar, .green) + String(repeating: "·", count: 20 - bar.count)
            }
            ctx.console.out(line)
        }
        return .success
    }

    static func pad(_ n: Int, _ width: Int) -> String {
        DisplayWidth.leftPadded(String(n), to: width)
    }
}
