import CCurl
import Foundation

/// One request performed on a curl easy handle (owned by `HTTPClient`'s pool), with the state
/// its callbacks fill in.
///
/// Lives for a single `perform()` on a single thread; libcurl calls back into it through
/// an unretained pointer, valid because callbacks only run inside `perform()`, during which
/// `self` is alive.
final class CurlTransfer {
    private let request: HTTPRequest
    private let cancellation: CancellationToken?
    private var body = Data()
    private var headerBlock = ResponseHeaderBlock()
    private var exceededLimit = false
    private var sawCancellation = false

    init(request: HTTPRequest, cancellation: CancellationToken?) {
        self.request = request
        self.cancellation = cancellation
    }

    /// - Parameter handle: a fresh or reset easy handle; every option this request needs is
    ///   set here, and the handle's pointers into this transfer are cleared before returning.
    func perform(on handle: UnsafeMutableRawPointer) throws(HTTPError) -> HTTPResponse {
        // The error buffer and the header list die with this call: the handle must not keep
        // pointers to them while it waits in the pool.
        defer { curl_easy_reset(handle) }

        let errorBuffer = UnsafeMutablePointer<CChar>.allocate(capacity: Int(CURL_ERROR_SIZE))
        errorBuffer.initialize(repeating: 0, count: Int(CURL_ERROR_SIZE))
        defer { errorBuffer.deallocate() }

        var headerList: UnsafeMutablePointer<curl_slist>?
        defer { curl_slist_free_all(headerList) }
        for header in request.headers {
            headerList = curl_slist_append(headerList, "\(header.name): \(header.value)")
        }
        // An empty value removes the header curl would otherwise add for larger bodies;
        // the 100-continue round trip only adds latency and trips some proxies.
        headerList = curl_slist_append(headerList, "Expect:")

        let context = Unmanaged.passUnretained(self).toOpaque()
        let configured = configure(handle, headerList: headerList, errorBuffer: errorBuffer, context: context)
        guard configured == CURLE_OK else {
            throw .transport(code: Int(configured.rawValue), message: Self.text(of: configured, errorBuffer))
        }

        let result = curl_easy_perform(handle)
        if result != CURLE_OK {
            throw error(for: result, detail: Self.text(of: result, errorBuffer))
        }
        var status = 0
        _ = replan_curl_getinfo_long(handle, CURLINFO_RESPONSE_CODE, &status)
        var connects = 0
        _ = replan_curl_getinfo_long(handle, CURLINFO_NUM_CONNECTS, &connects)
        var response = HTTPResponse(status: status, headers: headerBlock.fields, body: body)
        response.reusedConnection = connects == 0
        return response
    }

    private func configure(
        _ handle: UnsafeMutableRawPointer,
        headerList: UnsafeMutablePointer<curl_slist>?,
        errorBuffer: UnsafeMutablePointer<CChar>,
        context: UnsafeMutableRawPointer
    ) -> CURLcode {
        var steps: [() -> CURLcode] = [
            { replan_curl_setopt_string(handle, CURLOPT_URL, self.request.url) },
            { replan_curl_allow_only_http(handle) },
            // Signals and multi-threading do not mix; without this, name resolution
            // timeouts use SIGALRM and can crash a threaded process.
            { replan_curl_setopt_long(handle, CURLOPT_NOSIGNAL, 1) },
            { replan_curl_setopt_long(handle, CURLOPT_FOLLOWLOCATION, 0) },
            {
                replan_curl_setopt_long(
                    handle, CURLOPT_CONNECTTIMEOUT_MS, Self.milliseconds(self.request.connectTimeout))
            },
            { replan_curl_setopt_long(handle, CURLOPT_TIMEOUT_MS, Self.milliseconds(self.request.totalTimeout)) },
            // Refuses early when the server announces a too-large Content-Length; the write
            // callback still enforces the cap for bodies of unannounced length.
            { replan_curl_setopt_offt(handle, CURLOPT_MAXFILESIZE_LARGE, curl_off_t(self.request.maxResponseBytes)) },
            { replan_curl_setopt_slist(handle, CURLOPT_HTTPHEADER, headerList) },
            { replan_curl_setopt_pointer(handle, CURLOPT_ERRORBUFFER, errorBuffer) },
            { replan_curl_setopt_pointer(handle, CURLOPT_WRITEDATA, context) },
            {
                replan_curl_setopt_data_callback(handle, CURLOPT_WRITEFUNCTION) { data, size, count, context in
                    guard let data, let context else { return 0 }
                    let transfer = Unmanaged<CurlTransfer>.fromOpaque(context).takeUnretainedValue()
                    return transfer.receiveBody(data, byteCount: size * count)
                }
            },
            { replan_curl_setopt_pointer(handle, CURLOPT_HEADERDATA, context) },
            {
                replan_curl_setopt_data_callback(handle, CURLOPT_HEADERFUNCTION) { data, size, count, context in
                    guard let data, let context else { return 0 }
                    let transfer = Unmanaged<CurlTransfer>.fromOpaque(context).takeUnretainedValue()
                    return transfer.receiveHeaderLine(data, byteCount: size * count)
                }
            },
            { replan_curl_setopt_long(handle, CURLOPT_NOPROGRESS, 0) },
            { replan_curl_setopt_pointer(handle, CURLOPT_XFERINFODATA, context) },
            {
                replan_curl_setopt_xferinfo_callback(handle, CURLOPT_XFERINFOFUNCTION) { context, _, _, _, _ in
                    guard let context else { return 0 }
                    let transfer = Unmanaged<CurlTransfer>.fromOpaque(context).takeUnretainedValue()
                    return transfer.shouldAbort() ? 1 : 0
                }
            },
        ]
        steps += methodSteps(handle)
        for step in steps {
            let code = step()
            if code != CURLE_OK { return code }
        }
        return CURLE_OK
    }

