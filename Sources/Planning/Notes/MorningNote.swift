/// What a night did, in words, for the student (docs/planning.md §12): grouped so a person
/// takes it in at a glance — what was made up and where, which course moved along and by how
/// much, what was added after a course's end, which habit days were let go, what was removed
/// as too old, what could not be placed and is the student's to decide, what the assistant
/// said and asked, and how to take the night back. Pure: the night's values in, text out.
package struct MorningNote: Hashable, Sendable {
    /// The groups of a note, in the order a note lists them.
    package enum Group: String, Sendable, Hashable, CaseIterable {
        case madeUp, course, appended, letGo, removed, split, model, manual, decide, goal, assistant
    }

    /// One group as rendered, and what it stands for.
    package struct Section: Hashable, Sendable {
        package var group: Group
        package var heading: String
        package var lines: [String]
        /// The edits' occurrences this section mentions (grouped or one by one).
        package var edits: [OccurrenceID] = []
        /// The flags' occurrences it mentions.
        package var flags: [OccurrenceID] = []
    }

    /// What a note is rendered from: one night's (or one changeset's) edits, flags and summary,
    /// and what the model said.
    package struct Night: Sendable {
        package var edits: [PlanEdit]
        package var flags: [PlanFlag]
        package var summary: PlanSummary
        /// The night's local date ("your plan for Tue 7 Jan"); a session before it was missed.
        package var planDate: CivilDate
        /// The student's `deleteAfterDays` ("removed as more than 7 days old").
        package var deleteAfterDays: Int
        /// The changeset that takes the night back; nil before it is committed.
        package var changesetID: String?
        /// Where each flagged occurrence was when the night began (one-off ids carry no date).
        package var flagStarts: [OccurrenceID: CivilDateTime] = [:]
        /// `end_conversation`'s summary and question, when the model was asked.
        package var modelSummary: String?
        package var modelQuestion: String?
        /// The instruction's goal and what the plan the night leaves falls short of
        /// (docs/model.md §17); nil when the goal holds or there is none.
        package var goalCheck: (goal: Goal, check: GoalCheck)?

        package init(
            edits: [PlanEdit], flags: [PlanFlag], summary: PlanSummary, planDate: CivilDate, deleteAfterDays: Int,
            changesetID: String? = nil, flagStarts: [OccurrenceID: CivilDateTime] = [:], modelSummary: String? = nil,
            modelQuestion: String? = nil
        ) {
            self.edits = edits
            self.flags = flags
            self.summary = summary
            self.planDate = planDate
            self.deleteAfterDays = deleteAfterDays
            self.changesetID = changesetID
            self.flagStarts = flagStarts
            self.modelSummary = modelSummary
            self.modelQuestion = modelQuestion
        }

        /// Nothing changed, nothing to decide, nothing asked: no note.
        package var isQuiet: Bool {
            edits.isEmpty && flags.isEmpty && (modelQuestion ?? "").trimmingWhitespace().isEmpty
        }
    }

    /// The language of the texts used, and whether it stood in for the student's.
    package var language: String
    package var fellBack: Bool
    package var title: String
    package var body: String
    package var sections: [Section]
    /// The numbers the note gives: the night's summary, and the edits of the assistant and by hand.
    package var summary: PlanSummary
    package var modelEdits: Int
    package var manualEdits: Int

    /// The note of a night in the student's language; nil for a quiet night.
    package static func render(_ night: Night, language: String) -> MorningNote? {
        guard !night.isQuiet else { return nil }
        return NoteRenderer(night: night, texts: NoteTexts(language: language)).note()
    }

    /// The short note of an undo or redo of a night.
    package static func reversal(undo: Bool, planDate: CivilDate, changesetID: String, language: String) -> (
        title: String, body: String
    ) {
        let t = NoteTexts(language: language)
        let values = ["date": t.date(planDate), "id": changesetID]
        return undo
            ? (t.text("undo.title"), t.text("undo.body", values)) : (t.text("redo.title"), t.text("redo.body", values))
    }

    /// One edit in words, for `show` and `log`: "moved Essay [1/3]: Mon 6 Jan 16:00–17:00 →
    /// Tue 7 Jan 16:00–17:00 (made up)".
    package static func line(_ e: PlanEdit, texts t: NoteTexts) -> String {
        var line = t.text(
            "show.line",
            [
                "op": t.text("op.\(e.op.rawValue)"), "title": e.title, "from": e.before.map { t.range($0) } ?? "—",
                "to": e.after.map { t.range($0) } ?? "—", "reason": t.text("reason.\(e.reason.rawValue)"),
            ])
        if !e.detail.isEmpty && (e.reason == .model || e.reason == .manual) {
            line = t.text("line.detail", ["line": line, "detail": e.detail])
        }
        return line
    }

    /// One flag in words, with its title and date and what the student should decide.
    package static func line(
        _ f: PlanFlag, start: CivilDateTime?, deleteAfterDays: Int, texts t: NoteTexts
    ) -> String {
        let title = f.title.isEmpty ? f.id.description : f.title
        switch f.kind {
        case .couldNotFit:
            guard let day = start?.date ?? f.id.originalDate else {
                return t.text("flag.could-not-fit.undated", ["title": title])
            }
            return t.text("flag.could-not-fit", ["title": title, "from": t.date(day)])
        case .needsDecision:
            return t.counted("flag.needs-decision", f.count, ["title": title, "days": String(deleteAfterDays)])
        }
    }

    /// The calendar feed's line for a moved session: "moved from Mon 12 Jan: missed"; nil for
    /// an edit that moved nothing.
    package static func feedLine(_ e: PlanEdit, texts t: NoteTexts) -> String? {
        guard e.op == .move, let before = e.before else { return nil }
        return t.text(
            "feed.moved", ["from": t.date(before.start.date), "why": t.text("feed.why.\(e.reason.rawValue)")])
    }

    /// The night's numbers in words: "3 sessions moved, 2 of them kept in their course's order,
    /// 1 habit day let go" (empty when there are none).
    package static func totals(_ s: PlanSummary, model: Int = 0, manual: Int = 0, texts t: NoteTexts) -> [String] {
        var parts: [String] = []
        if s.rescheduled > 0 { parts.append(t.counted("summary.rescheduled", s.rescheduled)) }
        // "5 sessions moved, all 5 kept in their course's order", not "5 of them".
        if s.chained > 0 {
            parts.append(t.counted(s.chained == s.rescheduled ? "summary.chained.all" : "summary.chained", s.chained))
        }
        if s.skipped > 0 { parts.append(t.counted("summary.skipped", s.skipped)) }
        if s.dropped > 0 { parts.append(t.counted("summary.dropped", s.dropped)) }
        if model > 0 { parts.append(t.counted("summary.model", model)) }
        if manual > 0 { parts.append(t.counted("summary.manual", manual)) }
        return parts
    }
}

