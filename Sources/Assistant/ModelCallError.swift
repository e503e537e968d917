import HTTP

/// Why asking the model produced no usable answer.
///
/// Descriptions never contain the API key: it travels only in a request header, which no
/// case carries, and server text is redacted by the client before it lands here.
package enum ModelCallError: Error, Equatable, CustomStringConvertible {
    /// No HTTP response (connection, timeout, size cap), after any retries.
    case transport(HTTPError)
    /// The server answered with an error status that is not retried or kept failing.
    case http(status: Int, body: APIErrorBody?)
    /// 429 `insufficient_quota`: the account is out of credit; asking again is pointless
    /// for every user of this run.
    case quotaExhausted(String)
    /// A 2xx answer that is not a usable chat completion.
    case invalidResponse(String)
    /// The request could not be encoded (a non-finite number in a tool schema, say).
    case invalidRequest(String)
    /// The run's `ProviderBreaker` is open: the provider refused everything for too long.
    case providerRefusing(String)
    /// The run was cancelled (SIGINT/SIGTERM) while the request or a retry pause was pending.
    case cancelled

    package var description: String {
        switch self {
        case .transport(let error):
            return "the model server could not be reached: \(error)"
        case .http(let status, let body):
            guard let body else { return "the model server answered HTTP \(status)" }
            let code = body.code.map { " (\($0))" } ?? ""
            return "the model server answered HTTP \(status)\(code): \(body.message)"
        case .quotaExhausted(let message):
            return "the model account has no quota left: \(message)"
        case .invalidResponse(let detail):
            return "the model server sent an unusable response: \(detail)"
        case .invalidRequest(let detail):
            return "the model request could not be encoded: \(detail)"
        case .providerRefusing(let reason):
            return reason
        case .cancelled:
            return "the model request was cancelled"
        }
    }
}
