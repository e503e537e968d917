import Foundation
import HTTP

/// Everything that happened while asking the model one question: the body sent, each
/// attempt's raw answer, the decoded result and the tokens spent. It is what the transcript
/// stores, so it never holds the API key (the key travels only in a header, and server
/// text echoing it is redacted).
public struct ChatExchange: Sendable {
    /// One HTTP attempt.
    public struct Attempt: Sendable, Equatable {
        /// What the attempt got back.
        public enum Outcome: Sendable, Equatable {
            /// A response of any status, with its raw body.
            case response(status: Int, body: Data)
            /// No response at all.
            case failure(HTTPError)
        }

        public var outcome: Outcome
        /// Seconds waited before the next attempt; nil for the last attempt.
        public var retryDelay: Double?

        public init(outcome: Outcome, retryDelay: Double? = nil) {
            self.outcome = outcome
            self.retryDelay = retryDelay
        }
    }

    /// The request body exactly as sent (identical for every attempt).
    public var requestBody: Data
    public var attempts: [Attempt]
    /// Tokens of every decoded response in this exchange.
    public var usage: TokenUsage
    public var result: Result<ChatCompletionResponse, ModelCallError>

    public init(
        requestBody: Data,
        attempts: [Attempt],
        usage: TokenUsage,
        result: Result<ChatCompletionResponse, ModelCallError>
    ) {
        self.requestBody = requestBody
        self.attempts = attempts
        self.usage = usage
        self.result = result
    }

    /// Number of HTTP requests made (1 plus the retries).
    public var attemptCount: Int { attempts.count }

    /// The decoded answer, or the error that ended the exchange.
    public func response() throws(ModelCallError) -> ChatCompletionResponse {
        try result.get()
    }
}
