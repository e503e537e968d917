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
    /// Days after today whose sessions are listed one by one, unless the request needs the whole
    /// horizon (`lastDayShown`); the free slots always cover the whole horizon.
    package static let listedDays = 7

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
    ///   - reaching: dates the request is about besides the flags, the instruction and the goal
    ///     (a change of the student's): one after today + `listedDays` lists the whole horizon.
    ///   - goal: the goal section; the days it names count as reached too.
    package func render(
        plan: UserPlan, now: CivilDateTime, localEdits: [PlanEdit], flags: [PlanFlag],
        why: String = "a review of my plan", reaching: [CivilDate] = [], goal: GoalBrief = .none
    ) throws(PromptError) -> PromptMessages {
        let s = plan.settings
        let window = PlanWindow(today: now.date, settings: s)
        let shown = SystemPrompt.lastDayShown(
            plan, today: now.date, through: window.through, flags: flags, reaching: reaching + goal.dates)
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
            "plan": PlanLines.render(plan, today: now.date, through: window.through, shown: shown),
            "freeSlots": FreeSlots.render(plan, now: now, through: window.through),
        ]
        var user = try (s.windowsEnabled ? withSettings : withoutSettings).render(
            values, required: SystemPrompt.required)
        // The goal section (docs/model.md §17) follows the template's text, so the templates
        // need no placeholder for it.
        let goalSection = SystemPrompt.goalText(goal, instruction: instruction)
        if !goalSection.isEmpty { user += (user.hasSuffix("\n") ? "\n" : "\n\n") + goalSection + "\n" }
        return PromptMessages(system: try system.render([:], required: []), user: user)
    }

    /// The last day whose sessions are listed one by one: today + `listedDays`, or the whole
    /// horizon when the request reaches past it (issue 24: days 8–14 were a quarter of the
    /// request, and most nights need none of them):
    /// - a flagged session whose course has no session from today through today + `listedDays`
    ///   after it (its next session is later, or there is none): the model may have to place it
    ///   up to that next session, so it must see those days;
    /// - the instruction names a date (YYYY-MM-DD) after today + `listedDays`;
    /// - a date in `reaching` after it.
    package static func lastDayShown(
        _ plan: UserPlan, today: CivilDate, through: CivilDate, flags: [PlanFlag], reaching: [CivilDate] = []
    ) -> CivilDate {
        let listed = today.adding(days: listedDays)
        guard listed < through else { return through }
        if reaching.contains(where: { $0 > listed }) { return through }
        if datesNamed(in: plan.settings.instruction).contains(where: { $0 > listed }) { return through }
        guard !flags.isEmpty else { return listed }
        let ahead = plan.occurrences(from: today, through: listed).filter { $0.state != .skipped }
        for flag in flags {
            guard let o = plan.occurrence(flag.id) else { continue }
            let course = ChainKey(o)
            let next = ahead.contains { $0.id != o.id && $0.start > o.start && ChainKey($0) == course }
            if !next { return through }
        }
        return listed
    }

    /// The YYYY-MM-DD dates a text names.
    static func datesNamed(in text: String) -> [CivilDate] {
        var dates: [CivilDate] = []
        let chars = Array(text.utf8)
        var i = 0
        while i + 10 <= chars.count {
            let slice = chars[i..<(i + 10)]
            let digits = slice.enumerated().allSatisfy { k, c in k == 4 || k == 7 ? c == 45 : (48...57).contains(c) }
            if digits, let date = CivilDate(String(decoding: slice, as: UTF8.self)) {
                dates.append(date)
                i += 10
            } else {
                i += 1
            }
        }
        return dates
    }

    /// `Mon-Fri 18:00-22:00; Sat-Sun 10:00-12:00, 14:00-18:00`: consecutive days with the same
    /// windows share one entry (most students' weeks are one or two patterns; a line per day
    /// was a tenth of the student message).
    static func windowsText(_ windows: WeeklyWindows) -> String {
        let days = Weekday.allCases
        var runs: [(first: Weekday, last: Weekday, text: String)] = []
        for day in days {
            let list = windows.windows(on: day)
            let text = list.isEmpty ? "none" : list.map(\.description).joined(separator: ", ")
            if let last = runs.last, last.text == text {
                runs[runs.count - 1].last = day
            } else {
                runs.append((day, day, text))
            }
        }
        return runs.map { run in
            let days =
                run.first == run.last ? shortWeekday(run.first) : "\(shortWeekday(run.first))-\(shortWeekday(run.last))"
            return "\(days) \(run.text)"
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

    package static func shortDate(_ d: CivilDate) -> String {
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

/// The plan as compact lines: first each repeating series once (its id, kind, time, title,
/// category and note; a daily series also its regular sessions as date ranges), then a header
/// per day with its weekday and one line per session. A weekly or monthly session's line
/// carries only its time, title and id; a daily series' session at its series' time needs no
/// line at all (issue 24: those lines were 40 % of the student message), only its exceptions
/// do (moved, done, missed), and a date missing from its ranges has no session of it. Days
/// before today show only their open sessions (the missed ones the rules left: completed
/// history needs no review); skipped sessions are left out (they block nothing and cannot be
/// edited). Days after `shown` (today + 7 unless the request needs more,
/// `SystemPrompt.lastDayShown`) are one counted line: their free slots are listed anyway.
package enum PlanLines {
    package static func render(_ plan: UserPlan, today: CivilDate, through: CivilDate, shown: CivilDate? = nil)
        -> String
    {
        let from = today.adding(days: -plan.settings.deleteAfterDays)
        let shown = min(shown ?? through, through)
        var lines: [String] = []
        var currentDay: CivilDate?
        var series: [String: Occurrence] = [:]
        // A daily series' regular sessions: (day, the days its sessions slid).
        var regular: [String: [(day: CivilDate, slid: Int)]] = [:]
        var later: [String: Int] = [:]
        for o in plan.occurrences(from: from, through: through) {
            guard o.state != .skipped else { continue }
            let day = o.start.date
            if day < today && o.state != .open { continue }
            if o.series != nil, series[o.taskID] == nil { series[o.taskID] = o }
            if day > shown {
                later[o.category, default: 0] += 1
                continue
            }
            if let slid = regularDay(o, plan: plan, today: today) {
                regular[o.taskID, default: []].append((day, slid))
                continue
            }
            if day != currentDay {
                currentDay = day
                lines.append("\(SystemPrompt.shortWeekday(day.weekday)) \(day)")
            }
            lines.append("  " + line(o))
        }
        if !later.isEmpty {
            let count = later.values.reduce(0, +)
            let categories = later.sorted { ($1.value, $0.key) < ($0.value, $1.key) }.prefix(6)
                .map { "\($0.key) \($0.value)" }.joined(separator: ", ")
            lines.append(
                "\(SystemPrompt.shortDate(shown.adding(days: 1)))…\(SystemPrompt.shortDate(through)): not listed, "
                    + "\(count) session\(count == 1 ? "" : "s") (\(categories))")
        }
        guard !lines.isEmpty || !series.isEmpty else { return "(no sessions)" }
        let header = series.keys.sorted().compactMap { id -> String? in
            guard let o = series[id], let kind = o.series else { return nil }
            let task = plan.tasks[id]
            var s = "- \(id) \(kind.rawValue) \(task.map { "\($0.start.time)-\($0.end.time)" } ?? "") \(o.title)"
            if o.category != o.title { s += " [\(o.category)]" }
            s += note(o.note)
            if kind == .daily { s += ": " + ranges(id, regular[id] ?? []) }
            return s
        }
        if header.isEmpty { return lines.joined(separator: "\n") }
        return
            ([
                "Repeating series:"
            ] + header + ["By day:"] + (lines.isEmpty ? ["(nothing else)"] : lines))
            .joined(separator: "\n")
    }

    /// For a daily series' session at the series' own time, open, from today on: the days its
    /// series slid it (0 when it sits on its own date); nil for any other session, which gets
    /// a line of its own.
    static func regularDay(_ o: Occurrence, plan: UserPlan, today: CivilDate) -> Int? {
        guard o.series == .daily, o.state == .open, o.start.date >= today, let original = o.id.originalDate,
            let task = plan.tasks[o.taskID], o.allDay == task.allDay, o.start.time == task.start.time,
            o.lengthMinutes == task.lengthMinutes
        else { return nil }
        return original.days(until: o.start.date)
    }

    /// The days of a daily series' regular sessions as ranges of consecutive days
    /// (`Tue 01-14…Mon 01-20, Wed 01-22`); a range whose sessions slid says how their ids read.
    static func ranges(_ id: String, _ days: [(day: CivilDate, slid: Int)]) -> String {
        guard !days.isEmpty else { return "no session at its time in these days" }
        var runs: [(first: CivilDate, last: CivilDate, slid: Int)] = []
        for d in days.sorted(by: { $0.day < $1.day }) {
            if let last = runs.last, last.last.adding(days: 1) == d.day, last.slid == d.slid {
                runs[runs.count - 1].last = d.day
            } else {
                runs.append((d.day, d.day, d.slid))
            }
        }
        return runs.map { r in
            var s = SystemPrompt.shortDate(r.first)
            if r.last != r.first { s += "…\(SystemPrompt.shortDate(r.last))" }
            if r.slid != 0 {
                s +=
                    " (slid \(r.slid) day\(abs(r.slid) == 1 ? "" : "s"): \(SystemPrompt.shortDate(r.first)) is id=\(id)@\(r.first.adding(days: -r.slid)))"
            }
            return s
        }.joined(separator: ", ")
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
/// minus busy sessions, minus the past), on every day of the horizon: the model picks from them
/// instead of searching by trial and error. A gap shorter than the session length is listed
/// too, marked `*`: it may hold a shorter session, or show that a day is nearly full.
package enum FreeSlots {
    /// Gaps shorter than this are not listed.
    static let minimumMinutes = 15

    package static func render(_ plan: UserPlan, now: CivilDateTime, through: CivilDate) -> String {
        let busy = BusyIndex(plan.occurrences(from: now.date.adding(days: -1), through: through))
        let finder = SlotFinder(settings: plan.settings, now: now, zone: plan.zone)
        let session = plan.settings.sessionMinutesEnabled ? plan.settings.sessionMinutes : 30
        var lines: [String] = []
        var day = now.date
        while day <= through {
            defer { day = day.adding(days: 1) }
            let gaps = finder.gaps(on: day, notBefore: now.minuteNumber, busy: busy).filter {
                $0.count >= minimumMinutes
            }
            guard !gaps.isEmpty else { continue }
            let text = gaps.map { g in
                "\(CivilDateTime(minuteNumber: g.lowerBound).time)-\(TimeOfDay(minutes: g.upperBound - day.dayNumber * 1440))"
                    + (g.count < session ? "*" : "")
            }.joined(separator: ", ")
            lines.append("\(SystemPrompt.shortDate(day)): \(text)")
        }
        return lines.isEmpty ? "- none through \(through)" : lines.joined(separator: "\n")
    }
}
