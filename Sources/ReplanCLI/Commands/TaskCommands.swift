import Foundation
import JSON
import Nightly
import Planning

/// `replan task add|edit|rm|done|list`. Every change is a `manual` changeset (undoable).
enum TaskCommands {
    struct Group: ReplanCommand {
        static let configuration = CommandConfiguration(
            name: "task", abstract: "tasks and occurrences",
            subcommands: [Add.self, Edit.self, Remove.self, Done.self, List.self])
    }

    /// The help of the options `task add` and `task edit` share.
    enum Help {
        static let title = "1-200 characters"
        static let start = "local YYYY-MM-DDTHH:MM (a date for --all-day)"
        static let end = "local YYYY-MM-DDTHH:MM (the last day for --all-day)"
        static let category = "specific category"
        static let color = "red (urgent), yellow (medium), green (learning), blue (routine)"
        static let note = "free text"
        /// docs/planning.md §4: what a series does with a missed session.
        static let missed =
            "a missed session of the series: shift (appended after its end: a course), skip (a habit), make-up (before the next one); default: shift for a daily series with an end, skip without one, make-up weekly and monthly"
    }

    static let colors = CompletionKind.words(["red", "yellow", "green", "blue"])

    /// A use case's refusal; an invalid value is named by its option (`end` → `--end`,
    /// `repeatRule.until` → `--until`).
    static func editorCall<T>(_ body: () throws(UseCaseError) -> T) throws(CLIError) -> T {
        do { return try body() } catch {
            guard let field = error.field, error.kind == .badInput else { throw CLIError(error) }
            throw .badInput("\(option(field: String(field.split(separator: ".").last ?? ""))): \(error.message)")
        }
    }

    /// The option that sets a task's field (`end` → `--end`; a task's `color` is `--task-color`,
    /// since `--color` is the terminal's).
    static func option(field: String) -> String {
        field == "color" ? "--task-color" : "--" + SettingsCommands.kebab(field)
    }

    /// `task add --repeat`: how a series repeats. `none` (no series) is accepted as it always
    /// was, but not listed.
    enum RepeatChoice: String, ArgumentChoice {
        case daily, weekly, monthly, none
        static var allCases: [RepeatChoice] { [.daily, .weekly, .monthly] }
        static func rejection(_ text: String, option: String) -> CLIError {
            .badInput("\(option) '\(text)' is not daily, weekly or monthly")
        }
        var frequency: RepeatRule.Frequency? {
            switch self {
            case .daily: .daily
            case .weekly: .weekly
            case .monthly: .monthly
            case .none: nil
            }
        }
    }

    /// `task add --missed`: what the series does with a missed session (docs/planning.md §4).
    enum MissedChoice: String, ArgumentChoice {
        case shift, skip
        case makeUp = "make-up"
        static func rejection(_ text: String, option: String) -> CLIError {
            .badInput("\(option) '\(text)' is not shift, skip or make-up")
        }
        var policy: RepeatRule.MissedPolicy {
            switch self {
            case .shift: .shift
            case .skip: .skip
            case .makeUp: .makeUp
            }
        }
    }

    /// `task edit --missed`: a policy, or `default` (the series' kind's, docs/planning.md §4).
    enum MissedEditChoice: String, ArgumentChoice {
        case shift, skip
        case makeUp = "make-up"
        case `default`
        static func rejection(_ text: String, option: String) -> CLIError {
            MissedChoice.rejection(text, option: option)
        }
        /// nil: the kind's default.
        var policy: RepeatRule.MissedPolicy? { MissedChoice(rawValue: rawValue)?.policy }
    }

    struct Add: ReplanCommand {
        static let configuration = CommandConfiguration(
            name: "add", abstract: "add a study session or a repeating series",
            discussion: "Every task needs a specific category. Times are local wall-clock times in the student's zone.")

