import Planning

/// The two opening messages of a conversation (docs/model.md §11).
package struct PromptMessages: Sendable, Hashable {
    /// The rules and tool guidance: the same text for every student, so it leads every request
    /// and the provider's prefix cache serves it.
    package var system: String
    /// The student's data: settings, instruction, why the model is asked, tonight's local
    /// changes, flags, the plan as day-grouped lines and the free slots.
    package var user: String
}

/// Renders the prompt of one user's night from the templates in `prompts/`: `system.txt`
/// (static, no placeholders) and the student message, in the variant with study settings when
/// the student uses study windows, else the one without.
///
/// Decision (issue 16): the student's data lives in the user message, not in the system
/// message, so the first ~1,000 tokens of every request are byte-identical across students and
/// cached by the provider; and the plan is day-grouped lines instead of JSON (about a third of
/// the tokens), since a model reads a timetable as easily as JSON.
package struct SystemPrompt: Sendable {
    package static let systemFile = "system.txt"
    package static let withSettingsFile = "with-study-settings.txt"
    package static let withoutSettingsFile = "without-study-settings.txt"
    static let required: Set<String> = ["now", "plan", "localChanges", "language", "instruction", "freeSlots"]
    /// Days of free slots listed (from today).
    package static let freeSlotDays = 7

    package let system: PromptTemplate
    package let withSettings: PromptTemplate
    package let withoutSettings: PromptTemplate

    package init(
        system: PromptTemplate = PromptTemplate(name: SystemPrompt.systemFile, text: ""),
        withSettings: PromptTemplate, withoutSettings: PromptTemplate
    ) {
        self.system = system
        self.withSettings = withSettings
        self.withoutSettings = withoutSettings
    }

    package static func load(directory: String) throws(PromptError) -> SystemPrompt {
        SystemPrompt(
            system: try .load(directory: directory, name: systemFile),
            withSettings: try .load(directory: directory, name: withSettingsFile),
            withoutSettings: try .load(directory: directory, name: withoutSettingsFile))
    }

    /// - Parameters:
    ///   - now: the run's local wall-clock time.
    ///   - localEdits: what the local rules did tonight; `flags` what they could not decide.
    ///   - why: why the model is asked tonight (the call policy's words).
    package func render(
        plan: UserPlan, now: CivilDateTime, localEdits: [PlanEdit], flags: [PlanFlag],
        why: String = "a review of my plan", goal: GoalBrief = .none
    ) throws(PromptError) -> PromptMessages {
        let s = plan.settings
        let window = PlanWindow(today: now.date, settings: s)
        let instruction = s.instruction.trimmingWhitespace()
        let values: [String: String] = [
            "tone": s.tone,
            "timeZone": plan.zone.identifier,
            "windows": SystemPrompt.windowsText(s.windows),
            "sessionMinutes": String(s.sessionMinutes),
            "sessionLength": s.sessionMinutesEnabled
                ? "A new study session lasts \(s.sessionMinutes) minutes unless I said otherwise."
                : "Choose a session length that suits the task.",
            "now": "\(now)\(plan.zone.offsetText(at: now)) (\(SystemPrompt.weekdayName(now.date.weekday)))",
            "language": plan.user.language,
            "instruction": instruction.isEmpty ? "(none)" : instruction,
            "why": why,
            "localChanges": SystemPrompt.localChangesText(localEdits, window: window, today: now.date),
            "flags": SystemPrompt.flagsText(flags, plan: plan),
            "planFrom": now.date.description,
            "planThrough": window.through.description,
            "plan": PlanLines.render(plan, today: now.date, through: window.through),
            "freeSlots": FreeSlots.render(plan, now: now, days: min(SystemPrompt.freeSlotDays, s.horizonDays + 1)),
        ]
        var user = try (s.windowsEnabled ? withSettings : withoutSettings).render(
            values, required: SystemPrompt.required)
        // The goal section (docs/model.md §17) follows the template's text, so the templates
        // need no placeholder for it.
        let goalSection = SystemPrompt.goalText(goal, instruction: instruction)
        if !goalSection.isEmpty { user += (user.hasSuffix("\n") ? "\n" : "\n\n") + goalSection + "\n" }
        return PromptMessages(system: try system.render([:], required: []), user: user)
    }

    static func windowsText(_ windows: WeeklyWindows) -> String {
        Weekday.allCases.map { day in
            let list = windows.windows(on: day)
            return "\(shortWeekday(day)) " + (list.isEmpty ? "none" : list.map(\.description).joined(separator: ", "))
        }.joined(separator: "; ")
    }

    static func weekdayName(_ day: Weekday) -> String { day.englishName }

    static func shortWeekday(_ day: Weekday) -> String { day.englishAbbreviation }

    /// Tonight's local edits, summarised: edits of one task with the same operation and reason
    /// are one line (a course shifted by a day is one line, not one per session), and only
    /// edits that touch the plan window are spelled out; the rest (stale sessions dropped from
    /// the past, series sessions appended beyond the window) are counted in one line.
    package static func localChangesText(_ edits: [PlanEdit], window: PlanWindow, today: CivilDate) -> String {
        struct Group {
            var op: String
            var reason: String
            var title: String
            var ids: [String]
            var dates: [CivilDate]
        }
        var groups: [Group] = []
        var index: [String: Int] = [:]
        var outside = 0
        for e in edits {
            let dates = [e.before?.start.date, e.after?.start.date].compactMap { $0 }
            guard dates.contains(where: { $0 >= today && $0 <= window.through }) else {
                outside += 1
                continue
            }
            // A numbered course's parts share a normalised title: one group.
            let key = "\(e.op.rawValue)|\(e.reason.rawValue)|\(ChainKey.normalizedTitle(e.title))"
            let shown = (e.after ?? e.before)?.start.date
            if let i = index[key] {
                groups[i].ids.append(e.id.description)
                if let shown { groups[i].dates.append(shown) }
            } else {
                index[key] = groups.count
                groups.append(
                    Group(
                        op: e.op.rawValue, reason: e.reason.rawValue, title: e.title, ids: [e.id.description],
                        dates: shown.map { [$0] } ?? []))
            }
        }
        var lines = groups.map { g -> String in
            let verb =
                ["move": "moved", "skip": "skipped", "delete": "deleted", "create": "created", "update": "updated"][
                    g.op] ?? g.op
            let days = g.dates.sorted()
            let when =
                days.isEmpty
                ? ""
                : (days.count == 1
                    ? " → \(shortDate(days[0]))"
                    : " → \(shortDate(days.first!))…\(shortDate(days.last!))")
            let count = g.ids.count == 1 ? "\(g.ids[0])" : "\(g.ids.count) sessions"
            return "- \(verb) '\(g.title)' (\(count))\(g.op == "move" ? when : "") [\(g.reason)]"
        }
        if outside > 0 {
            lines.append(
                "- \(outside) other change(s) outside the plan window (old sessions dropped, sessions appended after it)"
            )
        }
        return lines.isEmpty ? "- nothing" : lines.joined(separator: "\n")
    }

    static func shortDate(_ d: CivilDate) -> String {
        "\(shortWeekday(d.weekday)) \(d.description.dropFirst(5))"
    }

    /// One line per flag, with the session's place so the model need not look it up.
    static func flagsText(_ flags: [PlanFlag], plan: UserPlan) -> String {
        guard !flags.isEmpty else { return "- none" }
        return flags.map { f in
            guard let o = plan.occurrence(f.id) else { return "- \(f.kind.rawValue): \(f.id)" }
            return "- \(f.kind.rawValue): \(f.id) '\(o.title)' [\(o.category)] \(o.start)-\(o.end.time)"
        }.joined(separator: "\n")
    }
}

