import Foundation
import JSON
import Nightly
import Planning

/// `replan settings show|set`.
enum SettingsCommands {
    struct Group: ReplanCommand {
        static let configuration = CommandConfiguration(
            name: "settings", abstract: "a student's settings", subcommands: [Show.self, Set.self])
    }

    struct Show: ReplanCommand {
        static let configuration = CommandConfiguration(name: "show", abstract: "show a student's settings")

        @Option(name: "--user", value: "ID", help: "student id") var user: String
        @Flag(name: "--json", help: "print JSON") var json: Bool

        func run(_ ctx: CommandContext) throws -> ExitCode {
            let userID = self.user
            let db = try ctx.openExistingDatabase()
            let user = try useCase { () throws(UseCaseError) in try Roster(database: db).user(userID) }
            let goal = try useCase { () throws(UseCaseError) in try InstructionGoals(database: db).goal(of: userID) }
            if self.json {
                ctx.console.out(
                    JSONValue.object([
                        "schema": "replan.settings/1", "user": .string(userID),
                        "settings": SettingsCommands.json(user.settings), "goal": SettingsCommands.json(goal),
                    ]).prettyText)
            } else {
                ctx.console.out(text(user.settings) + "\n" + SettingsCommands.text(goal))
            }
            return .success
        }
    }

    struct Set: ReplanCommand {
        static let configuration = CommandConfiguration(
            name: "set", abstract: "change a student's settings",
            discussion:
                "--window DAY=RANGES replaces that weekday's windows (DAY=  with nothing clears it); DAY may be mon…sun, or a list like mon,tue,wed."
        )

        @Option(name: "--user", value: "ID", help: "student id") var user: String
        @Option(name: "--window", value: "DAY=RANGES", help: "DAY=HH:MM-HH:MM[,HH:MM-HH:MM]") var window: [String]
        @Option(name: "--windows", help: "on|off: use the study windows (off: 08:00-22:00 every day)")
        var windows: Bool?
        @Option(name: "--session-minutes", range: 15...240, help: "15-240") var sessionMinutes: Int?
        @Option(name: "--session-minutes-enabled", help: "on|off") var sessionMinutesEnabled: Bool?
        @Option(name: "--tone", value: "T", help: "how the assistant writes") var tone: String?
        @Option(name: "--instruction", value: "T", help: "the standing request to the assistant")
        var instruction: String?
        @Option(name: "--auto-update", help: "on|off: let the nightly run plan this student") var autoUpdate: Bool?
        @Option(name: "--notifications", help: "on|off") var notifications: Bool?
        @Option(name: "--reminder-minutes", range: 0...60, help: "0, 5, 10, 15, 30 or 60") var reminderMinutes: Int?
        @Option(name: "--delete-after-days", range: 0...365, help: "days before a missed session is dropped")
        var deleteAfterDays: Int?
        @Option(name: "--horizon-days", range: 1...90, help: "days searched for a new slot") var horizonDays: Int?
        @Option(name: "--keep-category", value: "C", help: "never drop this category") var keepCategory: [String]
        @Option(name: "--split-sessions", help: "on|off") var splitSessions: Bool?
        @Option(name: "--morning-time", value: "HH:MM", help: "when the morning note is delivered (07:30)")
        var morningTime: String?
        @Option(
            name: "--goal", value: "GOAL",
            help: "the instruction's goal, e.g. 'at-least 30m English on mon-fri' (empty: clear it)")
        var goal: String?
        @Flag(name: "--clear-goal", help: "clear the instruction's goal") var clearGoal: Bool
        @Option(name: "--goal-by", value: "WHO", help: "student|operator: who states the goal (operator)")
        var goalBy: String?
        @Flag(name: "--json", help: "print the new settings as JSON") var json: Bool

        /// What the command does to the goal (nil: leaves it), checked before anything is written.
        func goalChange() throws(CLIError) -> (goal: Goal?, source: StatedGoal.Source)? {
            var source = StatedGoal.Source.operator
            if let by = self.goalBy {
                guard let s = StatedGoal.Source(rawValue: by.lowercased()), s != .model else {
                    throw CLIError.usage("--goal-by '\(by)': expected student or operator")
                }
                source = s
            }
            if self.clearGoal {
                guard self.goal == nil else { throw CLIError.usage("--goal and --clear-goal exclude each other") }
                return (nil, source)
            }
            guard let text = self.goal else {
                if self.goalBy != nil { throw CLIError.usage("--goal-by needs --goal") }
                return nil
            }
            if text.trimmingWhitespace().isEmpty { return (nil, source) }
            do throws(GoalError) { return (try Goal(parsing: text), source) } catch {
                throw CLIError.badInput("--goal: \(error.message)")
            }
        }

