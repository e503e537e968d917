import Foundation

/// The final response of an exchange (interim `1xx` responses are not reported).
public struct HTTPResponse: Sendable, Equatable {
    public var status: Int
    /// Header fields with lowercased names; a repeated field is joined with ", ".
    public var headers: [String: String]
    public var body: Data
    /// Whether the exchange went over a connection an earlier request had opened.
    package var reusedConnection = false

    public init(status: Int, headers: [String: String], body: Data) {
        self.status = status
        self.headers = headers
        self.body = body
    }
}
