/// Why an exchange produced no HTTP response. An HTTP error status is not an `HTTPError`:
/// it is a response, and deciding what it means is the caller's business.
///
/// No case carries request headers, because the `Authorization` header holds the API key.
package enum HTTPError: Error, Equatable, CustomStringConvertible {
    /// The server could not be reached, or the connection broke before a whole response arrived.
    case connectionFailed(String)
    /// The connect or total timeout of the request elapsed.
    case timedOut
    /// The response body exceeded `HTTPRequest.maxResponseBytes`.
    case responseTooLarge(limit: Int)
    /// The caller's `CancellationToken` was cancelled.
    case cancelled
    /// The URL is malformed or does not use http or https.
    case invalidURL(String)
    /// The reply had no HTTP status line (an HTTP/0.9 reply, or another service on the port),
    /// with curl's text.
    case notHTTP(String)
    /// Any other libcurl failure (TLS trust, out of memory, …), with curl's code and text.
    case transport(code: Int, message: String)

    package var description: String {
        switch self {
        case .connectionFailed(let detail):
            return "connection failed: \(detail)"
        case .timedOut:
            return "the request timed out"
        case .responseTooLarge(let limit):
            return "the response is larger than the limit of \(limit) bytes"
        case .cancelled:
            return "the request was cancelled"
        case .invalidURL(let url):
            return "invalid URL '\(url)': only absolute http and https URLs are supported"
        case .notHTTP(let detail):
            return
                "the server's reply is not HTTP (no status line: \(detail)); check that the URL names an HTTP server's host and port"
        case .transport(let code, let message):
            return "transfer failed (curl error \(code)): \(message)"
        }
    }
}
