import Foundation
import Nightly
import Planning

/// `replan week --user ID [--date D]` and `replan show CHANGESET --week`: seven columns of a
/// student's sessions, with what a changeset did marked, so a night's effect is seen at a
/// glance. `week` marks the student's latest nightly changeset.
struct WeekCommand: ReplanCommand {
    static let configuration = CommandConfiguration(
        name: "week",
        abstract: "the student's week in seven columns, with the latest night's moves and new sessions marked",
        discussion: """
            Marks: ✓ completed, ✗ skipped, → moved here, + new, ~ changed, ⇢ where a moved session was.
            The moves and new sessions are those of the student's latest nightly changeset, or of
            --changeset. --date picks the week (Monday to Sunday; default: the student's today).
            """)

    @Option(name: "--user", value: "ID", help: "student id") var user: String
    @Option(name: "--date", help: "a day of the week to show (default: today)") var date: CivilDate?
    @Option(
        name: "--changeset", value: "CHANGESET", help: "mark this changeset's edits instead of the latest night's")
    var changeset: String?

    func run(_ ctx: CommandContext) throws -> ExitCode {
        let userID = self.user
        let db = try ctx.openExistingDatabase()
        let reader = PlanReader(database: db)
        let user = try useCase { () throws(UseCaseError) in try reader.user(userID) }
        var header: ChangesetHeader?
        var edits: [PlanEdit] = []
        if let id = self.changeset {
            let record = try useCase { () throws(UseCaseError) in try RunLog(database: db).changeset(ChangesetID(id)) }
            guard record.header.userID == userID else {
                throw CLIError.badInput("changeset \(id) belongs to \(record.header.userID), not \(userID)")
            }
            header = record.header
            edits = RunLog.edits(of: record)
        } else if let (last, lastEdits) = try useCase({ () throws(UseCaseError) in
            try reader.latestNight(userID: userID)
        }) {
            header = last
            edits = lastEdits
        }
        let day = self.date ?? user.zone.civil(ctx.now).date
        try Self.show(week: day, user: user, edits: edits, changeset: header, ctx: ctx, db: db)
        return .success
    }

    static func show(
        week day: CivilDate, user: User, edits: [PlanEdit], changeset: ChangesetHeader?, ctx: CommandContext,
        db: ReplanDatabase
    ) throws {
        let monday = day.adding(days: -day.weekday.index) // Weekday counts from Monday
        let sunday = monday.adding(days: 6)
        let plan = try useCase { () throws(UseCaseError) in
            try PlanReader(database: db).plan(user: user, window: monday...sunday)
        }
        ctx.console.out(
            render(
                plan: plan, monday: monday, edits: edits, changeset: changeset, console: ctx.console,
                columns: terminalColumns(ctx)))
        // What the marks stand for, in the student's words (docs/planning.md §12).
        if !edits.isEmpty {
            ctx.console.out(
                NightText.edits(edits, console: ctx.console, texts: NoteTexts(language: user.language)).joined(
                    separator: "\n"))
        }
    }

    /// `$COLUMNS`, else the terminal's width, else 120 (a file or a pipe).
    static func terminalColumns(_ ctx: CommandContext) -> Int {
        if let text = ctx.environment["COLUMNS"], let n = Int(text), n > 20 { return n }
        var size = winsize()
        if ctx.console.stdoutIsTTY, ioctl(1, UInt(TIOCGWINSZ), &size) == 0, size.ws_col > 20 { return Int(size.ws_col) }
        return 120
    }

    struct Entry {
        var start: CivilDateTime
        var text: String
        var color: TerminalColor?
    }

