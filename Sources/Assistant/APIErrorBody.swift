import Foundation
import JSON

/// The error object of a failed API call: `{"error": {"message", "type", "param", "code"}}`.
///
/// `code` arrives as a string (`"rate_limit_exceeded"`), a number (some proxies send the
/// HTTP status) or null; it is kept as text. Servers that send `{"error": "text"}` are
/// understood too.
package struct APIErrorBody: Sendable, Equatable {
    package var message: String
    package var type: String?
    package var param: String?
    package var code: String?

    package init(message: String, type: String? = nil, param: String? = nil, code: String? = nil) {
        self.message = message
        self.type = type
        self.param = param
        self.code = code
    }

    /// The error body in `data`, or nil when `data` is not such a body (an HTML proxy page).
    package static func decode(_ data: Data) -> APIErrorBody? {
        guard let document = try? JSONValue(parsing: data), let error = document["error"] else { return nil }
        switch error {
        case .string(let message):
            return APIErrorBody(message: message)
        case .object:
            return APIErrorBody(
                message: error["message"].flatMap(Self.text) ?? "",
                type: error["type"].flatMap(Self.text),
                param: error["param"].flatMap(Self.text),
                code: error["code"].flatMap(Self.text)
            )
        default:
            return nil
        }
    }

    /// The account is out of credit: retrying cannot help and no other user's run will fare
    /// better. OpenAI says so in `code`, and in `type` for older bodies.
    package var isInsufficientQuota: Bool {
        code == "insufficient_quota" || type == "insufficient_quota"
    }

    private static func text(_ value: JSONValue) -> String? {
        switch value {
        case .string(let text): return text
        // A whole number reads as one (`429`, not `429.0`).
        case .number(let number):
            return number.rounded() == number && abs(number) < 9.007e15 ? String(Int(number)) : String(number)
        case .bool(let flag): return String(flag)
        default: return nil
        }
    }
}
