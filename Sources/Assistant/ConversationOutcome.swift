import Planning

/// What one user's model conversation came to.
public struct ConversationOutcome: Sendable {
    /// How the conversation ended.
    public enum Ending: String, Sendable, CaseIterable {
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
    }

    /// The working copy with the model's validated edits; the input plan when `failed`.
    public var plan: UserPlan
    public var ending: Ending
    /// Occurrences the model edited, with the explanation it gave (may be empty); empty when `failed`.
    public var touched: [OccurrenceID: String]
    /// The `end_conversation` summary or the final text answer.
    public var summary: String?
    /// Chat completion requests made (at most the limit); retries are not turns.
    public var turns: Int
    /// HTTP requests made, retries included.
    public var requests: Int
    public var usage: TokenUsage
    /// Why the conversation failed or stopped early (never the key).
    public var error: String?
    /// The account has no quota left: nobody else in this run should ask.
    public var quotaExhausted: Bool
    /// See `ConversationTranscript`.
    public var transcript: JSONValue

    public var failed: Bool { ending == .failed || ending == .cancelled }
}
