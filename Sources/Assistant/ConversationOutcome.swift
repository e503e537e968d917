import JSON
import Planning

/// What one user's model conversation came to.
package struct ConversationOutcome: Sendable {
    /// How the conversation ended.
    package enum Ending: String, Sendable, CaseIterable {
        /// The model called `end_conversation`.
        case endConversation = "end_conversation"
        /// The model answered with text and no tool calls.
        case textAnswer = "text"
        /// The request limit was reached; the edits validated so far stand.
        case turnLimit = "turn-limit"
        /// A request failed for good (transport after retries, HTTP error, quota, unusable
        /// response) or the prompt could not be rendered; no edit of the model stands.
        case failed
        /// SIGINT/SIGTERM cancelled the conversation; no edit of the model stands.
        case cancelled
        /// An answer hit the token cap (`finish_reason: length`): the conversation was cut.
        /// That answer is incomplete and none of its calls run; the edits validated in the
        /// turns before it stand (docs/model.md §13).
        case truncated = "length"
        /// The model refused (a `refusal` message): the instruction was not carried out.
        case refused = "refusal"
        /// The provider's content filter cut the answer (`finish_reason: content_filter`).
        case filtered = "content_filter"

        /// Endings after which none of the model's edits stand and the model stage counts as
        /// failed for the student (the local rules' edits are still committed by default).
        package var isFailure: Bool {
            switch self {
            case .failed, .cancelled, .refused, .filtered: return true
            case .endConversation, .textAnswer, .turnLimit, .truncated: return false
            }
        }

        /// Whether the model finished what it was asked for: only a conversation it closed
        /// with `end_conversation`. A text answer, a turn-limit stop or a cut conversation
        /// keeps its validated edits but leaves the instruction and the flags to be asked
        /// about again (docs/model.md §13).
        package var handled: Bool { self == .endConversation }
    }

    /// The working copy with the model's validated edits; the input plan when `failed`.
    package var plan: UserPlan
    package var ending: Ending
    /// Occurrences the model edited, with the explanation it gave (may be empty); empty when `failed`.
    package var touched: [OccurrenceID: String]
    /// The `end_conversation` summary or the final text answer.
    package var summary: String?
    /// Chat completion requests made (at most the limit); retries are not turns.
    package var turns: Int
    /// HTTP requests made, retries included.
    package var requests: Int
    package var usage: TokenUsage
    /// Why the conversation failed or stopped early (never the key).
    package var error: String?
    /// The account has no quota left: nobody else in this run should ask.
    package var quotaExhausted: Bool
    /// See `ConversationTranscript`.
    package var transcript: JSONValue

    /// `finish_reason` of every answered request, in order (`?` when the server sent none).
    package var finishReasons: [String] = []
    /// The `status` and `question` of `end_conversation`, when given.
    package var endStatus: String?
    package var question: String?
    /// The goal the model stated with `set_goal` and its next review date (docs/model.md §17);
    /// nil when it stated none or the conversation failed.
    package var goal: Goal?
    package var reviewAgainOn: CivilDate?

    package var failed: Bool { ending.isFailure }
}
