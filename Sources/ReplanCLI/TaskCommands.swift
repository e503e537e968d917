import Foundation
import JSON
import Nightly
import Planning
import Store

/// `replan task add|edit|rm|done|list`. Every change is a `manual` changeset (undoable).
enum TaskCommands {
    static let all = [add, edit, remove, done, list]

    static let taskOptions: [OptionSpec] = [
        .value("--title", "1-200 characters"), .value("--start", "local YYYY-MM-DDTHH:MM (a date for --all-day)"),
        .value("--end", "local YYYY-MM-DDTHH:MM (the last day for --all-day)"),
        .value("--category", "specific category"),
        .value("--color", "red (urgent), yellow (medium), green (learning), blue (routine)"),
        .value("--note", "free text"),
    ]

    /// planning.md §4: what a series does with a missed session.
    static let missedOption = OptionSpec.value(
        "--missed",
        "a missed session of the series: shift (appended after its end: a course), skip (a habit), make-up (before the next one); default: shift for a daily series with an end, skip without one, make-up weekly and monthly"
    )

    static func missedPolicy(_ a: Arguments) throws(CLIError) -> RepeatRule.MissedPolicy? {
        guard let v = a.value("--missed") else { return nil }
        guard let policy = RepeatRule.MissedPolicy(rawValue: v) else {
            throw CLIError.badInput("--missed '\(v)' is not shift, skip or make-up")
        }
        return policy
    }

    static let add = CommandDescriptor(
        path: ["task", "add"],
        synopsis:
            "task add --user ID --title T --start DT --end DT --category C [--color C] [--note N] [--all-day] [--repeat daily|weekly|monthly [--until DATE] [--missed shift|skip|make-up]] [--subtask T]…",
        summary: "add a study session or a repeating series",
        details: "Every task needs a specific category. Times are local wall-clock times in the student's zone.",
        options: [.value("--user", "student id")] + taskOptions + [
            .flag("--all-day", "an all-day task (dates, end = last day)"), .value("--repeat", "daily|weekly|monthly"),
            .value("--until", "last date of the series (inclusive)"), missedOption,
            .value("--subtask", "a checklist item", repeatable: true),
            .value("--id", "use this task id instead of a generated one"), .flag("--json", "print the result as JSON"),
        ]
    ) { ctx in
        let a = ctx.arguments
        try a.rejectExtraPositionals(beyond: 0)
        let userID = try a.required("--user")
        let db = try ctx.openDatabase()
        let user = try storeCall { () throws(StoreError) in try UserRepository(db).get(userID) }
        let allDay = a.flag("--all-day")
        guard a.value("--category") != nil else {
            throw CLIError.usage("--category is required: every task needs a specific category")
        }
        var rule: RepeatRule?
        if let r = a.value("--repeat"), r != "none" {
            guard let f = RepeatRule.Frequency(rawValue: r) else {
                throw CLIError.badInput("--repeat '\(r)' is not daily, weekly or monthly")
            }
            rule = RepeatRule(every: f, until: try a.date("--until"), missed: try missedPolicy(a))
        } else if a.value("--until") != nil || a.value("--missed") != nil {
            throw CLIError.usage("\(a.value("--until") != nil ? "--until" : "--missed") needs --repeat")
        }
        let id = try a.value("--id") ?? newTaskID(db)
        if try storeCall({ () throws(StoreError) in try PlanRepository(db).task(id: id) }) != nil {
            throw CLIError.badInput("a task with id '\(id)' already exists")
        }
        let task = StudyTask(
            id: id, userID: userID, title: try a.required("--title").trimmingWhitespace(),
            note: a.value("--note") ?? "",
            category: try a.required("--category").trimmingWhitespace(),
            color: try a.value("--color").map(CLIValues.color) ?? .green,
            start: try CLIValues.dateTime(
                try a.required("--start"), option: "--start", zone: user.zone, allDay: allDay),
            end: try CLIValues.dateTime(try a.required("--end"), option: "--end", zone: user.zone, allDay: allDay),
            allDay: allDay, subtasks: a.values("--subtask").map { Subtask(title: $0.trimmingWhitespace()) },
            repeatRule: rule,
            createdAt: ctx.now)
        do throws(DataError) { try task.validate() } catch {
            throw error.asCLIError(option: "--" + SettingsCommands.kebab(error.path))
        }
        let edit = ManualEdit(context: ctx, db: db, userID: userID)
        let original = try edit.loadPlan()
        var working = original
        working.put(task)
        let result = try edit.commit(original: original, working: working)
        report(ctx, verb: "added", id: id, result: result)
        return .success
    }

