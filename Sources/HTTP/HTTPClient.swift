import CCurl
import Foundation
import Synchronization

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
package final class HTTPClient: Sendable {
    private struct Pool {
        /// Idle easy handles, each with the connections it keeps open.
        var idle: [EasyHandle] = []
        var created = 0
    }

    /// A curl easy handle. Only one thread uses it at a time: it is either in the pool
    /// (reached through the mutex) or owned by the one `send` that took it out.
    private struct EasyHandle: @unchecked Sendable {
        let pointer: UnsafeMutableRawPointer
    }

    private let pool = Mutex(Pool())
    /// Idle handles kept at most; more are cleaned up (their connections closed).
    private let maxIdle: Int

    package init(maxIdleHandles: Int = 256) { maxIdle = max(0, maxIdleHandles) }

    deinit {
        pool.withLock { pool in
            for handle in pool.idle { curl_easy_cleanup(handle.pointer) }
        }
    }

    /// Easy handles created so far (a pool that works creates about one per thread).
    package var handlesCreated: Int { pool.withLock { $0.created } }

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
        let pooled = pool.withLock { $0.idle.popLast() }
        let handle: UnsafeMutableRawPointer
        if let pooled {
            curl_easy_reset(pooled.pointer)
            handle = pooled.pointer
        } else {
            guard let fresh = curl_easy_init() else {
                throw .transport(code: Int(CURLE_FAILED_INIT.rawValue), message: "curl_easy_init failed")
            }
            pool.withLock { $0.created += 1 }
            handle = fresh
        }
        defer {
            let maxIdle = maxIdle
            let kept = pool.withLock { pool -> Bool in
                guard pool.idle.count < maxIdle else { return false }
                pool.idle.append(EasyHandle(pointer: handle))
                return true
            }
            if !kept { curl_easy_cleanup(handle) }
        }
        return try CurlTransfer(request: request, cancellation: cancellation).perform(on: handle)
    }
}
