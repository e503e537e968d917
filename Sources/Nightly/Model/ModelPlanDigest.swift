import Planning

/// The plan as the call policy remembers it (docs/model.md §15), kept in `model_memory`'s plan
/// digest: a digest of the whole horizon, one per category, the sessions the model created or
/// edited that still lie ahead, and the categories the instruction covers. A student's edit
/// asks the model (`plan-changed`) only when it touches a covered category or removes a
/// session of the model; tidying an unrelated course is no reason.
///
/// Stored as text, one entry a line: the first line is the whole digest (`p-…`, exactly the
/// first form of this memory, which had nothing else), then `v 3` (`v 2` before the sessions
/// were kept), `c CATEGORY<TAB>DIGEST`, `m OCCURRENCE-ID`, `k CATEGORY` and `s SESSION` lines
/// (`PlanChange.Session`: the covered categories' and the model's sessions, for the diff a
/// `plan-changed` request carries). Readers of the earlier forms skip the lines they do not know.
package struct ModelPlanDigest: Hashable, Sendable {
    package var whole: String
    package var categories: [String: String] = [:]
    /// Sessions the model created or edited, from tonight on.
    package var modelSessions: Set<OccurrenceID> = []
    /// Categories the instruction covers: named in it, or holding a session of the model.
    package var covered: Set<String> = []
    /// Whether the text is of this form (a memory of the first form has the whole digest only).
    package var structured = true
    /// The sessions of the covered categories and of the model as the night committed them;
    /// nil in a memory written before they were kept (`v 2`).
    package var sessions: [PlanChange.Session]?

    package init(whole: String) { self.whole = whole }

    package init(parsing text: String) {
        let lines = text.split(separator: "\n", omittingEmptySubsequences: true)
        whole = lines.first.map(String.init) ?? ""
        structured = false
        for line in lines.dropFirst() {
            let body = String(line.dropFirst(2))
            switch line.prefix(2) {
            case "c ":
                let parts = body.split(separator: "\t", maxSplits: 1, omittingEmptySubsequences: false)
                if parts.count == 2 { categories[String(parts[0])] = String(parts[1]) }
            case "m ": if let id = OccurrenceID(body) { modelSessions.insert(id) }
            case "k ": covered.insert(body)
            case "s ": if let session = PlanChange.Session(line: body) { sessions?.append(session) }
            case "v ":
                structured = true
                if let version = Int(body), version >= 3, sessions == nil { sessions = [] }
            default: continue
            }
        }
    }

    /// The digest of `plan` on `from…through`, carrying the model's sessions and the covered
    /// categories over (those given, plus every category `instruction` names).
    package static func make(
        _ plan: UserPlan, from: CivilDate, through: CivilDate, instruction: String,
        modelSessions: Set<OccurrenceID>, covered: Set<String> = []
    ) -> ModelPlanDigest {
        var digest = ModelPlanDigest(whole: ModelCallPolicy.planDigest(plan, from: from, through: through))
        var parts: [String: [String]] = [:]
        let occurrences = plan.occurrences(from: from, through: through)
        for o in occurrences {
            parts[o.category, default: []].append(
                "\(o.id)|\(o.start)|\(o.end)|\(o.allDay)|\(o.state == .skipped)|\(o.title)|\(o.note)")
        }
        for (category, lines) in parts { digest.categories[category] = StableID.make(prefix: "c", parts: lines) }
        digest.covered = covered
        let named = instruction.lowercased()
        for category in Set(plan.tasks.values.map(\.category)) where !category.isEmpty {
            if named.contains(category.lowercased()) { digest.covered.insert(category) }
        }
        for id in modelSessions {
            // A series the model created is named by its bare id: its category is covered.
            if id.originalDate == nil, let series = plan.tasks[id.taskID], series.isSeries {
                digest.covered.insert(series.category)
                continue
            }
            guard let o = plan.occurrence(id), o.state != .skipped, o.start.date >= from else { continue }
            digest.modelSessions.insert(id)
            digest.covered.insert(o.category)
        }
        digest.sessions = PlanChange.sessions(
            of: occurrences, covered: digest.covered, modelSessions: digest.modelSessions)
        return digest
    }

    /// Whether the plan `tonight` shows, compared with this remembered digest, is a reason to
    /// ask: a change in a covered category, or a session of the model gone or skipped. A
    /// memory of the first form can only tell whether anything changed.
    package func asks(tonight: UserPlan, digest now: ModelPlanDigest) -> Bool {
        guard now.whole != whole else { return false }
        guard structured else { return true }
        for category in covered where now.categories[category] != categories[category] { return true }
        return modelSessions.contains { id in
            guard let o = tonight.occurrence(id) else { return true }
            return o.state == .skipped
        }
    }

    package var text: String {
        var lines = [whole, sessions == nil ? "v 2" : "v 3"]
        for (category, digest) in categories.sorted(by: { $0.key < $1.key }) where !category.contains("\n") {
            lines.append("c \(category)\t\(digest)")
        }
        lines += modelSessions.sorted().map { "m \($0)" }
        lines += covered.sorted().filter { !$0.contains("\n") }.map { "k \($0)" }
        lines += (sessions ?? []).map { "s \($0.line)" }
        return lines.joined(separator: "\n")
    }
}
