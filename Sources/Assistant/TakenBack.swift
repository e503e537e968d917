import Planning

/// What the student took back: the model's edits of a nightly changeset the student undid
/// while the instruction stayed the same (docs/model.md §14). An undo is a rejection, so the
/// model is told about it and the tools refuse to make the same edit again.
package struct TakenBack: Hashable, Sendable {
    /// The model's edits as the undone changeset listed them.
    package var edits: [PlanEdit]
    /// The series among the model's creations taken back, as their rows were created: a
    /// series is listed once among `edits` (at its first session), but every day it repeats
    /// on was taken back.
    package var series: [StudyTask]

    package init(edits: [PlanEdit], series: [StudyTask] = []) {
        self.edits = edits.filter { $0.reason == .model }
        self.series = series.filter(\.isSeries)
    }

    package var isEmpty: Bool { edits.isEmpty }

    /// The sentence the request carries, one clause per edit (at most `limit`, then a count).
    package func text(limit: Int = 12) -> String {
        var clauses: [String] = []
        for e in edits.prefix(limit) {
            let place = (e.after ?? e.before).map { "\(SystemPrompt.shortDate($0.start.date)) \($0.start.time)" } ?? ""
            switch e.op {
            case .create:
                if let s = series.first(where: { $0.id == e.id.taskID }), let rule = s.repeatRule {
                    clauses.append("the \(rule.every.rawValue) series '\(e.title)' you created from \(place)")
                } else {
                    clauses.append("'\(e.title)' you created on \(place)")
                }
            case .move: clauses.append("the move of '\(e.title)' (\(e.id)) to \(place)")
            case .delete, .skip: clauses.append("the removal of '\(e.title)' (\(e.id)) on \(place)")
            case .update: clauses.append("the change of '\(e.title)' (\(e.id))")
            }
        }
        if edits.count > limit { clauses.append("\(edits.count - limit) more") }
        return
            "I undid your earlier changes and took back \(clauses.joined(separator: "; ")). Do not make them again; follow my instruction in another way or leave it."
    }

    /// The days the sentence names (`text`): listed in the request like a goal's short days.
    package func dates(limit: Int = 12) -> [CivilDate] {
        edits.prefix(limit).compactMap { ($0.after ?? $0.before)?.start.date }
    }

    /// Why `edit`-like work is refused, or nil: a creation with the same title on the same
    /// day as one taken back (or on a day a series taken back repeats on), a move of the same
    /// session to the same day, a removal again. A new series is asked once per session.
    func refusal(creating title: String, on day: CivilDate) -> String? {
        let normalized = ChainKey(title: title, category: "").title
        if let s = series.first(where: {
            ChainKey(title: $0.title, category: "").title == normalized
                && OccurrenceExpander.isRecurrenceDate(day, of: $0)
        }) {
            return
                "the student took back the series '\(s.title)' that had a session on \(day) (they undid it); do not create it again"
        }
        guard
            let e = edits.first(where: {
                $0.op == .create && $0.after?.start.date == day
                    && ChainKey(title: $0.title, category: "").title == normalized
            })
        else { return nil }
        return "the student took back '\(e.title)' on \(day) (they undid it); do not create it again"
    }

    func refusal(moving id: OccurrenceID, to day: CivilDate) -> String? {
        guard edits.contains(where: { $0.op == .move && $0.id == id && $0.after?.start.date == day }) else {
            return nil
        }
        return "the student took back the move of '\(id)' to \(day) (they undid it); do not make it again"
    }

    func refusal(removing id: OccurrenceID) -> String? {
        guard edits.contains(where: { ($0.op == .delete || $0.op == .skip) && $0.id == id }) else { return nil }
        return "the student took back the removal of '\(id)' (they undid it); keep it"
    }
}