        @Option(name: "--user", value: "ID", help: "student id") var user: String
        @Option(name: "--title", value: "T", help: Help.title) var title: String
        @Option(name: "--start", value: "DT", help: Help.start) var start: String
        @Option(name: "--end", value: "DT", help: Help.end) var end: String
        @Option(
            name: "--category", value: "C", help: Help.category,
            missing: "--category is required: every task needs a specific category")
        var category: String
        @Option(name: "--task-color", value: "C", help: Help.color, completion: colors) var color: String?
        @Option(name: "--note", value: "N", help: Help.note) var note: String?
        @Flag(name: "--all-day", help: "an all-day task (dates, end = last day)") var allDay: Bool
        @Option(name: "--repeat", help: "how the series repeats") var `repeat`: RepeatChoice?
        @Option(name: "--until", help: "last date of the series (inclusive)") var until: CivilDate?
        @Option(name: "--missed", help: Help.missed) var missed: MissedChoice?
        @Option(name: "--subtask", value: "T", help: "a checklist item") var subtasks: [String]
        @Option(name: "--id", value: "ID", help: "use this task id instead of a generated one") var id: String?
        @Flag(name: "--json", help: "print the result as JSON") var json: Bool

        func run(_ ctx: CommandContext) throws -> ExitCode {
            let userID = self.user
            let db = try ctx.openExistingDatabase()
            let edit = ManualEditor(database: db, userID: userID, now: ctx.now)
            let user = try useCase { () throws(UseCaseError) in try edit.user() }
            let allDay = self.allDay
            var rule: RepeatRule?
            if let f = self.repeat?.frequency {
                rule = RepeatRule(every: f, until: self.until, missed: self.missed?.policy)
            } else if self.until != nil || self.missed != nil {
                throw CLIError.usage("\(self.until != nil ? "--until" : "--missed") needs --repeat")
            }
            let id = try self.id ?? useCase { () throws(UseCaseError) in try edit.newTaskID() }
            if try useCase({ () throws(UseCaseError) in try edit.taskExists(id) }) {
                throw CLIError.badInput("a task with id '\(id)' already exists")
            }
            let task = StudyTask(
                id: id, userID: userID, title: self.title.trimmingWhitespace(),
                note: self.note ?? "",
                category: self.category.trimmingWhitespace(),
                color: try self.color.map(CLIValues.color) ?? .green,
                start: try CLIValues.dateTime(
                    self.start, option: "--start", zone: user.zone, allDay: allDay),
                end: try CLIValues.dateTime(self.end, option: "--end", zone: user.zone, allDay: allDay),
                allDay: allDay, subtasks: self.subtasks.map { Subtask(title: $0.trimmingWhitespace()) },
                repeatRule: rule,
                createdAt: ctx.now)
            do throws(DataError) { try task.validate() } catch {
                throw error.asCLIError(option: TaskCommands.option(field: error.path))
            }
            let original = try useCase { () throws(UseCaseError) in try edit.loadPlan() }
            var working = original
            working.put(task)
            let result = try useCase { () throws(UseCaseError) in try edit.commit(original: original, working: working)
            }
            report(ctx, verb: "added", id: id, result: result, json: self.json)
            return .success
        }
    }

    struct Edit: ReplanCommand {
        static let configuration = CommandConfiguration(
            name: "edit", abstract: "change a task; with ID@DATE, move one occurrence of a series",
            discussion: """
                On an occurrence id (ID@DATE), only --start/--end apply: the occurrence moves, the series stays.
                On a series id with sessions before today, say which sessions change: --from DATE changes the
                series from its first session on or after DATE ("this and following": the series ends before
                it and a new series, printed, continues with the change; the past keeps its titles, categories
                and statistics), --all changes every session, past ones included. On a terminal replan asks;
                otherwise one of the two is required (exit 64). --start/--end move the series' first session
                (its time of day and length) and need --all.
                """)

