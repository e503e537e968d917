import Foundation
import HTTP

/// Everything that happened while asking the model one question: the body sent, each
/// attempt's raw answer, the decoded result and the tokens spent. It is what the transcript
/// stores, so it never holds the API key (the key travels only in a header, and server
/// text echoing it is redacted).
package struct ChatExchange: Sendable {
    /// One HTTP attempt.
    package struct Attempt: Sendable, Equatable {
        /// What the attempt got back.
        package enum Outcome: Sendable, Equatable {
            /// A response of any status, with its raw body.
            case response(status: Int, body: Data)
            /// No response at all.
            case failure(HTTPError)
        }

        package var outcome: Outcome
        /// Seconds waited before the next attempt; nil for the last attempt.
        package var retryDelay: Double?

        package init(outcome: Outcome, retryDelay: Double? = nil) {
            self.outcome = outcome
            self.retryDelay = retryDelay
        }
    }

    /// The request body exactly as sent (identical for every attempt).
    package var requestBody: Data
    package var attempts: [Attempt]
    /// Tokens of every decoded response in this exchange.
    package var usage: TokenUsage
    package var result: Result<ChatCompletionResponse, ModelCallError>

    package init(
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
    package var attemptCount: Int { attempts.count }

    /// The decoded answer, or the error that ended the exchange.
    package func response() throws(ModelCallError) -> ChatCompletionResponse {
        try result.get()
    }
}
