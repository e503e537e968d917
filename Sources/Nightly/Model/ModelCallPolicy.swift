import Foundation
import Planning
import Store

/// When the model is asked for a student (docs/model.md §1): only for
/// what the deterministic rules cannot do. A night on which the rules merely moved missed
/// sessions asks nobody; the rules' work needs no review.
///
/// Asked, in this order of precedence (the first that holds is the reason reported):
/// - `flags`: the rules left a `could-not-fit` or `needs-decision` flag the model has not
///   been shown yet (the rules raise the same flag night after night until the session turns
///   stale or the student acts; once reviewed it is no reason to ask again);
/// - `new-instruction` / `changed-instruction`: the instruction differs from the one the model
///   last handled;
/// - `settings-changed`: windows, session length or zone changed since the model last handled
///   the instruction (tone, language and planning knobs are no reason);
/// - `plan-changed`: the student changed their plan inside the horizon since replan last saw
///   it (a digest of the plan on the dates the last night covered; completing a session is not
///   a change, the nightly rules' own moves are not either, as the digest is taken after them;
///   when the remembered dates were not loaded, e.g. after downtime, it is no reason);
/// - `goal-violation` / `goal-shortfall`: the instruction has a checkable goal (docs/model.md
///   §17) and tonight's check of the coming days finds an open session that breaks it, or a day
///   short of it where the plan has room, that the model was not asked about already (the
///   same day and amount left as it was after the last ask is not asked again);
/// - `review-date`: the model's own next review date (`reviewAgainOn`) has come;
/// - `plan-changed` and `periodic-review` only without a checkable goal: a goal that holds
///   needs no review, and a change of the plan that matters shows in the check;
/// - `periodic-review`: a standing instruction is reviewed every `reviewEveryDays` days, on a
///   night chosen by a stable hash of the student id so the reviews spread evenly over the
///   period (or on the first night after a missed one).
///
/// Not asked: `no-instruction` (nothing to carry out, no new flag), `goal-holds`,
/// `goal-unmended` (only shortfalls the model was asked about, or without room) and `unchanged`.
package struct ModelCallPolicy: Sendable {
    /// Days between reviews of an unchanged standing instruction; 0 turns them off.
    package var reviewEveryDays: Int

    package static let defaultReviewEveryDays = 7

    package init(reviewEveryDays: Int = ModelCallPolicy.defaultReviewEveryDays) {
        self.reviewEveryDays = max(0, reviewEveryDays)
    }

    /// The verdict for one student and why.
    package struct Decision: Sendable, Hashable {
        package var ask: Bool
        package var reason: String

        package init(ask: Bool, reason: String) {
            self.ask = ask
            self.reason = reason
        }

        /// The words the model is given for why it is asked.
        package var why: String {
            switch reason {
            case "flags": return "the local rules left sessions they could not place or decide (see the flags)"
            case "new-instruction": return "I gave a new instruction"
            case "changed-instruction": return "I changed my instruction"
            case "settings-changed": return "I changed my settings"
            case "plan-changed": return "I changed my plan since your last review"
            case "periodic-review": return "the periodic review of my standing instruction"
            case "goal-shortfall": return "my plan falls short of my goal (see my goal below: which day, by how much)"
            case "goal-violation": return "sessions of my plan break my goal (see my goal below)"
            case "review-date": return "the review date you set for my instruction has come"
            default: return reason
            }
        }
    }

    /// - Parameters:
    ///   - planChanged: whether the plan on the remembered dates differs from the remembered
    ///     digest (nil: could not tell, e.g. no memory).
    ///   - goalCheck: tonight's check of the instruction's current goal after the local rules
    ///     (nil: no current, checkable goal).
    package func decide(
        userID: String, settings: UserSettings, language: String, zone: String, flags: [PlanFlag],
        memory: ModelMemory?, planDate: CivilDate, planChanged: Bool?, goalCheck: GoalCheck? = nil
    ) -> Decision {
        let seen = memory?.reviewedFlags ?? []
        if flags.contains(where: { !seen.contains(Self.flagKey($0)) }) { return Decision(ask: true, reason: "flags") }
        let instruction = settings.instruction.trimmingWhitespace()
        guard !instruction.isEmpty else { return Decision(ask: false, reason: "no-instruction") }
        guard let memory, let handled = memory.instructionDigest else {
            return Decision(ask: true, reason: "new-instruction")
        }
        if handled != Self.instructionDigest(instruction) { return Decision(ask: true, reason: "changed-instruction") }
        if settingsChanged(since: memory.settingsDigest, settings, language: language, zone: zone) {
            return Decision(ask: true, reason: "settings-changed")
        }
        let goal = memory.goal.flatMap { $0.belongs(to: handled) ? $0 : nil }
        if let goalCheck, goal?.goal.isCheckable == true {
            if goalCheck.violations.contains(where: { !memory.goalUnmended.contains($0.key) }) {
                return Decision(ask: true, reason: "goal-violation")
            }
            if goalCheck.shortfalls.contains(where: { $0.hasRoom && !memory.goalUnmended.contains($0.key) }) {
                return Decision(ask: true, reason: "goal-shortfall")
            }
            if isReviewDateDue(goal, memory: memory, planDate: planDate) {
                return Decision(ask: true, reason: "review-date")
            }
            return Decision(ask: false, reason: goalCheck.holds ? "goal-holds" : "goal-unmended")
        }
        if isReviewDateDue(goal, memory: memory, planDate: planDate) {
            return Decision(ask: true, reason: "review-date")
        }
        // Unknown is no reason (docs/model.md §13): after downtime the remembered dates may lie
        // before what tonight loaded, and a student who changed nothing must not be told
        // "I changed my plan".
        if planChanged == true { return Decision(ask: true, reason: "plan-changed") }
        if isReviewDue(userID: userID, planDate: planDate, reviewedOn: memory.reviewedOn) {
            return Decision(ask: true, reason: "periodic-review")
        }
        return Decision(ask: false, reason: "unchanged")
    }

    /// The model's own review date has come and was not reviewed on or after it yet.
    func isReviewDateDue(_ goal: StatedGoal?, memory: ModelMemory, planDate: CivilDate) -> Bool {
        guard let date = goal?.reviewAgainOn, date <= planDate else { return false }
        return memory.reviewedOn.map { $0 < date } ?? true
    }

    /// The student's review night comes once per period (a stable hash of the id picks which),
    /// and a review missed (downtime) is made up on the first night after the period.
    func isReviewDue(userID: String, planDate: CivilDate, reviewedOn: CivilDate?) -> Bool {
        guard reviewEveryDays > 0 else { return false }
        guard let reviewedOn else { return true }
        guard reviewedOn < planDate else { return false }
        if reviewedOn.days(until: planDate) > reviewEveryDays { return true }
        let slot = Int(Self.hash(userID) % UInt64(reviewEveryDays))
        let day = ((planDate.dayNumber % reviewEveryDays) + reviewEveryDays) % reviewEveryDays
        return day == slot
    }

    static func hash(_ text: String) -> UInt64 {
        var h: UInt64 = 0xcbf2_9ce4_8422_2325
        for b in text.utf8 { h = (h ^ UInt64(b)) &* 0x100_0000_01b3 }
        return h
    }

    /// How a flag is remembered: the session and the kind (a needs-decision flag's count may
    /// grow from night to night; that is the same question).
    package static func flagKey(_ flag: PlanFlag) -> String { "\(flag.id)|\(flag.kind.rawValue)" }

    package static func instructionDigest(_ instruction: String) -> String {
        StableID.make(prefix: "i", parts: [instruction.trimmingWhitespace()])
    }

    /// Whether the settings that bound the model's placements changed since the digest it
    /// handled. A digest of the first form (all settings, `s-…`) is compared in that form, so
    /// a memory written before the narrower digest asks no more than it did.
    func settingsChanged(since handled: String?, _ s: UserSettings, language: String, zone: String) -> Bool {
        if let handled, handled.hasPrefix("s-") {
            return handled != Self.allSettingsDigest(s, language: language, zone: zone)
        }
        return handled != Self.settingsDigest(s, language: language, zone: zone)
    }

    /// The settings that decide where the model may place sessions (docs/model.md §13):
    /// windows, session length and zone. Tone, language and the planning knobs change nothing
    /// the model did: the next time it is asked, it writes in the new tone anyway.
    package static func settingsDigest(_ s: UserSettings, language: String, zone: String) -> String {
        let windows = Weekday.allCases.map { d in s.windows.windows(on: d).map(\.description).joined(separator: ",") }
        return StableID.make(
            prefix: "w",
            parts: windows + [
                String(s.windowsEnabled), String(s.sessionMinutes), String(s.sessionMinutesEnabled), zone,
            ])
    }

    /// The first form of the settings digest: everything the model reads besides the instruction.
    package static func allSettingsDigest(_ s: UserSettings, language: String, zone: String) -> String {
        let windows = Weekday.allCases.map { d in s.windows.windows(on: d).map(\.description).joined(separator: ",") }
        return StableID.make(
            prefix: "s",
            parts: windows + [
                String(s.windowsEnabled), String(s.sessionMinutes), String(s.sessionMinutesEnabled), s.tone, language,
                zone,
                String(s.horizonDays), String(s.deleteAfterDays), s.keepCategories.joined(separator: ","),
                String(s.splitSessions),
            ])
    }

    /// A digest of the sessions on `from…through`: place, title, category, note and whether
    /// skipped. Completion is left out: a student ticking off sessions gives the model nothing
    /// to do.
    package static func planDigest(_ plan: UserPlan, from: CivilDate, through: CivilDate) -> String {
        var parts: [String] = []
        for o in plan.occurrences(from: from, through: through) {
            parts.append(
                "\(o.id)|\(o.start)|\(o.end)|\(o.allDay)|\(o.state == .skipped)|\(o.title)|\(o.category)|\(o.note)")
        }
        return StableID.make(prefix: "p", parts: parts)
    }
}