        func run(_ ctx: CommandContext) throws -> ExitCode {
            let userID = self.user
            let goalChange = try self.goalChange()
            let db = try ctx.openExistingDatabase()
            let roster = Roster(database: db)
            var s = try useCase { () throws(UseCaseError) in try roster.settings(of: userID) }
            if !self.window.isEmpty {
                var byDay = s.windows.byWeekday
                for spec in self.window {
                    let parts = spec.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
                    guard parts.count == 2 else {
                        throw CLIError.badInput("--window '\(spec)' is not DAY=HH:MM-HH:MM[,…]")
                    }
                    var days: [Weekday] = []
                    for name in parts[0].split(separator: ",") {
                        guard let d = Weekday(rawValue: name.lowercased()) else {
                            throw CLIError.badInput("--window '\(spec)': '\(name)' is not a weekday (mon … sun)")
                        }
                        days.append(d)
                    }
                    var windows: [StudyWindow] = []
                    for r in parts[1].split(separator: ",") {
                        do throws(DataError) { windows.append(try StudyWindow(String(r))) } catch {
                            throw CLIError.badInput("--window '\(spec)': \(error.message)")
                        }
                    }
                    for d in days { byDay[d] = windows }
                }
                do { s.windows = try WeeklyWindows(byDay) } catch { throw CLIError.badInput("--window: \(error)") }
            }
            if let v = self.windows { s.windowsEnabled = v }
            if let v = self.sessionMinutes { s.sessionMinutes = v }
            if let v = self.sessionMinutesEnabled { s.sessionMinutesEnabled = v }
            if let v = self.tone { s.tone = v }
            if let v = self.instruction { s.instruction = v }
            if let v = self.autoUpdate { s.autoUpdate = v }
            if let v = self.notifications { s.notificationsEnabled = v }
            if let v = self.reminderMinutes { s.reminderMinutes = v }
            if let v = self.deleteAfterDays { s.deleteAfterDays = v }
            if let v = self.horizonDays { s.horizonDays = v }
            if !self.keepCategory.isEmpty {
                s.keepCategories = self.keepCategory.filter { !$0.isEmpty }
            }
            if let v = self.splitSessions { s.splitSessions = v }
            if let v = self.morningTime {
                guard let time = TimeOfDay(v) else { throw CLIError.badInput("--morning-time '\(v)' is not HH:MM") }
                s.morningTime = time
            }
            do throws(DataError) { try s.validate() } catch { throw error.asCLIError(option: "--" + kebab(error.path)) }
            let final = s
            if let goalChange {
                let source = goalChange.source
                try useCase { () throws(UseCaseError) in
                    try InstructionGoals(database: db).save(
                        final, goal: .some(goalChange.goal), by: source, of: userID, now: ctx.now)
                }
            } else {
                try useCase { () throws(UseCaseError) in try roster.save(final, of: userID) }
            }
            if self.json {
                ctx.console.out(
                    JSONValue.object([
                        "schema": "replan.settings/1", "user": .string(userID),
                        "settings": SettingsCommands.json(final),
                    ])
                    .prettyText)
            } else {
                ctx.console.out("settings of \(userID) saved")
            }
            return .success
        }
    }

    static func kebab(_ camel: String) -> String {
        camel.reduce(into: "") { out, c in if c.isUppercase { out += "-" + c.lowercased() } else { out.append(c) } }
    }

    static func json(_ s: UserSettings) -> JSONValue {
        var windows: [String: JSONValue] = [:]
        for d in Weekday.allCases {
            windows[d.rawValue] = .array(s.windows.windows(on: d).map { .string($0.description) })
        }
        return [
            "windows": .object(windows), "windowsEnabled": .bool(s.windowsEnabled),
            "sessionMinutes": .int(s.sessionMinutes),
            "sessionMinutesEnabled": .bool(s.sessionMinutesEnabled), "tone": .string(s.tone),
            "instruction": .string(s.instruction),
            "autoUpdate": .bool(s.autoUpdate), "notificationsEnabled": .bool(s.notificationsEnabled),
            "reminderMinutes": .int(s.reminderMinutes), "deleteAfterDays": .int(s.deleteAfterDays),
            "horizonDays": .int(s.horizonDays),
            "keepCategories": .array(s.keepCategories.map { .string($0) }), "splitSessions": .bool(s.splitSessions),
            "morningTime": .string(s.morningTime.description),
        ]
    }

    static func json(_ shown: InstructionGoals.Shown) -> JSONValue {
        guard let stated = shown.stated else { return .null }
        guard case .object(var o) = stated.json else { return .null }
        o["current"] = .bool(shown.current)
        return .object(o)
    }

    /// The goal, who stated it, and the model's next review date; a goal stated for an earlier
    /// instruction is shown as such (it is not checked).
    static func text(_ shown: InstructionGoals.Shown) -> String {
        guard let g = shown.stated else { return "goal:                -" }
        var lines = [
            "goal:                \(g.goal)",
            "  set by:            \(g.setBy.rawValue) on \(g.setOn)\(shown.current ? "" : " (stale: stated for an earlier instruction)")",
        ]
        if let review = g.reviewAgainOn { lines.append("  next review:       \(review)") }
        return lines.joined(separator: "\n")
    }

    static func text(_ s: UserSettings) -> String {
        var lines = ["study windows (\(s.windowsEnabled ? "on" : "off: 08:00-22:00 every day")):"]
        for d in Weekday.allCases {
            let w = s.windows.windows(on: d)
            lines.append("  \(d.rawValue)  \(w.isEmpty ? "-" : w.map(\.description).joined(separator: ", "))")
        }
        lines += [
            "session minutes:     \(s.sessionMinutes)\(s.sessionMinutesEnabled ? "" : " (off)")",
            "tone:                \(s.tone)",
            "instruction:         \(s.instruction.isEmpty ? "-" : s.instruction)",
            "auto update:         \(s.autoUpdate ? "on" : "off")",
            "notifications:       \(s.notificationsEnabled ? "on" : "off"), \(s.reminderMinutes) minutes before",
            "delete after days:   \(s.deleteAfterDays)",
            "horizon days:        \(s.horizonDays)",
            "keep categories:     \(s.keepCategories.isEmpty ? "-" : s.keepCategories.joined(separator: ", "))",
            "split sessions:      \(s.splitSessions ? "on" : "off")",
            "morning note at:     \(s.morningTime)",
        ]
        return lines.joined(separator: "\n")
    }
}
