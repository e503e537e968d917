import Foundation

/// The bridge between `Codable` types and JSON text, for payloads described by a type (the
/// model server's requests and responses). Every such payload goes through this one encoder:
/// sorted keys make stored request bodies comparable byte for byte, and unescaped slashes keep
/// URLs in prompts readable.
///
/// Data the planner reads and writes itself (row images, reports, imports) goes through
/// `JSONValue` and its own reader and writer instead, which are strict and fast.
package enum JSONCoding {
    package static func encode(_ value: some Encodable) throws -> Data {
        try makeEncoder().encode(value)
    }

    package static func decode<T: Decodable>(_ type: T.Type, from data: Data) throws -> T {
        try JSONDecoder().decode(type, from: data)
    }

    private static func makeEncoder() -> JSONEncoder {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return encoder
    }
}

/// A `JSONValue` inside a `Codable` payload (a tool's parameter schema, a model's tool
/// arguments, a message content of any shape) is passed through as it is.
extension JSONValue: Codable {
    package init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        if container.decodeNil() {
            self = .null
        } else if let value = try? container.decode(Bool.self) {
            self = .bool(value)
        } else if let value = try? container.decode(Double.self) {
            self = .number(value)
        } else if let value = try? container.decode(String.self) {
            self = .string(value)
        } else if let value = try? container.decode([JSONValue].self) {
            self = .array(value)
        } else {
            self = .object(try container.decode([String: JSONValue].self))
        }
    }

    package func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        switch self {
        case .null: try container.encodeNil()
        case .bool(let value): try container.encode(value)
        case .number(let value):
            // A whole number goes out as an integer, so a schema's `"maxItems": 10` is sent
            // back as `10`, never `10.0`.
            if value.rounded() == value, abs(value) < 9.007e15 {
                try container.encode(Int(value))
            } else {
                try container.encode(value)
            }
        case .string(let value): try container.encode(value)
        case .array(let value): try container.encode(value)
        case .object(let value): try container.encode(value)
        }
    }
}
