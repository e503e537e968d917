import Foundation
import JSON
import Planning

/// Instants as the original app's Firestore export holds them.
///
/// The app converted dates to ISO-8601 strings in UTC with milliseconds before writing
/// (`2025-01-06T02:00:00.000Z`), but older documents hold Firestore timestamps, which export
/// tools write as `{"_seconds": …, "_nanoseconds": …}` (firebase-admin's JSON), `{"seconds": …,
/// "nanoseconds": …}` (newer SDKs), `{"__time__": "…"}` or `{"__datatype__": "timestamp",
/// "value": {…}}`. All of them are read; anything else is a problem the report names.
package enum FirestoreInstant {
    /// Instants from 1970 up to 2200: anything outside is a corrupt value, not a study plan,
    /// and keeping the range small keeps every later civil-time computation far from overflow.
    static let secondsRange: ClosedRange<Double> = 0...7_258_118_400

    /// The instant `value` holds, or why it holds none.
    package static func parse(_ value: JSONValue) -> Result<Date, FieldProblem> {
        switch value {
        case .string(let text):
            guard let date = parse(text: text) else {
                return .failure(
                    FieldProblem("'\(text.prefix(40))' is not an ISO-8601 instant such as 2025-01-06T02:00:00.000Z"))
            }
            return checked(date.timeIntervalSince1970)
        case .object(let members):
            if let inner = members["__time__"] {
                guard let text = inner.stringValue, let date = parse(text: text) else {
                    return .failure(FieldProblem("__time__ is not an ISO-8601 instant"))
                }
                return checked(date.timeIntervalSince1970)
            }
            if members["__datatype__"]?.stringValue == "timestamp", let inner = members["value"] {
                return parse(inner)
            }
            let seconds = members["_seconds"] ?? members["seconds"]
            let nanos = members["_nanoseconds"] ?? members["nanoseconds"] ?? .int(0)
            guard let s = seconds?.doubleValue, s.rounded() == s, let n = nanos.doubleValue, n.rounded() == n,
                (0..<1_000_000_000).contains(n)
            else {
                return .failure(FieldProblem("is an object but not a Firestore timestamp {_seconds, _nanoseconds}"))
            }
            return checked(s + n / 1_000_000_000)
        default:
            return .failure(FieldProblem("expected an ISO-8601 string or a Firestore timestamp, got \(value.typeName)"))
        }
    }

    private static func checked(_ seconds: Double) -> Result<Date, FieldProblem> {
        guard seconds.isFinite, secondsRange.contains(seconds) else {
            return .failure(FieldProblem("lies outside 1970–2200"))
        }
        return .success(Date(timeIntervalSince1970: seconds))
    }

    /// `YYYY-MM-DDTHH:MM:SS[.fff…](Z|±HH:MM)`: the fraction is read here, the rest by the
    /// same parser as every other instant replan reads.
    static func parse(text: String) -> Date? {
        let bytes = Array(text.utf8)
        guard bytes.count <= 40 else { return nil }
        var fraction = 0.0
        var plain = bytes
        if bytes.count > 20, bytes[19] == UInt8(ascii: ".") {
            var end = 20
            while end < bytes.count, (48...57).contains(bytes[end]) { end += 1 }
            guard end > 20, end - 20 <= 9 else { return nil }
            fraction = Double("0." + String(decoding: bytes[20..<end], as: UTF8.self)) ?? 0
            plain = Array(bytes[..<19]) + Array(bytes[end...])
        }
        guard let date = Timestamp.date(String(decoding: plain, as: UTF8.self)) else { return nil }
        return Date(timeIntervalSince1970: date.timeIntervalSince1970 + fraction)
    }
}

/// Why one field of an exported document could not be read.
package struct FieldProblem: Error, Hashable, Sendable {
    package var message: String
    package init(_ message: String) { self.message = message }
}