/// Groups one night's edits and flags into a note's sections.
private struct NoteRenderer {
    let night: MorningNote.Night
    let t: NoteTexts

    init(night: MorningNote.Night, texts: NoteTexts) {
        self.night = night
        self.t = texts
    }

    /// "Wed 15 Jan: 10 of 30 minutes of English", and each session that breaks the goal.
    func goalLines(_ check: GoalCheck) -> [String] {
        var lines = check.shortfalls.map { s -> String in
            var values = ["date": t.date(s.date), "planned": String(s.planned), "wanted": String(s.wanted)]
            let category: String?
            let total: Bool
            switch s.term {
            case .atLeast(_, let c, _): (category, total) = (c, false)
            case .totalBefore(_, let c, _): (category, total) = (c, true)
            case .noneAfter, .noneOn: (category, total) = (nil, false)
            }
            if let category { values["category"] = category }
            return t.text("goal.short" + (total ? ".total" : "") + (category == nil ? ".all" : ""), values)
        }
        lines += check.violations.map { v in
            t.text("goal.breaks", ["title": v.title, "when": t.range(TimeRange(start: v.start, end: v.end))])
        }
        return lines
    }

    /// Sessions of one title listed by date up to this many; more are given as a count and a span.
    static let datesListed = 5

    func note() -> MorningNote {
        var sections: [MorningNote.Section] = []
        func add(_ group: MorningNote.Group, _ heading: String, _ lines: [String], edits: [OccurrenceID]) {
            guard !lines.isEmpty else { return }
            sections.append(MorningNote.Section(group: group, heading: heading, lines: lines, edits: edits))
        }
        let edits = night.edits
        let isRule = { (e: PlanEdit) in e.reason != .model && e.reason != .manual }
        // A split's parts are created under ids of their original (docs/planning.md §6.4).
        let originals = edits.filter { isRule($0) && ($0.op == .delete || $0.op == .skip) && $0.reason == .rescheduled }
        var partsOf: [OccurrenceID: [PlanEdit]] = [:]
        var splitParts = Set<OccurrenceID>()
        for e in edits where e.op == .create && isRule(e) {
            if let o = originals.first(where: { NoteRenderer.isPart(e.id, of: $0.id) }) {
                partsOf[o.id, default: []].append(e)
                splitParts.insert(e.id)
            }
        }

        var madeUp: [(String, OccurrenceID)] = []
        var courses: [(key: String, edits: [PlanEdit])] = []
        var appended: [(key: String, edits: [PlanEdit])] = []
        var letGo: [(key: String, edits: [PlanEdit])] = []
        var removed: [(key: String, edits: [PlanEdit])] = []
        var split: [(String, [OccurrenceID])] = []
        var model: [(String, OccurrenceID)] = []
        var manual: [(String, OccurrenceID)] = []
        func append(_ e: PlanEdit, key: String, to list: inout [(key: String, edits: [PlanEdit])]) {
            if let i = list.firstIndex(where: { $0.key == key }) {
                list[i].edits.append(e)
            } else {
                list.append((key, [e]))
            }
        }
        for e in edits where !splitParts.contains(e.id) {
            switch (e.reason, e.op) {
            case (.model, _): model.append((one(e), e.id))
            case (.manual, _): manual.append((one(e), e.id))
            case (.chainShift, .move): append(e, key: ChainKey.normalizedTitle(e.title), to: &courses)
            case (.seriesShift, .move): append(e, key: e.id.taskID, to: &appended)
            case (.missed, _): append(e, key: e.id.taskID, to: &letGo)
            case (.droppedStale, _): append(e, key: e.title, to: &removed)
            case (.rescheduled, .delete), (.rescheduled, .skip):
                let parts = (partsOf[e.id] ?? []).sorted {
                    ($0.after?.start.minuteNumber ?? 0) < ($1.after?.start.minuteNumber ?? 0)
                }
                var lines = [
                    t.text(
                        "line.split",
                        ["title": e.title, "from": e.before.map { t.range($0) } ?? "—", "n": String(parts.count)])
                ]
                lines += parts.map {
                    "  " + t.text("line.split.part", ["title": $0.title, "to": $0.after.map { t.range($0) } ?? "—"])
                }
                split.append((lines.joined(separator: "\n"), [e.id] + parts.map(\.id)))
            default: madeUp.append((one(e), e.id))
            }
        }

        add(.madeUp, t.text("section.madeUp"), madeUp.map(\.0), edits: madeUp.map(\.1))
        var courseLines: [String] = []
        for c in courses { courseLines.append(courseLine(c.edits)) }
        add(.course, t.text("section.course"), courseLines, edits: courses.flatMap { $0.edits.map(\.id) })
        var appendedLines: [String] = []
        for a in appended {
            let members = a.edits.sorted { $0.before?.start ?? $0.id.dateOrMin < $1.before?.start ?? $1.id.dateOrMin }
            for e in members { appendedLines.append(one(e, key: "line.appended")) }
            if let last = members.compactMap({ $0.after?.start.date }).max() {
                appendedLines.append(t.text("line.appended.end", ["title": members[0].title, "date": t.date(last)]))
            }
        }
        add(.appended, t.text("section.appended"), appendedLines, edits: appended.flatMap { $0.edits.map(\.id) })
        add(
            .letGo, t.text("section.letGo"), letGo.map { datesLine($0.edits) },
            edits: letGo.flatMap { $0.edits.map(\.id) })
        add(
            .removed, t.text("section.removed", ["days": String(night.deleteAfterDays)]),
            removed.map { datesLine($0.edits) },
            edits: removed.flatMap { $0.edits.map(\.id) })
        add(.split, t.text("section.split"), split.map(\.0), edits: split.flatMap(\.1))
        add(.model, t.text("section.model"), model.map(\.0), edits: model.map(\.1))
        add(.manual, t.text("section.manual"), manual.map(\.0), edits: manual.map(\.1))
        if !night.flags.isEmpty {
            sections.append(
                MorningNote.Section(
                    group: .decide, heading: t.text("section.decide"),
                    lines: night.flags.map {
                        MorningNote.line(
                            $0, start: night.flagStarts[$0.id], deleteAfterDays: night.deleteAfterDays, texts: t)
                    },
                    flags: night.flags.map(\.id)))
        }
        if let (goal, check) = night.goalCheck, !check.holds {
            add(.goal, t.text("section.goal", ["goal": goal.description]), goalLines(check), edits: [])
        }
        var said: [String] = []
        if let s = night.modelSummary?.trimmingWhitespace(), !s.isEmpty { said.append(s) }
        if let q = night.modelQuestion?.trimmingWhitespace(), !q.isEmpty {
            said.append(t.text("model.question", ["text": q]))
        }
        add(.assistant, t.text("section.assistant"), said, edits: [])

        let modelCount = edits.filter { $0.reason == .model }.count
        let manualCount = edits.filter { $0.reason == .manual }.count
        let changes =
            night.summary.rescheduled + night.summary.skipped + night.summary.dropped + modelCount + manualCount
        let date = t.date(night.planDate)
        let title =
            changes == 0
            ? t.text("note.title.decide", ["date": date])
            : t.text("note.title", ["date": date, "changes": t.counted("note.changes", changes)])
        var blocks = sections.map { s in
            ([s.heading] + s.lines.map { "- " + $0 }).joined(separator: "\n")
        }
        let totals = MorningNote.totals(night.summary, model: modelCount, manual: manualCount, texts: t)
        if !totals.isEmpty { blocks.append(t.text("note.total", ["parts": t.clauses(totals)])) }
        if let id = night.changesetID, !edits.isEmpty { blocks.append(t.text("note.undo", ["id": id])) }
        return MorningNote(
            language: t.language, fellBack: t.fellBack, title: title, body: blocks.joined(separator: "\n\n"),
            sections: sections, summary: night.summary, modelEdits: modelCount, manualEdits: manualCount)
    }

