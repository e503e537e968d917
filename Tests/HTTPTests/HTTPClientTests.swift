import Foundation
import ReplanTestSupport
import Synchronization
import Testing

@testable import HTTP

@Suite struct HTTPClientTests {
    let client = HTTPClient()

    @Test func okResponseCarriesStatusLowercasedHeadersAndBody() throws {
        let server = try MockOpenAIServer(
            script: """
                [{"match": null, "responses": [
                  {"status": 200, "body": {"hello": "world"}, "headers": {"X-Request-Id": "req_1"}}]}]
                """)
        let response = try client.send(server.request(body: #"{"model":"m"}"#))
        #expect(response.status == 200)
        #expect(response.headers["x-request-id"] == "req_1")
        #expect(response.headers["content-type"] == "application/json")
        #expect(String(decoding: response.body, as: UTF8.self) == #"{"hello": "world"}"#)
    }

    @Test func aServerThatKeepsTheConnectionOpenIsNotConnectedToAgain() throws {
        let server = try MockOpenAIServer(
            script: """
                [{"match": null, "repeat": true, "responses": [{"status": 200, "body": {"ok": true}, "keepAlive": true}]}]
                """)
        let client = HTTPClient()
        let first = try client.send(server.request())
        let second = try client.send(server.request())
        let third = try client.send(server.request())
        #expect(first.status == 200 && second.status == 200 && third.status == 200)
        #expect(!first.reusedConnection)
        #expect(second.reusedConnection && third.reusedConnection)
        #expect(client.handlesCreated == 1)
    }

    @Test func aServerThatClosesGetsANewConnectionOnAReusedHandle() throws {
        let server = try MockOpenAIServer(
            script: #"[{"match": null, "repeat": true, "responses": [{"status": 200, "body": {}}]}]"#)
        let client = HTTPClient()
        for _ in 0..<3 { #expect(try client.send(server.request()).reusedConnection == false) }
        #expect(client.handlesCreated == 1)
    }

    @Test func requestIsSentAsGivenWithoutExpectContinue() throws {
        let server = try MockOpenAIServer(script: #"[{"match": null, "responses": [{"status": 200, "body": {}}]}]"#)
        // Larger than 1 KiB: the size above which curl would otherwise add Expect: 100-continue.
        let body = #"{"model":"m","padding":""# + String(repeating: "p", count: 4096) + #""}"#
        let headers = [
            HTTPHeader(name: "Content-Type", value: "application/json"),
            HTTPHeader(name: "Authorization", value: "Bearer sk-test"),
        ]
        _ = try client.send(server.request(body: body, headers: headers))

        let recorded = try #require(try server.requests().first)
        #expect(recorded.method == "POST")
        #expect(recorded.path == "/v1/chat/completions")
        #expect(recorded.raw == body)
        #expect(recorded.headers["authorization"] == "Bearer sk-test")
        #expect(recorded.headers["content-type"] == "application/json")
        #expect(recorded.headers["expect"] == nil)
    }

    @Test func interimResponseHeadersAreNotReported() throws {
        let server = try MockOpenAIServer(
            script: """
                [{"match": null, "responses": [{"status": 200, "body": {"ok": true}, "headers": {"x-final": "yes"},
                  "interim": {"status": 103, "headers": {"Link": "</style.css>; rel=preload"}}}]}]
                """)
        let response = try client.send(server.request())
        #expect(response.status == 200)
        #expect(response.headers["x-final"] == "yes")
        #expect(response.headers["link"] == nil)
    }

    @Test func errorStatusIsAResponseNotAnError() throws {
        let server = try MockOpenAIServer(
            script: """
                [{"match": null, "responses": [{"status": 503, "body": {"error": {"message": "overloaded"}}}]}]
                """)
        let response = try client.send(server.request())
        #expect(response.status == 503)
        #expect(String(decoding: response.body, as: UTF8.self).contains("overloaded"))
    }

    @Test func redirectsAreNotFollowed() throws {
        let server = try MockOpenAIServer(
            script: """
                [{"match": null, "repeat": true, "responses": [
                  {"status": 307, "body": {}, "headers": {"Location": "/elsewhere/chat/completions"}}]}]
                """)
        let response = try client.send(server.request())
        #expect(response.status == 307)
        #expect(response.headers["location"] == "/elsewhere/chat/completions")
        #expect(try server.requests().count == 1)
    }

    @Test func hangingServerTimesOut() throws {
        let server = try MockOpenAIServer(script: #"[{"match": null, "responses": [{"fault": "hang"}]}]"#)
        let result = outcome { () throws(HTTPError) in try client.send(server.request(totalTimeout: 1)) }
        #expect(result.error == .timedOut)
        // The 1 s timeout ended it, not the server's 300 s hang (the margin is for a loaded machine).
        #expect(result.seconds < 60)
    }

    @Test func droppedConnectionIsAConnectionFailure() throws {
        let server = try MockOpenAIServer(script: #"[{"match": null, "responses": [{"fault": "drop"}]}]"#)
        let result = outcome { () throws(HTTPError) in try client.send(server.request()) }
        guard case .connectionFailed = result.error else {
            Issue.record("expected connectionFailed, got \(String(describing: result.error))")
            return
        }
    }

    @Test func truncatedBodyIsAConnectionFailure() throws {
        let server = try MockOpenAIServer(
            script: """
                [{"match": null, "responses": [{"fault": "truncate", "body": {"choices": ["cut short"]}}]}]
                """)
        let result = outcome { () throws(HTTPError) in try client.send(server.request()) }
        guard case .connectionFailed = result.error else {
            Issue.record("expected connectionFailed, got \(String(describing: result.error))")
            return
        }
    }

    @Test(arguments: [true, false])
    func bodyOverTheCapIsRefused(announcingLength: Bool) throws {
        let server = try MockOpenAIServer(
            script: """
                [{"match": null, "responses": [{"fault": "huge", "bytes": 10485760, "length": \(announcingLength)}]}]
                """)
        let result = outcome { () throws(HTTPError) in try client.send(server.request()) }
        #expect(result.error == .responseTooLarge(limit: 8 * 1024 * 1024))
    }

    @Test func bodyExactlyAtTheCapIsAccepted() throws {
        let server = try MockOpenAIServer(
            script: """
                [{"match": null, "responses": [
                  {"fault": "huge", "bytes": 1000, "length": false},
                  {"fault": "huge", "bytes": 1001, "length": false}]}]
                """)
        let atCap = try client.send(server.request(maxResponseBytes: 1000))
        #expect(atCap.body.count == 1000)
        let overCap = outcome { () throws(HTTPError) in try client.send(server.request(maxResponseBytes: 1000)) }
        #expect(overCap.error == .responseTooLarge(limit: 1000))
    }

    @Test func cancellationFromAnotherThreadStopsTheTransfer() throws {
        let server = try MockOpenAIServer(script: #"[{"match": null, "responses": [{"fault": "hang"}]}]"#)
        let token = CancellationToken()
        DispatchQueue.global().asyncAfter(deadline: .now() + 0.3) { token.cancel() }
        let result = outcome { () throws(HTTPError) in
            try client.send(server.request(totalTimeout: 30), cancellation: token)
        }
        #expect(result.error == .cancelled)
        // Well before the 30 s timeout (the margin is for a loaded machine).
        #expect(result.seconds < 20)
    }

    @Test func alreadyCancelledTokenSendsNothing() throws {
        let server = try MockOpenAIServer(script: #"[{"match": null, "responses": [{"status": 200, "body": {}}]}]"#)
        let token = CancellationToken()
        token.cancel()
        let result = outcome { () throws(HTTPError) in try client.send(server.request(), cancellation: token) }
        #expect(result.error == .cancelled)
        #expect(try server.requests().isEmpty)
    }

    @Test func refusedConnectionIsAConnectionFailure() throws {
        let server = try MockOpenAIServer(script: "[]")
        let request = server.request()
        server.stop() // nothing listens on the port any more
        let result = outcome { () throws(HTTPError) in try client.send(request) }
        guard case .connectionFailed(let detail) = result.error else {
            Issue.record("expected connectionFailed, got \(String(describing: result.error))")
            return
        }
        #expect(detail.contains("\(server.port)"))
    }

    @Test(arguments: ["not a url", "ftp://127.0.0.1/file", "file:///etc/passwd"])
    func unsupportedURLIsInvalid(url: String) {
        let request = HTTPRequest(url: url)
        let result = outcome { () throws(HTTPError) in try client.send(request) }
        #expect(result.error == .invalidURL(url))
    }

    @Test func aReplyWithoutAStatusLineIsNotHTTPRatherThanAnInvalidURL() throws {
        let server = try MockOpenAIServer(
            script: #"[{"match": null, "responses": [{"fault": "http09", "text": "SSH-2.0-OpenSSH_9.6\r\n"}]}]"#)
        let result = outcome { () throws(HTTPError) in try client.send(server.request()) }
        guard case .notHTTP = result.error else {
            Issue.record("expected notHTTP, got \(String(describing: result.error))")
            return
        }
        #expect(result.error?.description.contains("not HTTP") == true)
        #expect(result.error?.description.contains("invalid URL") == false)
    }

    @Test func errorDescriptionsNeverContainRequestHeaders() throws {
        let server = try MockOpenAIServer(script: "[]")
        let secretHeaders = [HTTPHeader(name: "Authorization", value: "Bearer sk-very-secret")]
        let refusedRequest = server.request(headers: secretHeaders)
        server.stop()
        let refused = outcome { () throws(HTTPError) in try client.send(refusedRequest) }
        let invalid = outcome { () throws(HTTPError) in
            try client.send(HTTPRequest(url: "bad url", headers: secretHeaders))
        }
        for error in [refused.error, invalid.error] {
            let description = try #require(error).description
            #expect(!description.contains("sk-very-secret"))
        }
    }

    @Test func concurrentRequestsFromSeveralThreadsEachGetTheirOwnAnswer() throws {
        let count = 6
        let rules = (0..<count).map { index in
            #"{"match": "\"n\":\#(index)}", "responses": [{"status": 200, "afterRequests": \#(count), "body": {"n": \#(index)}}]}"#
        }
        let server = try MockOpenAIServer(script: "[" + rules.joined(separator: ",") + "]")
        let answers = Mutex<[Int: String]>([:])
        let group = DispatchGroup()
        for index in 0..<count {
            let request = server.request(body: #"{"n":\#(index)}"#)
            let client = self.client
            group.enter()
            Thread.detachNewThread {
                defer { group.leave() }
                let text = (try? client.send(request)).map { String(decoding: $0.body, as: UTF8.self) } ?? "failed"
                answers.withLock { $0[index] = text }
            }
        }
        group.wait()
        // The server holds every answer until all requests have arrived (`afterRequests`), so
        // each right answer proves they were in flight together; serially the first would
        // get a `mock_not_concurrent` error instead.
        let collected = answers.withLock { $0 }
        for index in 0..<count {
            #expect(collected[index] == #"{"n": \#(index)}"#)
        }
    }
}
