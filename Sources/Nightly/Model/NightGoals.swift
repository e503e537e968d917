import Assistant
import Planning
import Store

/// One student's goal through one night (docs/model.md §17): the goal kept for the instruction
/// they have now, its check on the plan the rules left (for the call policy and the request),
/// the goal the model states, and what the night leaves to remember: the goal, and the
/// shortfalls and violations the model was asked about and left as they were.
package struct NightGoals: Sendable {
    let planDate: CivilDate
    /// The last day a session may be placed on (today + `horizonDays`): the check goes no further.
    let through: CivilDate
    let instructionDigest: String?
    let memory: ModelMemory?
    /// The goal as kept (possibly stale), and as it stands after the model.
    private(set) var stated: StatedGoal?

    package init(original: UserPlan, memory: ModelMemory?, planDate: CivilDate) {
        let instruction = original.settings.instruction.trimmingWhitespace()
        instructionDigest = instruction.isEmpty ? nil : ModelCallPolicy.instructionDigest(instruction)
        self.memory = memory
        self.planDate = planDate
        through = planDate.adding(days: original.settings.horizonDays)
        stated = memory?.goal
    }

    /// The goal, when it belongs to the instruction the student has now.
    package var current: StatedGoal? { stated.flatMap { $0.belongs(to: instructionDigest) ? $0 : nil } }

    /// The check of the current goal on `plan`; nil without a current, checkable goal.
    package func check(_ plan: UserPlan, now: CivilDateTime) -> GoalCheck? {
        guard let current, current.goal.isCheckable else { return nil }
        return GoalCheck(goal: current.goal, plan: plan, now: now, through: through, countedFrom: current.setOn)
    }

    /// What the request says of the goal.
    package func brief(check: GoalCheck?) -> GoalBrief {
        GoalBrief(stated: stated, current: current != nil, check: check)
    }

    /// A shortfall of today or tomorrow the model could mend and was not asked about goes first
    /// when the night cannot ask everyone (`ModelAdmission`).
    func isUrgent(_ check: GoalCheck?, memory: ModelMemory?) -> Bool {
        guard let check else { return false }
        let tomorrow = planDate.adding(days: 1)
        let asked = memory?.goalUnmended ?? []
        return check.shortfalls.contains { $0.hasRoom && $0.date <= tomorrow && !asked.contains($0.key) }
            || check.violations.contains { $0.start.date <= tomorrow && !asked.contains($0.key) }
    }

    /// The model stated a goal with `set_goal`: it belongs to the instruction it was asked under.
    mutating func stated(_ goal: Goal?, reviewAgainOn: CivilDate?) {
        guard let goal, let instructionDigest else { return }
        stated = StatedGoal(
            goal: goal, setBy: .model, instructionDigest: instructionDigest, setOn: planDate,
            reviewAgainOn: reviewAgainOn)
    }

    /// What the night leaves for the memory and the morning note.
    package struct After: Sendable, Hashable {
        package var stated: StatedGoal?
        /// Shortfalls and violations (`GoalCheck` keys) not to ask about again.
        package var unmended: Set<String>
        /// The check of the current goal on the plan the night leaves (nil: none).
        package var check: GoalCheck?
    }

    /// - Parameters:
    ///   - plan: the plan the night leaves.
    ///   - asked: the model was asked tonight and its edits stand: what it left short is not
    ///     asked about again while it stays the same (the same day, term and amount).
    func after(_ plan: UserPlan, now: CivilDateTime, asked: Bool) -> After {
        let check = check(plan, now: now)
        let keys = check?.keys ?? []
        // Not asked tonight: what was left before and still stands stays left; anything that
        // changed (another amount, a new day) is new and asks.
        let unmended = asked ? keys : keys.intersection(memory?.goalUnmended ?? [])
        return After(stated: stated, unmended: unmended, check: check)
    }
}
