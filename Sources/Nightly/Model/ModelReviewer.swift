import Assistant
import Foundation
import JSON
import Planning

/// The model stage of the pipeline: reviews a user's plan after the local rules and may edit
/// the working copy through validated tool calls. Implemented by the Assistant-backed
/// reviewer; the pipeline only knows this shape, so `--no-model` is simply "no reviewer".
package protocol ModelReviewer: Sendable {
    /// - Parameters:
    ///   - working: the plan after the local rules.
    ///   - local: what the local rules did (for the prompt).
    func review(_ working: UserPlan, local: PostponementResult, now: Date) -> ModelReview
    /// - Parameter why: why the call policy asks tonight, for the prompt.
    func review(_ working: UserPlan, local: PostponementResult, now: Date, why: String) -> ModelReview
    /// - Parameter takenBack: the model's edits the student undid (docs/model.md §14).
    func review(_ working: UserPlan, local: PostponementResult, now: Date, why: String, takenBack: TakenBack)
        -> ModelReview
    /// - Parameter goal: the instruction's goal and tonight's check of it (docs/model.md §17).
    func review(
        _ working: UserPlan, local: PostponementResult, now: Date, why: String, takenBack: TakenBack, goal: GoalBrief
    ) -> ModelReview
    /// - Parameter reaching: the days `why` names (a plan-changed request's diff): the request
    ///   lists the plan as far as they reach.
    func review(
        _ working: UserPlan, local: PostponementResult, now: Date, why: String, takenBack: TakenBack, goal: GoalBrief,
        reaching: [CivilDate]
    ) -> ModelReview
}

extension ModelReviewer {
    /// Reviewers that do not tell the model why simply ignore it.
    package func review(_ working: UserPlan, local: PostponementResult, now: Date, why: String) -> ModelReview {
        review(working, local: local, now: now)
    }

    /// Reviewers that know nothing of undos ignore them.
    package func review(
        _ working: UserPlan, local: PostponementResult, now: Date, why: String, takenBack: TakenBack
    ) -> ModelReview {
        review(working, local: local, now: now, why: why)
    }

    /// Reviewers that know nothing of goals ignore them.
    package func review(
        _ working: UserPlan, local: PostponementResult, now: Date, why: String, takenBack: TakenBack, goal: GoalBrief
    ) -> ModelReview {
        review(working, local: local, now: now, why: why, takenBack: takenBack)
    }

    /// Reviewers that list no plan ignore the days the request reaches.
    package func review(
        _ working: UserPlan, local: PostponementResult, now: Date, why: String, takenBack: TakenBack, goal: GoalBrief,
        reaching: [CivilDate]
    ) -> ModelReview {
        review(working, local: local, now: now, why: why, takenBack: takenBack, goal: goal)
    }
}

/// What the model stage did for one user.
package struct ModelReview: Sendable {
    /// How the conversation ended (the conversation's own vocabulary).
    package typealias Ending = ConversationOutcome.Ending

    /// The working copy after the model's validated edits (on failure: unchanged input).
    package var plan: UserPlan
    package var ending: Ending
    /// Occurrences the model changed, with the explanation it gave (may be empty).
    package var touched: [OccurrenceID: String]
    package var requests: Int
    package var turns: Int
    package var usage: TokenCounts
    /// Why the model stage failed, for the user run and the log (never the key).
    package var error: String?
    /// The quota is gone: the run stops asking the model for the remaining users.
    package var quotaExhausted: Bool
    /// Every message exchanged, for `replan show --transcript`.
    package var transcript: JSONValue
    /// What the model told the student at the end (its `end_conversation` summary or final text).
    package var summary: String?
    /// `finish_reason` of each answered request.
    package var finishReasons: [String] = []
    /// The `status` and `question` of `end_conversation`.
    package var endStatus: String?
    package var question: String?
    /// The goal the model stated (`set_goal`) and its next review date (docs/model.md §17).
    package var goal: Goal?
    package var reviewAgainOn: CivilDate?

    package init(
        plan: UserPlan, ending: Ending, touched: [OccurrenceID: String] = [:], requests: Int = 0, turns: Int = 0,
        usage: TokenCounts = TokenCounts(), error: String? = nil, quotaExhausted: Bool = false,
        transcript: JSONValue = [],
        summary: String? = nil
    ) {
        self.plan = plan
        self.ending = ending
        self.touched = touched
        self.requests = requests
        self.turns = turns
        self.usage = usage
        self.error = error
        self.quotaExhausted = quotaExhausted
        self.transcript = transcript
        self.summary = summary
    }

    package var failed: Bool { ending.isFailure }
    /// Whether the instruction and the flags shown count as handled (`Ending.handled`).
    package var handled: Bool { ending.handled }
}

/// Token usage summed over requests.
package struct TokenCounts: Hashable, Sendable {
    package var prompt = 0, completion = 0, reasoning = 0, cached = 0

    package init(prompt: Int = 0, completion: Int = 0, reasoning: Int = 0, cached: Int = 0) {
        self.prompt = prompt
        self.completion = completion
        self.reasoning = reasoning
        self.cached = cached
    }

    package var total: Int { .saturating(prompt, plus: completion) }

    package static func + (a: TokenCounts, b: TokenCounts) -> TokenCounts {
        // Saturating: these are a model server's numbers (issue 13, item 7).
        TokenCounts(
            prompt: .saturating(a.prompt, plus: b.prompt), completion: .saturating(a.completion, plus: b.completion),
            reasoning: .saturating(a.reasoning, plus: b.reasoning), cached: .saturating(a.cached, plus: b.cached))
    }

    package var json: JSONValue {
        [
            "prompt": .int(prompt), "completion": .int(completion), "reasoning": .int(reasoning),
            "cached": .int(cached), "total": .int(total),
        ]
    }
}