        @Argument(
            name: "ID|ID@YYYY-MM-DD", what: "task or occurrence id",
            help: "a task id, or ID@YYYY-MM-DD for one occurrence of a series")
        var target: String
        @Option(name: "--title", value: "T", help: Help.title) var title: String?
        @Option(name: "--start", value: "DT", help: Help.start) var start: String?
        @Option(name: "--end", value: "DT", help: Help.end) var end: String?
        @Option(name: "--category", value: "C", help: Help.category) var category: String?
        @Option(name: "--task-color", value: "C", help: Help.color, completion: colors) var color: String?
        @Option(name: "--note", value: "N", help: Help.note) var note: String?
        @Option(name: "--until", value: "DATE", help: "last date of a series (inclusive); 'none' removes it")
        var until: String?
        @Option(
            name: "--missed",
            help: "a series' policy for missed sessions: shift, skip, make-up, or default (its kind's)")
        var missed: MissedEditChoice?
        @Flag(name: "--json", help: "print the result as JSON") var json: Bool
        @Option(name: "--from", help: "series: change sessions from this date on only (the series is split)")
        var from: CivilDate?
        @Flag(name: "--all", help: "series: change every session, past ones included") var all: Bool
        @Option(name: "--user", value: "ID", help: ManualEdit.userGuardHelp) var user: String?

        func run(_ ctx: CommandContext) throws -> ExitCode {
            let (target, oid, edit, original) = try ManualEdit.target(ctx, self.target, user: self.user)
            guard let task = original.tasks[oid.taskID] else { throw CLIError.badInput("no task '\(oid.taskID)'") }
            let zone = original.zone
            func time(_ text: String?, _ option: String) throws(CLIError) -> CivilDateTime? {
                try text.map { (t: String) throws(CLIError) in
                    try CLIValues.dateTime(t, option: option, zone: zone, allDay: task.allDay)
                }
            }
            let working: UserPlan
            if oid.originalDate != nil {
                for (option, given) in self.seriesOptions where given {
                    throw CLIError.usage(
                        "\(option) changes the whole series; edit \(oid.taskID) instead of one occurrence")
                }
                let (start, end) = (try time(self.start, "--start"), try time(self.end, "--end"))
                working = try editorCall { () throws(UseCaseError) in
                    try edit.moving(oid, start: start, end: end, in: original)
                }
            } else {
                var from: CivilDate?
                if task.isSeries {
                    from = try seriesScope(ctx, self, task: task, today: zone.civil(ctx.now).date)
                } else if self.all || self.from != nil {
                    throw CLIError.usage("--all and --from apply to a repeating task only")
                }
                var changes = ManualEditor.TaskChanges()
                changes.title = self.title
                changes.category = self.category
                changes.color = try self.color.map { (c: String) throws(CLIError) in try CLIValues.color(c) }
                changes.note = self.note
                changes.start = try time(self.start, "--start")
                changes.end = try time(self.end, "--end")
                if let v = self.until {
                    changes.until = .some(v == "none" ? nil : try CLIValues.date(v, option: "--until"))
                }
                if let v = self.missed { changes.missed = .some(v.policy) }
                let scope = from
                let edited = try editorCall { () throws(UseCaseError) in
                    try edit.editing(oid.taskID, changes, from: scope, in: original)
                }
                if let continued = edited.continued {
                    ctx.console.log(
                        "\(oid.taskID) ends on \(continued.from.adding(days: -1)); from \(continued.from) on it continues as \(continued.id) with the change",
                        priority: .notice)
                }
                working = edited.working
            }
            let result = try useCase { () throws(UseCaseError) in try edit.commit(original: original, working: working)
            }
            report(ctx, verb: "edited", id: target, result: result, json: self.json)
            return .success
        }

        /// The options that change the whole series, with whether each was given.
        var seriesOptions: [(String, Bool)] {
            [
                ("--title", title != nil), ("--category", category != nil), ("--task-color", color != nil),
                ("--note", note != nil), ("--until", until != nil), ("--missed", missed != nil),
            ]
        }
    }