/// The dates the model sees: `today − deleteAfterDays … today + horizonDays`. The prompt's
/// size is bounded by this window, not by the student's history.
package struct PlanWindow: Sendable, Hashable {
    package let from: CivilDate
    package let through: CivilDate

    package init(today: CivilDate, settings: UserSettings) {
        from = today.adding(days: -settings.deleteAfterDays)
        through = today.adding(days: settings.horizonDays)
    }
}

/// The plan as compact day-grouped lines: first each repeating series once (its id, kind,
/// time, title, category and note), then a header per day with its weekday and one line per
/// session. A series session's line carries only its time, title and id: repeating the
/// series' category and note on every day was the largest part of the old prompt. Days
/// before today show only their open sessions (the missed ones the rules left: completed
/// history needs no review); skipped sessions are left out (they block nothing and cannot be
/// edited).
package enum PlanLines {
    package static func render(_ plan: UserPlan, today: CivilDate, through: CivilDate) -> String {
        let from = today.adding(days: -plan.settings.deleteAfterDays)
        var lines: [String] = []
        var currentDay: CivilDate?
        var series: [String: Occurrence] = [:]
        for o in plan.occurrences(from: from, through: through) {
            guard o.state != .skipped else { continue }
            let day = o.start.date
            if day < today && o.state != .open { continue }
            if day != currentDay {
                currentDay = day
                lines.append("\(SystemPrompt.shortWeekday(day.weekday)) \(day)")
            }
            if o.series != nil, series[o.taskID] == nil { series[o.taskID] = o }
            lines.append("  " + line(o))
        }
        guard !lines.isEmpty else { return "(no sessions)" }
        let header = series.keys.sorted().compactMap { id -> String? in
            guard let o = series[id], let kind = o.series else { return nil }
            let task = plan.tasks[id]
            var s = "- \(id) \(kind.rawValue) \(task.map { "\($0.start.time)-\($0.end.time)" } ?? "") \(o.title)"
            if o.category != o.title { s += " [\(o.category)]" }
            return s + note(o.note)
        }
        if header.isEmpty { return lines.joined(separator: "\n") }
        return (["Repeating series (a session of one is SERIES@ORIGINAL-DATE):"] + header + ["By day:"] + lines)
            .joined(separator: "\n")
    }

    static func line(_ o: Occurrence) -> String {
        var s =
            o.allDay
            ? (o.end.date > o.start.date ? "all day to \(o.end.date)" : "all day")
            : "\(o.start.time)-\(o.end.date > o.start.date ? o.end.description : o.end.time.description)"
        s += " \(o.title)"
        if o.series == nil, o.category != o.title { s += " [\(o.category)]" }
        s += " id=\(o.id)"
        if o.state == .completed { s += " done" }
        if o.series == nil { s += note(o.note) }
        return s
    }

    static func note(_ text: String) -> String {
        guard !text.isEmpty else { return "" }
        let note = text.replacingOccurrences(of: "\n", with: " ")
        return " note: " + (note.count > 80 ? String(note.prefix(80)) + "…" : note)
    }
}

