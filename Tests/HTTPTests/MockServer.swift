import Foundation
import ReplanTestSupport

@testable import HTTP

/// What the HTTP tests need on top of the shared launcher: the API endpoint and requests
/// aimed at it.
extension MockOpenAIServer {
    var completionsURL: String { baseURL + "/chat/completions" }

    func request(
        body: String = #"{"model":"test"}"#,
        headers: [HTTPHeader] = [HTTPHeader(name: "Content-Type", value: "application/json")],
        totalTimeout: Double = 10,
        maxResponseBytes: Int = HTTPRequest.defaultMaxResponseBytes
    ) -> HTTPRequest {
        HTTPRequest(
            url: completionsURL,
            headers: headers,
            body: Data(body.utf8),
            connectTimeout: 5,
            totalTimeout: totalTimeout,
            maxResponseBytes: maxResponseBytes
        )
    }
}

/// Runs `body` and returns the error it threw (nil when it succeeded) and how long it took.
func outcome(of body: () throws(HTTPError) -> HTTPResponse) -> (
    response: HTTPResponse?, error: HTTPError?, seconds: Double
) {
    let start = Date()
    do {
        let response = try body()
        return (response, nil, Date().timeIntervalSince(start))
    } catch {
        return (nil, error, Date().timeIntervalSince(start))
    }
}