    /// Which sessions an edit of a series changes: nil = all of them, else from that date on.
    /// Only a series with sessions before today needs the choice (changing it whole rewrites
    /// history); `--until` alone never does.
    static func seriesScope(
        _ ctx: CommandContext, _ a: Edit, task: StudyTask, today: CivilDate
    ) throws(CLIError) -> CivilDate? {
        let movesTimes = a.start != nil || a.end != nil
        if a.all {
            guard a.from == nil else { throw .usage("--all and --from exclude each other") }
            return nil
        }
        if let from = a.from {
            guard !movesTimes else {
                throw .usage(
                    "--start/--end move the whole series and need --all; move single sessions with \(task.id)@YYYY-MM-DD"
                )
            }
            return from
        }
        let changesHistory = [a.title, a.category, a.color, a.note, a.start, a.end].contains { $0 != nil }
        guard changesHistory, task.start.date < today else { return nil }
        guard ctx.console.stdinIsTTY else {
            throw .usage(
                "\(task.id) repeats since \(task.start.date): pass --from DATE to change it from DATE on (e.g. --from \(today); the past keeps its titles and statistics) or --all to change every session, past ones included"
            )
        }
        ctx.console.err(
            "\(task.id) repeats since \(task.start.date). Change [a]ll sessions, past ones included, or only from [t]oday (\(today)) on? [a/t/N] "
        )
        switch ctx.console.readLine()?.lowercased() {
        case "a", "all": return nil
        case "t", "today":
            guard !movesTimes else {
                throw .usage(
                    "--start/--end move the whole series; answer 'all', or move single sessions with \(task.id)@YYYY-MM-DD"
                )
            }
            return today
        default: throw CLIError(.success, "nothing done")
        }
    }

    struct Remove: ReplanCommand {
        static let configuration = CommandConfiguration(
            name: "rm", abstract: "delete a task (a whole series with its history), or skip one occurrence of a series")

        @Argument(
            name: "ID|ID@YYYY-MM-DD", what: "task or occurrence id",
            help: "a task id, or ID@YYYY-MM-DD for one occurrence of a series")
        var target: String
        @Flag(name: "--json", help: "print the result as JSON") var json: Bool
        @Option(name: "--user", value: "ID", help: ManualEdit.userGuardHelp) var user: String?

        func run(_ ctx: CommandContext) throws -> ExitCode {
            let (target, oid, edit, original) = try ManualEdit.target(ctx, self.target, user: self.user)
            let result = try useCase { () throws(UseCaseError) in
                try edit.commit(original: original, working: try edit.removing(oid, from: original))
            }
            report(
                ctx, verb: oid.originalDate == nil ? "deleted" : "skipped", id: target, result: result, json: self.json)
            return .success
        }
    }

    struct Done: ReplanCommand {
        static let configuration = CommandConfiguration(
            name: "done", abstract: "mark one occurrence completed (a one-off task id, or ID@YYYY-MM-DD of a series)")

        @Argument(
            name: "OCCURRENCE", what: "occurrence id",
            help: "a one-off task id, or ID@YYYY-MM-DD for one occurrence of a series")
        var target: String
        @Flag(name: "--json", help: "print the result as JSON") var json: Bool
        @Option(name: "--user", value: "ID", help: ManualEdit.userGuardHelp) var user: String?

        func run(_ ctx: CommandContext) throws -> ExitCode {
            let (target, oid, edit, original) = try ManualEdit.target(ctx, self.target, user: self.user)
            let result = try useCase { () throws(UseCaseError) in
                try edit.commit(original: original, working: try edit.completing(oid, in: original))
            }
            report(ctx, verb: "completed", id: target, result: result, json: self.json)
            return .success
        }
    }

    struct List: ReplanCommand {
        static let configuration = CommandConfiguration(
            name: "list", abstract: "list occurrences in a date range (default: the planning window around today)")

