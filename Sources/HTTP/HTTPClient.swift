import CCurl
import Foundation

/// A small blocking HTTP client over libcurl.
///
/// Each `send` uses its own curl easy handle, so one client may serve several requests in
/// flight on different threads. The call blocks its thread for up to the request's total
/// timeout: run it on a thread of your own (or a bounded pool), never on the cooperative
/// concurrency pool unbounded.
///
/// Redirects are not followed (an API endpoint that redirects is misconfigured, and
/// following would resend the `Authorization` header elsewhere); `Expect: 100-continue` is
/// never sent; only http and https are spoken.
public final class HTTPClient: Sendable {
    public init() {}

    /// Performs `request` and returns the final response, whatever its status.
    /// - Parameter cancellation: when cancelled from another thread, the transfer stops
    ///   within about a second (libcurl's progress interval while idle) with `.cancelled`.
    public func send(_ request: HTTPRequest, cancellation: CancellationToken? = nil) throws(HTTPError) -> HTTPResponse {
        let setup = CurlLibrary.initialisation
        guard setup == CURLE_OK else {
            throw .transport(code: Int(setup.rawValue), message: "libcurl could not be initialised")
        }
        if cancellation?.isCancelled == true { throw .cancelled }
        return try CurlTransfer(request: request, cancellation: cancellation).perform()
    }
}
