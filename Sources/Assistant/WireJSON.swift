import Foundation

/// A JSON value exactly as it travels to or from the model server: tool parameter schemas,
/// tool arguments sent as objects, and any part of a payload we pass through untouched.
///
/// Integers and fractional numbers are kept apart so that a schema's `"maxItems": 10`
/// is sent back as `10`, not `10.0`.
package enum WireJSON: Sendable, Hashable {
    case null
    case bool(Bool)
    case integer(Int)
    case number(Double)
    case string(String)
    case array([WireJSON])
    case object([String: WireJSON])

    /// Parses a complete JSON document (any value, not only objects).
    package static func parse(_ data: Data) throws -> WireJSON {
        try JSONDecoder().decode(WireJSON.self, from: data)
    }

    /// Compact JSON with keys sorted, so equal values always give equal bytes.
    package func serialized() throws -> Data {
        try WireJSON.makeEncoder().encode(self)
    }

    /// The member `key` of an object; nil for other values or a missing key.
    package subscript(key: String) -> WireJSON? {
        if case .object(let members) = self { return members[key] }
        return nil
    }

    package var stringValue: String? {
        if case .string(let text) = self { return text }
        return nil
    }

    /// The encoder every wire payload goes through: sorted keys make stored request bodies
    /// comparable byte for byte, and unescaped slashes keep URLs in prompts readable.
    static func makeEncoder() -> JSONEncoder {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return encoder
    }
}

extension WireJSON: Codable {
    package init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        if container.decodeNil() {
            self = .null
        } else if let value = try? container.decode(Bool.self) {
            self = .bool(value)
        } else if let value = try? container.decode(Int.self) {
            self = .integer(value)
        } else if let value = try? container.decode(Double.self) {
            self = .number(value)
        } else if let value = try? container.decode(String.self) {
            self = .string(value)
        } else if let value = try? container.decode([WireJSON].self) {
            self = .array(value)
        } else {
            self = .object(try container.decode([String: WireJSON].self))
        }
    }

    package func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        switch self {
        case .null: try container.encodeNil()
        case .bool(let value): try container.encode(value)
        case .integer(let value): try container.encode(value)
        case .number(let value): try container.encode(value)
        case .string(let value): try container.encode(value)
        case .array(let value): try container.encode(value)
        case .object(let value): try container.encode(value)
        }
    }
}

extension WireJSON: ExpressibleByNilLiteral, ExpressibleByBooleanLiteral, ExpressibleByIntegerLiteral,
    ExpressibleByFloatLiteral, ExpressibleByStringLiteral, ExpressibleByArrayLiteral,
    ExpressibleByDictionaryLiteral
{
    package init(nilLiteral: ()) { self = .null }
    package init(booleanLiteral value: Bool) { self = .bool(value) }
    package init(integerLiteral value: Int) { self = .integer(value) }
    package init(floatLiteral value: Double) { self = .number(value) }
    package init(stringLiteral value: String) { self = .string(value) }
    package init(arrayLiteral elements: WireJSON...) { self = .array(elements) }
    package init(dictionaryLiteral elements: (String, WireJSON)...) {
        self = .object(Dictionary(elements, uniquingKeysWith: { _, last in last }))
    }
}

extension WireJSON {
    /// The text of a message `content`: a plain string, or the `text` parts of a content-part
    /// array (some servers answer that way) joined together; nil for null or anything else.
    var messageText: String? {
        switch self {
        case .string(let text):
            return text
        case .array(let parts):
            let texts = parts.compactMap { $0["text"]?.stringValue }
            return texts.isEmpty ? nil : texts.joined()
        default:
            return nil
        }
    }
}