    static let edit = CommandDescriptor(
        path: ["task", "edit"],
        synopsis:
            "task edit ID|ID@YYYY-MM-DD [--title T] [--start DT] [--end DT] [--category C] [--color C] [--note N] [--until DATE] [--missed shift|skip|make-up|default]",
        summary: "change a task; with ID@DATE, move one occurrence of a series",
        details: """
            On an occurrence id (ID@DATE), only --start/--end apply: the occurrence moves, the series stays.
            On a series id with sessions before today, say which sessions change: --from DATE changes the
            series from its first session on or after DATE ("this and following": the series ends before
            it and a new series, printed, continues with the change; the past keeps its titles, categories
            and statistics), --all changes every session, past ones included. On a terminal replan asks;
            otherwise one of the two is required (exit 64). --start/--end move the series' first session
            (its time of day and length) and need --all.
            """,
        options: taskOptions + [
            .value("--until", "last date of a series (inclusive); 'none' removes it"),
            .value("--missed", "a series' policy for missed sessions: shift, skip, make-up, or default (its kind's)"),
            .flag("--json", "print the result as JSON"),
            .value("--from", "series: change sessions from this date on only (the series is split)"),
            .flag("--all", "series: change every session, past ones included"),
            ManualEdit.userGuard,
        ]
    ) { ctx in
        let a = ctx.arguments
        let (target, oid, edit, original) = try ManualEdit.target(ctx, "task or occurrence id")
        var working = original
        guard var task = original.tasks[oid.taskID] else { throw CLIError.badInput("no task '\(oid.taskID)'") }
        let zone = original.zone
        if oid.originalDate != nil {
            for option in ["--title", "--category", "--color", "--note", "--until", "--missed"]
            where a.value(option) != nil {
                throw CLIError.usage("\(option) changes the whole series; edit \(oid.taskID) instead of one occurrence")
            }
            guard let occurrence = original.occurrence(oid) else {
                throw CLIError.badInput("\(target) is not an occurrence of \(oid.taskID)")
            }
            guard occurrence.state != .completed else {
                throw CLIError.badInput("\(target) is completed; its history is not changed")
            }
            let start =
                try a.value("--start").map { (t: String) throws(CLIError) in
                    try CLIValues.dateTime(t, option: "--start", zone: zone, allDay: task.allDay)
                } ?? occurrence.start
            let end =
                try a.value("--end").map { (t: String) throws(CLIError) in
                    try CLIValues.dateTime(t, option: "--end", zone: zone, allDay: task.allDay)
                }
                ?? start.adding(minutes: occurrence.end.minuteNumber - occurrence.start.minuteNumber)
            do throws(DataError) { try TaskRules.validateTimes(start: start, end: end, allDay: task.allDay) } catch {
                throw error.asCLIError(option: "--end")
            }
            working.move(oid, start: start, end: end)
        } else {
            let today = zone.civil(ctx.now).date
            var from: CivilDate?
            if task.isSeries {
                from = try seriesScope(ctx, task: task, today: today)
            } else if a.flag("--all") || a.value("--from") != nil {
                throw CLIError.usage("--all and --from apply to a repeating task only")
            }
            if let from, let split = original.splitDate(ofSeries: task.id, from: from), split > task.start.date {
                // This and following: the changes go to the continuing series only.
                let newID = try newTaskID(edit.db)
                guard let continued = working.splitSeries(task.id, at: split, newID: newID, now: ctx.now) else {
                    throw CLIError.badInput("\(task.id) cannot be split at \(split)")
                }
                task = continued
                ctx.console.log(
                    "\(oid.taskID) ends on \(split.adding(days: -1)); from \(split) on it continues as \(newID) with the change",
                    priority: .notice)
            } else if let from, original.splitDate(ofSeries: task.id, from: from) == nil {
                throw CLIError.badInput("\(oid.taskID) has no session on or after \(from)")
            }
            if let v = a.value("--title") { task.title = v.trimmingWhitespace() }
            if let v = a.value("--category") { task.category = v.trimmingWhitespace() }
            if let v = a.value("--color") { task.color = try CLIValues.color(v) }
            if let v = a.value("--note") { task.note = v }
            let newStart = try a.value("--start").map { (t: String) throws(CLIError) in
                try CLIValues.dateTime(t, option: "--start", zone: zone, allDay: task.allDay)
            }
            if let s = newStart {
                // Keep the length when only the start moves.
                if a.value("--end") == nil {
                    task.end = s.adding(minutes: task.end.minuteNumber - task.start.minuteNumber)
                }
                task.start = s
            }
            if let v = a.value("--end") {
                task.end = try CLIValues.dateTime(v, option: "--end", zone: zone, allDay: task.allDay)
            }
            if let v = a.value("--until") {
                guard task.repeatRule != nil else { throw CLIError.usage("--until applies to a repeating task only") }
                task.repeatRule?.until = v == "none" ? nil : try CLIValues.date(v, option: "--until")
            }
            if let v = a.value("--missed") {
                guard task.repeatRule != nil else { throw CLIError.usage("--missed applies to a repeating task only") }
                task.repeatRule?.missed = v == "default" ? nil : try missedPolicy(a)
            }
            do throws(DataError) { try task.validate() } catch {
                throw error.asCLIError(option: "--" + SettingsCommands.kebab(error.path))
            }
            working.put(task)
        }
        let result = try edit.commit(original: original, working: working)
        report(ctx, verb: "edited", id: target, result: result)
        return .success
    }

