import Foundation

/// A JSON document as a value, printed deterministically (keys sorted, no spaces) so that row
/// images, plan snapshots and prompts are byte-stable across runs.
package enum JSONValue: Hashable, Sendable {
    case null
    case bool(Bool)
    case number(Double)
    case string(String)
    case array([JSONValue])
    case object([String: JSONValue])

    package static func int(_ i: Int) -> JSONValue { .number(Double(i)) }

    /// Parses JSON text strictly (RFC 8259): duplicate keys are an error rather than a silent
    /// overwrite, so an imported document never loses data without saying so.
    package init(parsing data: Data) throws(JSONError) {
        var parser = JSONParser(bytes: [UInt8](data))
        self = try parser.parseDocument()
    }

    package init(parsing text: String) throws(JSONError) { try self.init(parsing: Data(text.utf8)) }

    /// Parses bytes the caller already holds as an array, without the copy `Data` needs: an
    /// import of a large export keeps one buffer of it in memory, not two.
    package init(parsing bytes: [UInt8]) throws(JSONError) {
        var parser = JSONParser(bytes: bytes)
        self = try parser.parseDocument()
    }

    package subscript(key: String) -> JSONValue? {
        if case .object(let o) = self { return o[key] }
        return nil
    }

    package var stringValue: String? {
        if case .string(let s) = self { return s }
        return nil
    }
    package var boolValue: Bool? {
        if case .bool(let b) = self { return b }
        return nil
    }
    package var doubleValue: Double? {
        if case .number(let n) = self { return n }
        return nil
    }
    package var intValue: Int? {
        if case .number(let n) = self, n.rounded() == n, abs(n) < 9.007e15 { return Int(n) }
        return nil
    }
    package var arrayValue: [JSONValue]? {
        if case .array(let a) = self { return a }
        return nil
    }
    package var objectValue: [String: JSONValue]? {
        if case .object(let o) = self { return o }
        return nil
    }

    /// The JSON type name, for error messages ("expected a string, got a number").
    package var typeName: String {
        switch self {
        case .null: return "null"
        case .bool: return "a boolean"
        case .number: return "a number"
        case .string: return "a string"
        case .array: return "an array"
        case .object: return "an object"
        }
    }

    /// Compact text with sorted keys.
    package var text: String {
        var out = JSONTextBuffer(indent: nil)
        out.write(self, level: 0)
        return out.string
    }

    /// Indented text with sorted keys (two spaces), for files people read.
    package var prettyText: String {
        var out = JSONTextBuffer(indent: Array("  ".utf8))
        out.write(self, level: 0)
        return out.string
    }
}

extension JSONValue: ExpressibleByStringLiteral, ExpressibleByBooleanLiteral, ExpressibleByIntegerLiteral,
    ExpressibleByFloatLiteral, ExpressibleByArrayLiteral, ExpressibleByDictionaryLiteral, ExpressibleByNilLiteral
{
    package init(stringLiteral value: String) { self = .string(value) }
    package init(booleanLiteral value: Bool) { self = .bool(value) }
    package init(integerLiteral value: Int) { self = .number(Double(value)) }
    package init(floatLiteral value: Double) { self = .number(value) }
    package init(arrayLiteral elements: JSONValue...) { self = .array(elements) }
    package init(dictionaryLiteral elements: (String, JSONValue)...) {
        // Sized up front (every row image is built this way: a task's has 16 members), so the
        // table is not grown and rehashed member by member; a repeated key keeps the last value.
        var members = [String: JSONValue](minimumCapacity: elements.count)
        for (key, value) in elements { members[key] = value }
        self = .object(members)
    }
    package init(nilLiteral: ()) { self = .null }
}