    /// One edit on its own line: a missed session made up ("Essay [1/3], missed Mon 6 Jan:
    /// now Tue 7 Jan 13:30–14:30"), else from → to, or what the assistant or the student did.
    func one(_ e: PlanEdit, key: String? = nil) -> String {
        let from = e.before.map { t.range($0) } ?? "—"
        let to = e.after.map { t.range($0) } ?? "—"
        var line: String
        switch e.op {
        case .move:
            if let before = e.before, before.start.date < night.planDate, key != nil || isRuleMove(e) {
                line = t.text(key ?? "line.madeUp", ["title": e.title, "from": t.date(before.start.date), "to": to])
            } else {
                line = t.text("line.moved", ["title": e.title, "from": from, "to": to])
            }
        case .create: line = t.text("line.create", ["title": e.title, "to": to])
        case .update: line = t.text("line.update", ["title": e.title, "to": to])
        case .delete: line = t.text("line.delete", ["title": e.title, "from": from])
        case .skip: line = t.text("line.skip", ["title": e.title, "from": from])
        }
        if !e.detail.isEmpty && (e.reason == .model || e.reason == .manual) {
            line = t.text("line.detail", ["line": line, "detail": e.detail])
        }
        return line
    }

    private func isRuleMove(_ e: PlanEdit) -> Bool { e.reason != .model && e.reason != .manual }

