import CCurl

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Process-wide libcurl setup, done exactly once before the first transfer.
///
/// `curl_global_init` is not thread-safe on older libcurl versions, and several threads may
/// send their first request at the same moment; a `static let` gives us the runtime's
/// thread-safe one-time initialisation.
enum CurlLibrary {
    /// The result of `curl_global_init`; anything but `CURLE_OK` makes every transfer fail.
    static let initialisation: CURLcode = {
        // With CURLOPT_NOSIGNAL set, libcurl installs no signal handlers of its own, yet a
        // write to a socket the peer already closed raises SIGPIPE (notably inside TLS
        // libraries), which would kill the whole nightly run instead of failing one request.
        signal(SIGPIPE, SIG_IGN)
        return curl_global_init(Int(CURL_GLOBAL_ALL))
    }()
}
