import Foundation

/// Everything needed to perform one HTTP exchange: where, how, what to send, and the
/// limits that keep a misbehaving server from stalling or flooding the nightly job.
package struct HTTPRequest: Sendable {
    /// Absolute `http://` or `https://` URL; other schemes are refused by the client.
    package var url: String
    /// Request method; the model API only needs `POST`.
    package var method: String
    package var headers: [HTTPHeader]
    package var body: Data
    /// Seconds allowed to establish the connection (TCP and TLS).
    package var connectTimeout: Double
    /// Seconds allowed for the whole exchange, connection included.
    package var totalTimeout: Double
    /// Largest response body accepted; anything bigger ends the transfer with
    /// `HTTPError.responseTooLarge`, so one bad answer cannot exhaust memory.
    package var maxResponseBytes: Int

    package static let defaultMaxResponseBytes = 8 * 1024 * 1024

    package init(
        url: String,
        method: String = "POST",
        headers: [HTTPHeader] = [],
        body: Data = Data(),
        connectTimeout: Double = 10,
        totalTimeout: Double = 120,
        maxResponseBytes: Int = HTTPRequest.defaultMaxResponseBytes
    ) {
        self.url = url
        self.method = method
        self.headers = headers
        self.body = body
        self.connectTimeout = connectTimeout
        self.totalTimeout = totalTimeout
        self.maxResponseBytes = maxResponseBytes
    }
}
