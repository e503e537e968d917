import Foundation
import JSON
import Planning
import Store

/// `replan stats --user ID [--today] [--json]`.
enum StatsCommand {
    static let descriptor = CommandDescriptor(
        path: ["stats"], synopsis: "stats --user ID [--today] [--json]",
        summary: "per-category sessions, completed sessions, completion rate and focus minutes",
        details:
            "Counts every non-skipped session up to today (with --today: today's only); a bar chart on a terminal.",
        options: [.value("--user", "student id"), .flag("--today", "only today"), .flag("--json", "print JSON")]
    ) { ctx in
        try ctx.arguments.rejectExtraPositionals(beyond: 0)
        let a = ctx.arguments
        let userID = try a.required("--user")
        let db = try ctx.openExistingDatabase()
        let plan = try storeCall { () throws(StoreError) in try PlanRepository(db).loadPlan(userID: userID, window: nil)
        }
        let focus = try storeCall { () throws(StoreError) in try FocusSessionRepository(db).sessions(userID: userID) }
            .map { FocusSession(category: $0.category, start: $0.start, minutes: $0.minutes) }
        let today = plan.zone.civil(ctx.now).date
        let from = a.flag("--today") ? today : (CategoryStatistics.firstDate(of: plan, focusSessions: focus) ?? today)
        let stats = CategoryStatistics.compute(plan: plan, focusSessions: focus, from: min(from, today), through: today)
        if a.flag("--json") {
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
        ctx.console.out(DisplayWidth.padded("category", to: width) + "  sessions  done  rate   focus")
        for s in stats {
            var line = DisplayWidth.padded(s.category, to: width)
            line +=
                "  " + pad(s.taskCount, 8) + "  " + pad(s.completedCount, 4) + "  "
                + pad(Int((s.completionRate * 100).rounded()), 3) + "%"
            line += "  " + pad(s.focusMinutes, 4) + " min"
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
