import Assistant
import Foundation
import HTTP
import Planning

/// The model stage of the pipeline backed by the Assistant module: one `ModelConversation`
/// per user, its outcome turned into a `ModelReview`. A conversation that found the account
/// out of quota trips the run's `ModelShutoff`, so the remaining users are not asked.
public struct AssistantReviewer: ModelReviewer {
    public let conversation: ModelConversation
    /// Cancelled on SIGINT/SIGTERM: ends an in-flight request at once.
    public let cancellation: CancellationToken?
    public let shutoff: ModelShutoff?

    public init(conversation: ModelConversation, cancellation: CancellationToken? = nil, shutoff: ModelShutoff? = nil) {
        self.conversation = conversation
        self.cancellation = cancellation
        self.shutoff = shutoff
    }

    public func review(_ working: UserPlan, local: PostponementResult, now: Date) -> ModelReview {
        review(working, local: local, now: now, why: "a review of my plan")
    }

    public func review(_ working: UserPlan, local: PostponementResult, now: Date, why: String) -> ModelReview {
        let outcome = conversation.run(plan: working, now: now, localNow: local.now, localEdits: local.edits, flags: local.flags,
                                       why: why, cancellation: cancellation)
        if outcome.quotaExhausted {
            shutoff?.trip("\(outcome.error ?? "the model account has no quota left"); no more model calls in this run")
        }
        var review = ModelReview(plan: outcome.failed ? working : outcome.plan, ending: outcome.ending,
                           touched: outcome.failed ? [:] : outcome.touched, requests: outcome.requests, turns: outcome.turns,
                           usage: TokenCounts(prompt: outcome.usage.prompt, completion: outcome.usage.completion,
                                              reasoning: outcome.usage.reasoning, cached: outcome.usage.cached),
                           error: outcome.error, quotaExhausted: outcome.quotaExhausted, transcript: outcome.transcript,
                           summary: outcome.summary)
        review.finishReasons = outcome.finishReasons
        review.endStatus = outcome.endStatus
        review.question = outcome.question
        return review
    }
}