    /// A course's members that moved along: "Essay draft 2–3: one day later".
    func courseLine(_ members: [PlanEdit]) -> String {
        let sorted = members.sorted { ($0.before?.start ?? $0.id.dateOrMin) < ($1.before?.start ?? $1.id.dateOrMin) }
        let shifts = sorted.compactMap { e -> Int? in
            guard let b = e.before, let a = e.after else { return nil }
            return b.start.date.days(until: a.start.date)
        }
        let shift: String
        if let lo = shifts.min(), let hi = shifts.max(), lo != hi {
            shift = t.text("shift.range", ["min": String(lo), "max": String(hi)])
        } else if let d = shifts.first, d != 0 {
            shift = t.counted("shift.days", d)
        } else {
            shift = t.text("shift.sameDay")
        }
        if sorted.count == 1 { return t.text("line.course.part", ["title": sorted[0].title, "shift": shift]) }
        let parts = sorted.compactMap { ChainKey.partNumber($0.title) }
        let stem = NoteRenderer.stem(sorted.map(\.title))
        if parts.count == sorted.count, let first = parts.min(), let last = parts.max(), first != last {
            return t.text(
                "line.course.parts", ["title": stem, "first": String(first), "last": String(last), "shift": shift])
        }
        return t.text("line.course.sessions", ["title": stem, "n": String(sorted.count), "shift": shift])
    }