        @Option(name: "--user", value: "ID", help: "student id") var user: String
        @Option(name: "--from", help: "first local date (inclusive)") var from: CivilDate?
        @Option(name: "--to", help: "last local date (inclusive)") var to: CivilDate?
        @Flag(name: "--json", help: "print JSON") var json: Bool

        func run(_ ctx: CommandContext) throws -> ExitCode {
            let userID = self.user
            let db = try ctx.openExistingDatabase()
            let reader = PlanReader(database: db)
            let user = try useCase { () throws(UseCaseError) in try reader.user(userID) }
            let today = user.zone.civil(ctx.now).date
            let from =
                self.from
                ?? today.adding(days: -user.settings.deleteAfterDays)
            let to =
                self.to
                ?? today.adding(days: user.settings.horizonDays)
            guard from <= to else { throw CLIError.badInput("--from \(from) is after --to \(to)") }
            guard from.days(until: to) <= 3660 else {
                throw CLIError.badInput("the range \(from)…\(to) is longer than ten years")
            }
            let plan = try useCase { () throws(UseCaseError) in try reader.plan(userID: userID, window: from...to) }
            let occurrences = plan.occurrences(from: from, through: to)
            if self.json {
                ctx.console.out(
                    JSONValue.object([
                        "schema": "replan.tasks/1", "user": .string(userID), "from": .string(from.description),
                        "to": .string(to.description),
                        "occurrences": .array(
                            occurrences.map { o in
                                [
                                    "id": .string(o.id.description), "taskId": .string(o.taskID),
                                    "title": .string(o.title),
                                    "category": .string(o.category), "color": .string(o.color.rawValue),
                                    "start": .string(o.start.description), "end": .string(o.end.description),
                                    "allDay": .bool(o.allDay), "state": .string(o.state.rawValue),
                                    "repeat": plan.tasks[o.taskID]?.repeatRule.map { r -> JSONValue in
                                        [
                                            "every": .string(r.every.rawValue),
                                            "missed": .string(r.effectiveMissed.rawValue),
                                        ]
                                    } ?? .null,
                                ]
                            }),
                    ]).prettyText)
            } else if occurrences.isEmpty {
                ctx.console.out("no sessions from \(from) to \(to)")
            } else {
                var day: CivilDate?
                for o in occurrences {
                    if o.start.date != day {
                        day = o.start.date
                        ctx.console.out(
                            ctx.console.paint("\(o.start.date) \(o.start.date.weekday.englishAbbreviation)", .bold))
                    }
                    let time = o.allDay ? "all day    " : "\(o.start.time)–\(o.end.time)"
                    let state = o.state == .open ? "" : "  (\(o.state.rawValue))"
                    // A series says how it repeats and what a missed session of it gets (docs/planning.md §4).
                    let series =
                        plan.tasks[o.taskID]?.repeatRule.map {
                            "  \($0.every.rawValue), missed: \($0.effectiveMissed.rawValue)"
                        } ?? ""
                    ctx.console.out(
                        "  \(time)  \(Console.oneLine(o.title))  [\(Console.oneLine(o.category))]  \(ctx.console.paint(o.id.description, .dim))\(state)\(ctx.console.paint(series, .dim))"
                    )
                }
            }
            return .success
        }
    }

    static func report(_ ctx: CommandContext, verb: String, id: String, result: ManualEditor.Change?, json: Bool) {
        if json {
            ctx.console.out(
                JSONValue.object([
                    "schema": "replan.task-change/1", "id": .string(id),
                    "changesetId": result.map { .string($0.changesetID.description) } ?? .null,
                    "edits": .array((result?.edits ?? []).map(EditReport.edit)),
                ]).prettyText)
        } else if let cs = result?.changesetID {
            ctx.console.out("\(verb) \(id) (changeset \(cs); undo with: replan undo \(cs))")
        } else {
            ctx.console.out("\(id): nothing changed")
        }
    }
}
