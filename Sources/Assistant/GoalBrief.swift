import Planning

/// What the request tells the model of the instruction's goal (docs/model.md §17): the goal
/// stated so far (or that none is, or that it was stated for an earlier instruction) and
/// tonight's check of the coming days, with each day that falls short by how much.
package struct GoalBrief: Sendable, Hashable {
    /// The goal as kept, if any.
    package var stated: StatedGoal?
    /// Whether `stated` belongs to the instruction the student has now.
    package var current: Bool
    /// Tonight's check of the current goal, after the local rules (nil: no checkable goal).
    package var check: GoalCheck?

    package init(stated: StatedGoal? = nil, current: Bool = false, check: GoalCheck? = nil) {
        self.stated = stated
        self.current = current
        self.check = check
    }

    /// No instruction, nothing to say.
    package static let none = GoalBrief()

    /// The days the goal section names: a short day, a breaking session's day and a total's
    /// date. The plan is listed as far as the latest of them, so the model sees those days.
    package var dates: [CivilDate] {
        guard current, let stated else { return [] }
        var days = (check?.shortfalls.map(\.date) ?? []) + (check?.violations.map(\.start.date) ?? [])
        for term in stated.goal.terms {
            if case .totalBefore(_, _, let date) = term { days.append(date) }
        }
        return days
    }
}

extension SystemPrompt {
    /// The goal section at the end of the student message; empty when there is no instruction.
    package static func goalText(_ brief: GoalBrief, instruction: String) -> String {
        guard !instruction.trimmingWhitespace().isEmpty else { return "" }
        guard let stated = brief.stated, brief.current else {
            let earlier = brief.stated.map { " (the goal '\($0.goal)' was stated for an earlier instruction)" } ?? ""
            return
                "My goal: none stated for this instruction yet\(earlier). State the goal you commit to with set_goal, or 'not-checkable: why'."
        }
        var lines = ["My goal (stated by the \(stated.setBy.rawValue)): \(stated.goal)"]
        if let review = stated.reviewAgainOn { lines[0] += "; review again on \(review)" }
        guard let check = brief.check else { return lines.joined(separator: "\n") }
        if check.holds {
            lines.append("It holds on \(check.from) to \(check.through).")
            return lines.joined(separator: "\n")
        }
        if !check.shortfalls.isEmpty {
            lines.append("Falls short (\(check.from) to \(check.through)):")
            for s in check.shortfalls { lines.append("- " + shortfallText(s)) }
        }
        if !check.violations.isEmpty {
            lines.append("Sessions that break it:")
            for v in check.violations {
                lines.append(
                    "- '\(v.title)' id=\(v.id) \(shortWeekday(v.start.date.weekday)) \(v.start)-\(v.end.time) breaks '\(v.term)'"
                )
            }
        }
        return lines.joined(separator: "\n")
    }

    static func shortfallText(_ s: GoalCheck.Shortfall) -> String {
        let what: String
        let category: String?
        switch s.term {
        case .atLeast(_, let c, _):
            category = c
            what = "\(shortWeekday(s.date.weekday)) \(s.date)"
        case .totalBefore(_, let c, _):
            category = c
            what = "before \(shortWeekday(s.date.weekday)) \(s.date)"
        case .noneAfter, .noneOn:
            category = nil
            what = "\(s.date)"
        }
        let of = category.map { "of \($0)" } ?? "of study"
        let room = s.hasRoom ? "\(s.room) minutes free in my windows" : "no room in my windows"
        return "\(what): \(s.planned) of \(s.wanted) minutes \(of), \(s.missing) missing ('\(s.term)'); \(room)"
    }
}
