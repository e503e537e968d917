import Assistant
import Foundation
import HTTP
import Planning

/// The model stage of the pipeline backed by the Assistant module: one `ModelConversation`
/// per user, its outcome turned into a `ModelReview`. A conversation that found the account
/// out of quota trips the run's `ModelShutoff`, so the remaining users are not asked.
package struct AssistantReviewer: ModelReviewer {
    package let conversation: ModelConversation
    /// Cancelled on SIGINT/SIGTERM: ends an in-flight request at once.
    package let cancellation: CancellationToken?
    package let shutoff: ModelShutoff?
    /// The model stage's time limits (nil: none).
    package let deadline: ModelDeadline?
    /// Opens once the provider refused everything for too long; shared by the run.
    package let breaker: ProviderBreaker?

    package init(
        conversation: ModelConversation, cancellation: CancellationToken? = nil, shutoff: ModelShutoff? = nil,
        deadline: ModelDeadline? = nil, breaker: ProviderBreaker? = nil
    ) {
        self.conversation = conversation
        self.cancellation = cancellation
        self.shutoff = shutoff
        self.deadline = deadline
        self.breaker = breaker
    }

    package func review(_ working: UserPlan, local: PostponementResult, now: Date) -> ModelReview {
        review(working, local: local, now: now, why: "a review of my plan")
    }

    package func review(_ working: UserPlan, local: PostponementResult, now: Date, why: String) -> ModelReview {
        review(working, local: local, now: now, why: why, takenBack: TakenBack(edits: []))
    }

    package func review(
        _ working: UserPlan, local: PostponementResult, now: Date, why: String, takenBack: TakenBack
    ) -> ModelReview {
        review(working, local: local, now: now, why: why, takenBack: takenBack, goal: .none)
    }

    package func review(
        _ working: UserPlan, local: PostponementResult, now: Date, why: String, takenBack: TakenBack, goal: GoalBrief
    ) -> ModelReview {
        review(working, local: local, now: now, why: why, takenBack: takenBack, goal: goal, reaching: [])
    }

    package func review(
        _ working: UserPlan, local: PostponementResult, now: Date, why: String, takenBack: TakenBack, goal: GoalBrief,
        reaching: [CivilDate]
    ) -> ModelReview {
        if let breaker, breaker.isOpen {
            shutoff?.trip(breaker.reason)
            return ModelReview(plan: working, ending: .failed, error: breaker.reason)
        }
        var watch: DeadlineWatch?
        if let deadline {
            let started = Date()
            if let reason = deadline.runExpired(at: started) {
                shutoff?.trip(reason)
                return ModelReview(plan: working, ending: .failed, error: reason)
            }
            watch = DeadlineWatch(
                end: min(deadline.runEnd, started.addingTimeInterval(deadline.perStudent)), parent: cancellation,
                breaker: breaker)
        }
        let outcome = conversation.run(
            plan: working, now: now, localNow: local.now, localEdits: local.edits, flags: local.flags,
            why: why, takenBack: takenBack, goal: goal, reaching: reaching, cancellation: watch?.token ?? cancellation)
        watch?.finish()
        if outcome.quotaExhausted {
            shutoff?.trip("\(outcome.error ?? "the model account has no quota left"); no more model calls in this run")
        }
        var error = outcome.error
        var ending = outcome.ending
        if let breaker, outcome.failed, breaker.isOpen, cancellation?.isCancelled != true {
            // The provider refused everything for too long: a model failure (the local edits
            // stand), and nobody else is asked in this run.
            shutoff?.trip(breaker.reason)
            ending = .failed
            error = breaker.reason
        } else if let watch, let deadline, outcome.failed, watch.deadlinePassed, cancellation?.isCancelled != true {
            // Stopped by a deadline, not by the operator: a failure like any other (the local
            // edits stand), named as such.
            ending = .failed
            if let reason = deadline.runExpired(at: Date()) {
                shutoff?.trip(reason)
                error = reason
            } else {
                error =
                    "the model took longer than this student's limit (\(ModelDeadline.seconds(deadline.perStudent))); local edits only"
            }
        }
        var review = ModelReview(
            plan: outcome.failed ? working : outcome.plan, ending: ending,
            touched: outcome.failed ? [:] : outcome.touched, requests: outcome.requests, turns: outcome.turns,
            usage: TokenCounts(
                prompt: outcome.usage.prompt, completion: outcome.usage.completion,
                reasoning: outcome.usage.reasoning, cached: outcome.usage.cached),
            error: error, quotaExhausted: outcome.quotaExhausted, transcript: outcome.transcript,
            summary: outcome.summary)
        review.finishReasons = outcome.finishReasons
        review.endStatus = outcome.endStatus
        review.question = outcome.question
        review.goal = outcome.goal
        review.reviewAgainOn = outcome.reviewAgainOn
        return review
    }
}
