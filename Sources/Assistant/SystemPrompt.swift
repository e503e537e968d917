import Planning

/// Renders the system prompt of assistant.md for one user's night: the variant with study
/// settings when the student uses study windows, else the one without.
public struct SystemPrompt: Sendable {
    public static let withSettingsFile = "with-study-settings.txt"
    public static let withoutSettingsFile = "without-study-settings.txt"
    static let required: Set<String> = ["now", "plan", "localChanges", "language"]

    public let withSettings: PromptTemplate
    public let withoutSettings: PromptTemplate

    public init(withSettings: PromptTemplate, withoutSettings: PromptTemplate) {
        self.withSettings = withSettings; self.withoutSettings = withoutSettings
    }

    public static func load(directory: String) throws(PromptError) -> SystemPrompt {
        SystemPrompt(withSettings: try .load(directory: directory, name: withSettingsFile),
                     withoutSettings: try .load(directory: directory, name: withoutSettingsFile))
    }

    /// - Parameters:
    ///   - now: the run's local wall-clock time.
    ///   - localEdits: what the local rules did tonight; `flags` what they could not decide.
    public func render(plan: UserPlan, now: CivilDateTime, localEdits: [PlanEdit], flags: [PlanFlag]) throws(PromptError) -> String {
        let s = plan.settings
        let window = PlanWindow(today: now.date, settings: s)
        let values: [String: String] = [
            "tone": s.tone,
            "timeZone": plan.zone.identifier,
            "windows": SystemPrompt.windowsText(s.windows),
            "sessionMinutes": String(s.sessionMinutes),
            "sessionLength": s.sessionMinutesEnabled
                ? "A new study session lasts \(s.sessionMinutes) minutes unless the student said otherwise."
                : "Choose a session length that suits the task.",
            "now": "\(now)\(plan.zone.offsetText(at: now)) (\(SystemPrompt.weekdayName(now.date.weekday)))",
            "language": plan.user.language,
            "localChanges": SystemPrompt.localChangesText(localEdits, flags: flags),
            "planFrom": window.from.description,
            "planThrough": window.through.description,
            "plan": PlanJSON.render(plan, window: window),
        ]
        return try (s.windowsEnabled ? withSettings : withoutSettings).render(values, required: SystemPrompt.required)
    }

    static func windowsText(_ windows: WeeklyWindows) -> String {
        Weekday.allCases.map { day in
            let list = windows.windows(on: day)
            return "- \(weekdayName(day)): " + (list.isEmpty ? "no study window" : list.map(\.description).joined(separator: ", "))
        }.joined(separator: "\n")
    }

    static func weekdayName(_ day: Weekday) -> String {
        ["Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday"][day.index]
    }

    /// One line per edit and flag; "nothing" when the rules changed nothing.
    public static func localChangesText(_ edits: [PlanEdit], flags: [PlanFlag]) -> String {
        var lines = edits.map { e -> String in
            let from = e.before.map { "\($0.start)–\($0.end.time)" } ?? ""
            let to = e.after.map { "\($0.start)–\($0.end.time)" } ?? ""
            switch e.op {
            case .move: return "- moved \(e.id) '\(e.title)' from \(from) to \(to) (\(e.reason.rawValue))"
            case .skip: return "- skipped \(e.id) '\(e.title)' of \(from) (\(e.reason.rawValue))"
            case .delete: return "- deleted \(e.id) '\(e.title)' of \(from) (\(e.reason.rawValue))"
            case .create: return "- created \(e.id) '\(e.title)' at \(to) (\(e.reason.rawValue))"
            case .update: return "- updated \(e.id) '\(e.title)' (\(e.reason.rawValue))"
            }
        }
        lines += flags.map { "- flagged \($0.id): \($0.kind.rawValue)" }
        return lines.isEmpty ? "- nothing" : lines.joined(separator: "\n")
    }
}

/// The dates the model sees: `today − deleteAfterDays … today + horizonDays`. The prompt's
/// size is bounded by this window, not by the student's history.
public struct PlanWindow: Sendable, Hashable {
    public let from: CivilDate
    public let through: CivilDate

    public init(today: CivilDate, settings: UserSettings) {
        from = today.adding(days: -settings.deleteAfterDays)
        through = today.adding(days: settings.horizonDays)
    }
}

/// The plan as compact JSON for the prompt: one object per occurrence in the window, keys
/// sorted, `note` only when non-empty, `series` only for series occurrences.
public enum PlanJSON {
    public static func render(_ plan: UserPlan, window: PlanWindow) -> String {
        JSONValue.array(plan.occurrences(from: window.from, through: window.through).map(item)).text
    }

    static func item(_ o: Occurrence) -> JSONValue {
        var fields: [String: JSONValue] = [
            "id": .string(o.id.description), "title": .string(o.title), "category": .string(o.category),
            "color": .string(o.color.rawValue), "start": .string(o.allDay ? o.start.date.description : o.start.description),
            "end": .string(o.allDay ? o.end.date.description : o.end.description), "allDay": .bool(o.allDay),
            "state": .string(o.state.rawValue),
        ]
        if let s = o.series { fields["series"] = .string(s.rawValue) }
        if !o.note.isEmpty { fields["note"] = .string(o.note) }
        return .object(fields)
    }
}
