import CCurl
import Foundation

/// A small blocking HTTP client over libcurl.
///
/// Each `send` uses a curl easy handle of its own while it runs, so one client may serve
/// several requests in flight on different threads. Finished handles go back to a pool and
/// are reset (not cleaned up) before their next request: a reset keeps the handle's open
/// connections, so a worker's next model request to the same server reuses the connection
/// (no new TCP and TLS handshake per request, which at one request per second per worker
/// was a noticeable share of a model night). The call blocks its thread for up to the request's total
/// timeout: run it on a thread of your own (or a bounded pool), never on the cooperative
/// concurrency pool unbounded.
///
/// Redirects are not followed (an API endpoint that redirects is misconfigured, and
/// following would resend the `Authorization` header elsewhere); `Expect: 100-continue` is
/// never sent; only http and https are spoken.
package final class HTTPClient: @unchecked Sendable {
    private let lock = NSLock()
    /// Idle easy handles, each with the connections it keeps open.
    private var idle: [UnsafeMutableRawPointer] = []
    private var created = 0
    /// Idle handles kept at most; more are cleaned up (their connections closed).
    private let maxIdle: Int

    package init(maxIdleHandles: Int = 256) { maxIdle = max(0, maxIdleHandles) }

    deinit {
        for handle in idle { curl_easy_cleanup(handle) }
    }

    /// Easy handles created so far (a pool that works creates about one per thread).
    package var handlesCreated: Int { lock.withLock { created } }

    /// Performs `request` and returns the final response, whatever its status.
    /// - Parameter cancellation: when cancelled from another thread, the transfer stops
    ///   within about a second (libcurl's progress interval while idle) with `.cancelled`.
    package func send(_ request: HTTPRequest, cancellation: CancellationToken? = nil) throws(HTTPError) -> HTTPResponse
    {
        let setup = CurlLibrary.initialisation
        guard setup == CURLE_OK else {
            throw .transport(code: Int(setup.rawValue), message: "libcurl could not be initialised")
        }
        if cancellation?.isCancelled == true { throw .cancelled }
        let pooled = lock.withLock { idle.popLast() }
        let handle: UnsafeMutableRawPointer
        if let pooled {
            curl_easy_reset(pooled)
            handle = pooled
        } else {
            guard let fresh = curl_easy_init() else {
                throw .transport(code: Int(CURLE_FAILED_INIT.rawValue), message: "curl_easy_init failed")
            }
            lock.withLock { created += 1 }
            handle = fresh
        }
        defer {
            let kept = lock.withLock { () -> Bool in
                guard idle.count < maxIdle else { return false }
                idle.append(handle)
                return true
            }
            if !kept { curl_easy_cleanup(handle) }
        }
        return try CurlTransfer(request: request, cancellation: cancellation).perform(on: handle)
    }
}
