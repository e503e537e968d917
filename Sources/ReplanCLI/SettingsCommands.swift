import Foundation
import JSON
import Planning
import Store

/// `replan settings show|set`.
enum SettingsCommands {
    static let all = [show, set]

    static let show = CommandDescriptor(
        path: ["settings", "show"], synopsis: "settings show --user ID [--json]", summary: "show a student's settings",
        options: [.value("--user", "student id"), .flag("--json", "print JSON")]
    ) { ctx in
        try ctx.arguments.rejectExtraPositionals(beyond: 0)
        let userID = try ctx.arguments.required("--user")
        let db = try ctx.openDatabase()
        let user = try storeCall { () throws(StoreError) in try UserRepository(db).get(userID) }
        if ctx.arguments.flag("--json") {
            ctx.console.out(
                JSONValue.object([
                    "schema": "replan.settings/1", "user": .string(userID), "settings": json(user.settings),
                ]).prettyText)
        } else {
            ctx.console.out(text(user.settings))
        }
        return .success
    }

    static let set = CommandDescriptor(
        path: ["settings", "set"],
        synopsis:
            "settings set --user ID [--window mon=09:00-12:00,14:00-17:00]… [--windows on|off] [--session-minutes N] [--tone T] [--instruction T] [--auto-update on|off] [--notifications on|off] [--reminder-minutes N]",
        summary: "change a student's settings",
        details:
            "--window DAY=RANGES replaces that weekday's windows (DAY=  with nothing clears it); DAY may be mon…sun, or a list like mon,tue,wed.",
        options: [
            .value("--user", "student id"), .value("--window", "DAY=HH:MM-HH:MM[,HH:MM-HH:MM]", repeatable: true),
            .value("--windows", "on|off: use the study windows (off: 08:00-22:00 every day)"),
            .value("--session-minutes", "15-240"), .value("--session-minutes-enabled", "on|off"),
            .value("--tone", "how the assistant writes"),
            .value("--instruction", "the standing request to the assistant"),
            .value("--auto-update", "on|off: let the nightly run plan this student"),
            .value("--notifications", "on|off"),
            .value("--reminder-minutes", "0, 5, 10, 15, 30 or 60"),
            .value("--delete-after-days", "days before a missed session is dropped"),
            .value("--horizon-days", "days searched for a new slot"),
            .value("--keep-category", "never drop this category", repeatable: true),
            .value("--split-sessions", "on|off"), .flag("--json", "print the new settings as JSON"),
        ]
    ) { ctx in
        try ctx.arguments.rejectExtraPositionals(beyond: 0)
        let a = ctx.arguments
        let userID = try a.required("--user")
        let db = try ctx.openDatabase()
        var s = try storeCall { () throws(StoreError) in try UserRepository(db).settings(for: userID) }
        if !a.values("--window").isEmpty {
            var byDay = s.windows.byWeekday
            for spec in a.values("--window") {
                let parts = spec.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
                guard parts.count == 2 else { throw CLIError.badInput("--window '\(spec)' is not DAY=HH:MM-HH:MM[,…]") }
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
        if let v = try a.onOff("--windows") { s.windowsEnabled = v }
        if let v = try a.int("--session-minutes", in: 15...240) { s.sessionMinutes = v }
        if let v = try a.onOff("--session-minutes-enabled") { s.sessionMinutesEnabled = v }
        if let v = a.value("--tone") { s.tone = v }
        if let v = a.value("--instruction") { s.instruction = v }
        if let v = try a.onOff("--auto-update") { s.autoUpdate = v }
        if let v = try a.onOff("--notifications") { s.notificationsEnabled = v }
        if let v = try a.int("--reminder-minutes", in: 0...60) { s.reminderMinutes = v }
        if let v = try a.int("--delete-after-days", in: 0...365) { s.deleteAfterDays = v }
        if let v = try a.int("--horizon-days", in: 1...90) { s.horizonDays = v }
        if !a.values("--keep-category").isEmpty {
            s.keepCategories = a.values("--keep-category").filter { !$0.isEmpty }
        }
        if let v = try a.onOff("--split-sessions") { s.splitSessions = v }
        do throws(DataError) { try s.validate() } catch { throw error.asCLIError(option: "--" + kebab(error.path)) }
        let final = s
        _ = try storeCall { () throws(StoreError) in try UserRepository(db).saveSettings(final, for: userID) }
        if a.flag("--json") {
            ctx.console.out(
                JSONValue.object(["schema": "replan.settings/1", "user": .string(userID), "settings": json(final)])
                    .prettyText)
        } else {
            ctx.console.out("settings of \(userID) saved")
        }
        return .success
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
        ]
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
        ]
        return lines.joined(separator: "\n")
    }
}