    /// Sessions of one title by date ("Stretch: Mon 6 Jan, Tue 7 Jan"), or counted with
    /// their span when there are many.
    func datesLine(_ members: [PlanEdit]) -> String {
        let days = members.compactMap { ($0.before ?? $0.after)?.start.date ?? $0.id.originalDate }.sorted()
        let title = members[0].title
        if days.count > NoteRenderer.datesListed || days.count < members.count, let first = days.first,
            let last = days.last
        {
            return t.text(
                "line.many", ["title": title, "n": String(members.count), "first": t.date(first), "last": t.date(last)])
        }
        return t.text("line.dates", ["title": title, "dates": t.list(days.map { t.date($0) })])
    }

    /// What titles of one course share, without the part marker: "Essay draft" of "Essay draft
    /// [2/3]" and "Essay draft [3/3]"; the first title when they share nothing readable.
    static func stem(_ titles: [String]) -> String {
        guard var prefix = titles.first.map(Array.init) else { return "" }
        for title in titles.dropFirst() {
            let chars = Array(title)
            var n = 0
            while n < prefix.count && n < chars.count && prefix[n] == chars[n] { n += 1 }
            prefix = Array(prefix.prefix(n))
        }
        if prefix.count == titles[0].count { return titles[0] }
        // A number cut in the middle ("Part 1" and "Part 12" share "Part 1") is not a stem.
        while let last = prefix.last, last.isNumber { prefix.removeLast() }
        while let last = prefix.last, last.isWhitespace || "[(#:-–—_.,/第（【".contains(last) { prefix.removeLast() }
        if prefix.isEmpty { return titles[0] }
        let stem = String(prefix)
        if stem.lowercased().hasSuffix(" part") { return String(stem.dropLast(5)) }
        return stem
    }

    /// Whether `part` is one of the parts a split made of `original` (`TASK-2of3`, or
    /// `TASK-20250106-2of3` for a series occurrence).
    static func isPart(_ part: OccurrenceID, of original: OccurrenceID) -> Bool {
        let prefix: String
        if let day = original.originalDate {
            prefix = "\(original.taskID)-\(day.description.filter { $0 != "-" })-"
        } else {
            prefix = "\(original.taskID)-"
        }
        let id = part.description
        guard id.hasPrefix(prefix) else { return false }
        let rest = id.dropFirst(prefix.count)
        guard let of = rest.range(of: "of") else { return false }
        return !rest[..<of.lowerBound].isEmpty && rest[..<of.lowerBound].allSatisfy(\.isNumber)
            && !rest[of.upperBound...].isEmpty && rest[of.upperBound...].allSatisfy(\.isNumber)
    }
}

extension OccurrenceID {
    /// The original date of a series occurrence as a sort key; the earliest minute otherwise.
    fileprivate var dateOrMin: CivilDateTime {
        originalDate.map { CivilDateTime(date: $0, time: TimeOfDay(minutes: 0)) }
            ?? CivilDateTime(minuteNumber: .min / 2)
    }
}