/// The free gaps the rules would place a session in (windows, or 08:00–22:00 without them,
/// minus busy sessions, minus the past), for the coming days: the model picks from them
/// instead of searching by trial and error.
package enum FreeSlots {
    /// Gaps shorter than this are not listed.
    static let minimumMinutes = 15

    package static func render(_ plan: UserPlan, now: CivilDateTime, days: Int) -> String {
        let through = now.date.adding(days: max(0, days - 1))
        let busy = BusyIndex(plan.occurrences(from: now.date.adding(days: -1), through: through))
        let finder = SlotFinder(settings: plan.settings, now: now, zone: plan.zone)
        let shortest = max(
            minimumMinutes, plan.settings.sessionMinutesEnabled ? min(plan.settings.sessionMinutes, 60) : 30)
        var lines: [String] = []
        for offset in 0..<max(1, days) {
            let day = now.date.adding(days: offset)
            let gaps = finder.gaps(on: day, notBefore: now.minuteNumber, busy: busy).filter { $0.count >= shortest }
            guard !gaps.isEmpty else { continue }
            let text = gaps.map { g in
                "\(CivilDateTime(minuteNumber: g.lowerBound).time)-\(TimeOfDay(minutes: g.upperBound - day.dayNumber * 1440))"
            }.joined(separator: ", ")
            lines.append("\(SystemPrompt.shortDate(day)): \(text)")
        }
        return lines.isEmpty ? "- none in the next \(days) days" : lines.joined(separator: "\n")
    }
}
