import Foundation

/// The final response of an exchange (interim `1xx` responses are not reported).
package struct HTTPResponse: Sendable, Equatable {
    package var status: Int
    /// Header fields with lowercased names; a repeated field is joined with ", ".
    package var headers: [String: String]
    package var body: Data
    /// Whether the exchange went over a connection an earlier request had opened.
    package var reusedConnection = false

    package init(status: Int, headers: [String: String], body: Data) {
        self.status = status
        self.headers = headers
        self.body = body
    }
}