    static func render(
        plan: UserPlan, monday: CivilDate, edits: [PlanEdit], changeset: ChangesetHeader?,
        console: Console, columns: Int
    ) -> String {
        let days = (0..<7).map { monday.adding(days: $0) }
        let width = max(10, (columns - 2 * 6) / 7)
        var marks: [OccurrenceID: (String, TerminalColor)] = [:]
        var ghosts: [CivilDate: [Entry]] = [:]
        for e in edits {
            switch e.op {
            case .move:
                marks[e.id] = ("→", .blue)
                if let before = e.before, days.contains(before.start.date) {
                    ghosts[before.start.date, default: []].append(
                        Entry(
                            start: before.start, text: "⇢" + time(before.start) + " " + Console.oneLine(e.title),
                            color: .dim))
                }
            case .create: marks[e.id] = ("+", .green)
            case .update: marks[e.id] = ("~", .blue)
            case .skip: marks[e.id] = ("✗", .yellow)
            case .delete:
                if let before = e.before, days.contains(before.start.date) {
                    ghosts[before.start.date, default: []].append(
                        Entry(
                            start: before.start,
                            text: "✗" + time(before.start) + " " + Console.oneLine(e.title) + " (deleted)",
                            color: .red))
                }
            }
        }
        var byDay: [CivilDate: [Entry]] = ghosts
        for o in plan.occurrences(from: days[0], through: days[6]) {
            var mark = " "
            var color: TerminalColor?
            if let m = marks[o.id] { (mark, color) = (m.0, m.1) }
            if o.state == .completed {
                mark = "✓"
                color = color ?? .dim
            }
            if o.state == .skipped {
                mark = "✗"
                color = .yellow
            }
            let when = o.allDay ? "all day" : time(o.start)
            // A session over several days shows on each of them.
            var d = max(o.start.date, days[0])
            while d <= min(o.allDay ? o.end.date : o.end.adding(minutes: -1).date, days[6]) {
                byDay[d, default: []].append(
                    Entry(start: o.start, text: mark + when + " " + Console.oneLine(o.title), color: color))
                d = d.adding(days: 1)
            }
        }
        var lines: [String] = []
        if let changeset {
            lines.append(
                "week of \(days[0]) for \(plan.user.id) — marks from changeset \(changeset.id) (\(changeset.origin.rawValue)\(changeset.planDate.map { ", plan date \($0)" } ?? ""))"
            )
        } else {
            lines.append("week of \(days[0]) for \(plan.user.id) — no nightly changeset yet")
        }
        let head = days.map {
            DisplayWidth.padded(
                fit("\($0.weekday.englishAbbreviation) \(String($0.description.dropFirst(5)))", width), to: width)
        }
        lines.append(console.paint(head.joined(separator: "  ").trimmingTrailingSpaces(), .bold))
        let sorted = days.map { (byDay[$0] ?? []).sorted { $0.start < $1.start } }
        let rows = sorted.map(\.count).max() ?? 0
        if rows == 0 { lines.append("(no sessions this week)") }
        for r in 0..<rows {
            let cells = sorted.map { entries -> String in
                guard r < entries.count else { return String(repeating: " ", count: width) }
                let e = entries[r]
                let text = DisplayWidth.padded(fit(e.text, width), to: width)
                return e.color.map { console.paint(text, $0) } ?? text
            }
            lines.append(cells.joined(separator: "  ").trimmingTrailingSpaces())
        }
        lines.append("✓ completed  ✗ skipped  → moved here  ⇢ moved away  + new  ~ changed")
        return lines.joined(separator: "\n")
    }

    static func time(_ t: CivilDateTime) -> String { t.time.description }

    /// `text` cut to `width` display columns, with an ellipsis when cut.
    static func fit(_ text: String, _ width: Int) -> String {
        guard DisplayWidth.of(text) > width else { return text }
        var out = ""
        var used = 0
        for character in text {
            let w = DisplayWidth.of(String(character))
            if used + w > width - 1 { break }
            out.append(character)
            used += w
        }
        return out + "…"
    }
}

extension String {
    fileprivate func trimmingTrailingSpaces() -> String {
        var s = Substring(self)
        while s.hasSuffix(" ") { s = s.dropLast() }
        return String(s)
    }
}