    /// Which sessions an edit of a series changes: nil = all of them, else from that date on.
    /// Only a series with sessions before today needs the choice (changing it whole rewrites
    /// history); `--until` alone never does.
    static func seriesScope(_ ctx: CommandContext, task: StudyTask, today: CivilDate) throws(CLIError) -> CivilDate? {
        let a = ctx.arguments
        let movesTimes = a.value("--start") != nil || a.value("--end") != nil
        if a.flag("--all") {
            guard a.value("--from") == nil else { throw .usage("--all and --from exclude each other") }
            return nil
        }
        if let text = a.value("--from") {
            guard !movesTimes else {
                throw .usage(
                    "--start/--end move the whole series and need --all; move single sessions with \(task.id)@YYYY-MM-DD"
                )
            }
            return try CLIValues.date(text, option: "--from")
        }
        let changesHistory = ["--title", "--category", "--color", "--note", "--start", "--end"].contains {
            a.value($0) != nil
        }
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

    static let remove = CommandDescriptor(
        path: ["task", "rm"], synopsis: "task rm ID|ID@YYYY-MM-DD",
        summary: "delete a task (a whole series with its history), or skip one occurrence of a series",
        options: [.flag("--json", "print the result as JSON"), ManualEdit.userGuard]
    ) { ctx in
        let (target, oid, edit, original) = try ManualEdit.target(ctx, "task or occurrence id")
        var working = original
        if oid.originalDate != nil {
            guard let o = original.occurrence(oid) else {
                throw CLIError.badInput("\(target) is not an occurrence of \(oid.taskID)")
            }
            guard o.state != .completed else {
                throw CLIError.badInput("\(target) is completed; its history is not changed")
            }
            working.skip(oid)
        } else {
            working.deleteTask(oid.taskID)
        }
        let result = try edit.commit(original: original, working: working)
        report(ctx, verb: oid.originalDate == nil ? "deleted" : "skipped", id: target, result: result)
        return .success
    }

    static let done = CommandDescriptor(
        path: ["task", "done"], synopsis: "task done OCCURRENCE",
        summary: "mark one occurrence completed (a one-off task id, or ID@YYYY-MM-DD of a series)",
        options: [.flag("--json", "print the result as JSON"), ManualEdit.userGuard]
    ) { ctx in
        let (target, oid, edit, original) = try ManualEdit.target(ctx, "occurrence id")
        guard original.occurrence(oid) != nil else {
            if original.tasks[oid.taskID]?.isSeries == true, oid.originalDate == nil {
                throw CLIError.badInput("\(target) is a series; name the occurrence as \(target)@YYYY-MM-DD")
            }
            throw CLIError.badInput("\(target) is not an occurrence of \(oid.taskID)")
        }
        var working = original
        working.complete(oid)
        let result = try edit.commit(original: original, working: working)
        report(ctx, verb: "completed", id: target, result: result)
        return .success
    }

    static let list = CommandDescriptor(
        path: ["task", "list"], synopsis: "task list --user ID [--from DATE] [--to DATE] [--json]",
        summary: "list occurrences in a date range (default: the planning window around today)",
        options: [
            .value("--user", "student id"), .value("--from", "first local date (inclusive)"),
            .value("--to", "last local date (inclusive)"), .flag("--json", "print JSON"),
        ]
    ) { ctx in
        try ctx.arguments.rejectExtraPositionals(beyond: 0)
        let a = ctx.arguments
        let userID = try a.required("--user")
        let db = try ctx.openExistingDatabase()
        let user = try storeCall { () throws(StoreError) in try UserRepository(db).get(userID) }
        let today = user.zone.civil(ctx.now).date
        let from =
            try a.date("--from")
            ?? today.adding(days: -user.settings.deleteAfterDays)
        let to =
            try a.date("--to")
            ?? today.adding(days: user.settings.horizonDays)
        guard from <= to else { throw CLIError.badInput("--from \(from) is after --to \(to)") }
        guard from.days(until: to) <= 3660 else {
            throw CLIError.badInput("the range \(from)…\(to) is longer than ten years")
        }
        let plan = try storeCall { () throws(StoreError) in
            try PlanRepository(db).loadPlan(userID: userID, window: from...to)
        }
        let occurrences = plan.occurrences(from: from, through: to)
        if a.flag("--json") {
            ctx.console.out(
                JSONValue.object([
                    "schema": "replan.tasks/1", "user": .string(userID), "from": .string(from.description),
                    "to": .string(to.description),
                    "occurrences": .array(
                        occurrences.map { o in
                            [
                                "id": .string(o.id.description), "taskId": .string(o.taskID), "title": .string(o.title),
                                "category": .string(o.category), "color": .string(o.color.rawValue),
                                "start": .string(o.start.description), "end": .string(o.end.description),
                                "allDay": .bool(o.allDay), "state": .string(o.state.rawValue),
                                "repeat": plan.tasks[o.taskID]?.repeatRule.map { r -> JSONValue in
                                    ["every": .string(r.every.rawValue), "missed": .string(r.effectiveMissed.rawValue)]
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
                        ctx.console.paint("\(o.start.date) \(SystemPromptNames.weekday(o.start.date))", .bold))
                }
                let time = o.allDay ? "all day    " : "\(o.start.time)–\(o.end.time)"
                let state = o.state == .open ? "" : "  (\(o.state.rawValue))"
                // A series says how it repeats and what a missed session of it gets (planning.md §4).
                let series =
                    plan.tasks[o.taskID]?.repeatRule.map {
                        "  \($0.every.rawValue), missed: \($0.effectiveMissed.rawValue)"
                    } ?? ""
                ctx.console.out(
                    "  \(time)  \(o.title)  [\(o.category)]  \(ctx.console.paint(o.id.description, .dim))\(state)\(ctx.console.paint(series, .dim))"
                )
            }
        }
        return .success
    }

    static func newTaskID(_ db: Database) throws(CLIError) -> String {
        while true {
            let id = "t-" + StableID.base32(UInt64.random(in: 0...UInt64.max), length: 10)
            if try storeCall({ () throws(StoreError) in try PlanRepository(db).task(id: id) }) == nil { return id }
        }
    }

    static func report(_ ctx: CommandContext, verb: String, id: String, result: (ChangesetID, [PlanEdit])?) {
        if ctx.arguments.flag("--json") {
            ctx.console.out(
                JSONValue.object([
                    "schema": "replan.task-change/1", "id": .string(id),
                    "changesetId": result.map { .string($0.0.description) } ?? .null,
                    "edits": .array((result?.1 ?? []).map(EditReport.edit)),
                ]).prettyText)
        } else if let (cs, _) = result {
            ctx.console.out("\(verb) \(id) (changeset \(cs); undo with: replan undo \(cs))")
        } else {
            ctx.console.out("\(id): nothing changed")
        }
    }
}

/// Weekday names for human output.
enum SystemPromptNames {
    static func weekday(_ d: CivilDate) -> String {
        ["Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun"][d.weekday.index]
    }
}