    private func methodSteps(_ handle: UnsafeMutableRawPointer) -> [() -> CURLcode] {
        let method = request.method.uppercased()
        switch method {
        case "GET" where request.body.isEmpty:
            return [{ replan_curl_setopt_long(handle, CURLOPT_HTTPGET, 1) }]
        case "HEAD":
            return [{ replan_curl_setopt_long(handle, CURLOPT_NOBODY, 1) }]
        default:
            var steps: [() -> CURLcode] = [
                { replan_curl_setopt_long(handle, CURLOPT_POST, 1) },
                { replan_curl_setopt_offt(handle, CURLOPT_POSTFIELDSIZE_LARGE, curl_off_t(self.request.body.count)) },
                // COPYPOSTFIELDS lets curl own its copy, so no pointer into `Data` has to
                // outlive a closure; request bodies are small enough for the copy not to matter.
                { self.copyBody(into: handle) },
            ]
            if method != "POST" {
                steps.append { replan_curl_setopt_string(handle, CURLOPT_CUSTOMREQUEST, method) }
            }
            return steps
        }
    }

    private func copyBody(into handle: UnsafeMutableRawPointer) -> CURLcode {
        if request.body.isEmpty {
            return replan_curl_setopt_string(handle, CURLOPT_COPYPOSTFIELDS, "")
        }
        return request.body.withUnsafeBytes { bytes in
            // Non-empty, so the base address exists; curl only reads through the pointer.
            replan_curl_setopt_pointer(
                handle, CURLOPT_COPYPOSTFIELDS, UnsafeMutableRawPointer(mutating: bytes.baseAddress!))
        }
    }

    private func receiveBody(_ data: UnsafeMutablePointer<CChar>, byteCount: Int) -> Int {
        if body.count + byteCount > request.maxResponseBytes {
            exceededLimit = true
            return 0 // any count other than byteCount makes curl stop with CURLE_WRITE_ERROR
        }
        data.withMemoryRebound(to: UInt8.self, capacity: byteCount) { body.append($0, count: byteCount) }
        return byteCount
    }

    private func receiveHeaderLine(_ data: UnsafeMutablePointer<CChar>, byteCount: Int) -> Int {
        let line = data.withMemoryRebound(to: UInt8.self, capacity: byteCount) {
            // Header bytes are not guaranteed UTF-8; Latin-1 never fails and keeps ASCII intact.
            String(bytes: UnsafeBufferPointer(start: $0, count: byteCount), encoding: .isoLatin1) ?? ""
        }
        headerBlock.consume(line: line)
        return byteCount
    }

    private func shouldAbort() -> Bool {
        if cancellation?.isCancelled == true { sawCancellation = true }
        return sawCancellation
    }

    private func error(for code: CURLcode, detail: String) -> HTTPError {
        if sawCancellation || code == CURLE_ABORTED_BY_CALLBACK { return .cancelled }
        if exceededLimit || code == CURLE_FILESIZE_EXCEEDED {
            return .responseTooLarge(limit: request.maxResponseBytes)
        }
        switch code {
        case CURLE_OPERATION_TIMEDOUT:
            return .timedOut
        case CURLE_UNSUPPORTED_PROTOCOL where detail.contains("HTTP/0.9"):
            // curl refuses a reply without a status line under the code of a bad scheme.
            return .notHTTP(detail)
        case CURLE_URL_MALFORMAT, CURLE_UNSUPPORTED_PROTOCOL:
            return .invalidURL(request.url)
        case CURLE_COULDNT_RESOLVE_PROXY, CURLE_COULDNT_RESOLVE_HOST, CURLE_COULDNT_CONNECT,
            CURLE_GOT_NOTHING, CURLE_SEND_ERROR, CURLE_RECV_ERROR, CURLE_PARTIAL_FILE,
            CURLE_HTTP2, CURLE_HTTP2_STREAM, CURLE_HTTP3, CURLE_QUIC_CONNECT_ERROR:
            // All mean "the conversation with the server broke", which a retry may cure.
            return .connectionFailed(detail)
        default:
            return .transport(code: Int(code.rawValue), message: detail)
        }
    }

    private static func text(of code: CURLcode, _ errorBuffer: UnsafeMutablePointer<CChar>) -> String {
        // The error buffer has curl's specific account ("Failed to connect to … port …");
        // the generic text is the fallback when it stayed empty.
        if errorBuffer.pointee != 0 { return String(cString: errorBuffer) }
        return String(cString: curl_easy_strerror(code))
    }

    private static func milliseconds(_ seconds: Double) -> Int {
        // 0 would mean "no timeout" to curl; a non-positive request timeout is taken as 1 ms.
        guard seconds.isFinite else { return 0 }
        // Clamped before the conversion, which traps beyond Int's range (issue 13, item 7).
        return max(1, Int(min(max((seconds * 1000).rounded(), 0), Double(Int32.max))))
    }
}
