import Foundation

/// The final response of an exchange (interim `1xx` responses are not reported).
public struct HTTPResponse: Sendable, Equatable {
    public var status: Int
    /// Header fields with lowercased names; a repeated field is joined with ", ".
    public var headers: [String: String]
    public var body: Data

    public init(status: Int, headers: [String: String], body: Data) {
        self.status = status
        self.headers = headers
        self.body = body
    }
}
