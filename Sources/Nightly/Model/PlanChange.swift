import Assistant
import Planning

/// What the student changed in the plan since replan last saw it, in what concerns the model
/// (docs/model.md §15): sessions added, removed (deleted or skipped), moved or renamed in a
/// category the instruction covers, and any of these to a session the model created or edited.
/// A `plan-changed` request carries it in the student's words, and says which of them undid
/// the model's own edits (`TakenBack`).
///
/// The memory keeps the sessions it needs for this (`Session`, one line each in
/// `ModelPlanDigest`): those of the covered categories and of the model, on the horizon's
/// dates, as the night committed them. A memory written before kept none: then there is no
/// diff, and the digests alone decide.
package struct PlanChange: Hashable, Sendable {
    /// One session as the memory keeps it: its place and title.
    package struct Session: Hashable, Sendable {
        package var id: OccurrenceID
        package var start: CivilDateTime
        package var end: CivilDateTime
        package var allDay: Bool
        package var title: String

        package init(id: OccurrenceID, start: CivilDateTime, end: CivilDateTime, allDay: Bool, title: String) {
            self.id = id
            self.start = start
            self.end = end
            self.allDay = allDay
            self.title = title
        }

        init(_ o: Occurrence) {
            self.init(
                id: o.id, start: o.start, end: o.end, allDay: o.allDay,
                title: String(o.title.prefix(PlanChange.titleLength)))
        }

        /// `ID<TAB>START<TAB>END<TAB>a|t<TAB>TITLE` (tabs and line breaks in a title become spaces).
        package var line: String {
            let title = title.map { $0 == "\t" || $0.isNewline ? " " : $0 }
            return "\(id)\t\(start)\t\(end)\t\(allDay ? "a" : "t")\t\(String(title))"
        }

        package init?(line: some StringProtocol) {
            let f = line.split(separator: "\t", maxSplits: 4, omittingEmptySubsequences: false)
            guard f.count == 5, let id = OccurrenceID(String(f[0])), let start = CivilDateTime(f[1]),
                let end = CivilDateTime(f[2])
            else { return nil }
            self.init(id: id, start: start, end: end, allDay: f[3] == "a", title: String(f[4]))
        }

        /// `Tue 01-21 18:00-19:00`, or `Tue 01-21` for an all-day session.
        var place: String {
            let day = SystemPrompt.shortDate(start.date)
            if allDay { return day }
            return "\(day) \(start.time)-\(end.date > start.date ? end.description : end.time.description)"
        }
    }

    /// One change of one session.
    package struct Item: Hashable, Sendable {
        package enum Kind: String, Sendable { case added, removed, moved, renamed }
        package var kind: Kind
        package var before: Session?
        package var after: Session?
        /// The session is one the model created or edited.
        package var model: Bool
        /// The change takes back an edit of the model's that the student undid.
        package var undone: Bool

        package var id: OccurrenceID { (after ?? before)!.id }
    }

    package var items: [Item]

    package var isEmpty: Bool { items.isEmpty }
    /// Some change touches a session the model created or edited.
    package var touchesModel: Bool { items.contains { $0.model } }
    /// Some change removes a session the model created or edited.
    package var removesModel: Bool { items.contains { $0.model && $0.kind == .removed } }

    /// Longest title kept per session (the memory stays compact; the diff names sessions by id too).
    static let titleLength = 60
    /// Most sessions kept in the memory; a student with more covered sessions still gets the
    /// digests' verdict, and the diff names what it can.
    static let maxSessions = 150
    /// Most changes spelled out in a request, then a count.
    static let maxItems = 12

    /// The sessions the memory keeps of `plan` on `from…through`: not skipped, in a `covered`
    /// category or among `modelSessions`.
    package static func sessions(
        _ plan: UserPlan, from: CivilDate, through: CivilDate, covered: Set<String>,
        modelSessions: Set<OccurrenceID>
    ) -> [Session] {
        guard !covered.isEmpty || !modelSessions.isEmpty else { return [] }
        return sessions(
            of: plan.occurrences(from: from, through: through), covered: covered, modelSessions: modelSessions)
    }

    /// `sessions(_:from:through:covered:modelSessions:)` of occurrences already expanded.
    static func sessions(of occurrences: [Occurrence], covered: Set<String>, modelSessions: Set<OccurrenceID>)
        -> [Session]
    {
        var kept: [Session] = []
        for o in occurrences where o.state != .skipped {
            guard covered.contains(o.category) || modelSessions.contains(o.id) else { continue }
            kept.append(Session(o))
            if kept.count == maxSessions { break }
        }
        return kept
    }

    /// What changed between the sessions `remembered` kept and `tonight`'s plan on the same
    /// dates, for the categories `remembered` covers (and those `instruction` names) and the
    /// model's sessions; `takenBack` tells which changes undid the model's edits. Nil when the
    /// memory kept no sessions (its first forms): nothing to compare with.
    package static func between(
        _ remembered: ModelPlanDigest, tonight: UserPlan, from: CivilDate, through: CivilDate,
        instruction: String = "", takenBack: TakenBack = TakenBack(edits: [])
    ) -> PlanChange? {
        guard remembered.structured, let before = remembered.sessions else { return nil }
        var covered = remembered.covered
        let named = instruction.lowercased()
        if !named.isEmpty {
            for category in Set(tonight.tasks.values.map(\.category)) where !category.isEmpty {
                if named.contains(category.lowercased()) { covered.insert(category) }
            }
        }
        let now = sessions(
            tonight, from: from, through: through, covered: covered, modelSessions: remembered.modelSessions)
        var tonightByID: [OccurrenceID: Session] = [:]
        for s in now { tonightByID[s.id] = s }
        let undoneIDs = Set(takenBack.edits.map(\.id))
        var items: [Item] = []
        var seen: Set<OccurrenceID> = []
        for old in before {
            seen.insert(old.id)
            let model = remembered.modelSessions.contains(old.id)
            let undone = undoneIDs.contains(old.id)
            // A session that left the covered categories is still compared where it is.
            let new =
                tonightByID[old.id]
                ?? tonight.occurrence(old.id).flatMap { o in
                    o.state == .skipped || o.start.date < from || o.start.date > through ? nil : Session(o)
                }
            guard let new else {
                items.append(Item(kind: .removed, before: old, after: nil, model: model, undone: undone))
                continue
            }
            if new.start != old.start || new.end != old.end || new.allDay != old.allDay {
                items.append(Item(kind: .moved, before: old, after: new, model: model, undone: undone))
            } else if new.title != old.title {
                items.append(Item(kind: .renamed, before: old, after: new, model: model, undone: undone))
            }
        }
        // Only what the memory could have kept is new: with a full memory, nothing is "added".
        if before.count < maxSessions {
            for s in now where !seen.contains(s.id) {
                items.append(
                    Item(
                        kind: .added, before: nil, after: s, model: remembered.modelSessions.contains(s.id),
                        undone: undoneIDs.contains(s.id)))
            }
        }
        return PlanChange(items: items)
    }

    /// The lines a `plan-changed` request carries, in the student's words.
    package var text: String {
        var lines = items.prefix(Self.maxItems).map { item -> String in
            let yours = item.model ? "your " : ""
            let undid = item.undone ? " (I undid your change)" : ""
            switch item.kind {
            case .removed:
                let b = item.before!
                return "- I removed \(yours)'\(b.title)' \(b.place) (id \(b.id))\(undid)"
            case .added:
                let a = item.after!
                return "- I added '\(a.title)' \(a.place) (id \(a.id))\(undid)"
            case .moved:
                let b = item.before!
                let a = item.after!
                return "- I moved \(yours)'\(a.title)' from \(b.place) to \(a.place) (id \(a.id))\(undid)"
            case .renamed:
                let b = item.before!
                let a = item.after!
                return "- I renamed \(yours)'\(b.title)' to '\(a.title)' \(a.place) (id \(a.id))\(undid)"
            }
        }
        if items.count > Self.maxItems { lines.append("- and \(items.count - Self.maxItems) more changes") }
        return lines.joined(separator: "\n")
    }

    /// The days the request's lines name (before and after of each change spelled out): the
    /// plan is listed as far as the latest, so the model sees the change it is told about.
    package var dates: [CivilDate] {
        items.prefix(Self.maxItems).flatMap { [$0.before?.start.date, $0.after?.start.date].compactMap { $0 } }
    }

    /// Why the model is asked, with the changes: the policy's words, then one line per change.
    package func why(_ reason: String) -> String {
        isEmpty ? reason : "\(reason):\n\(text)"
    }
}
