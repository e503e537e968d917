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
    package init(parsing data: Data) throws(DataError) {
        var parser = JSONParser(bytes: [UInt8](data))
        self = try parser.parseDocument()
    }

    package init(parsing text: String) throws(DataError) { try self.init(parsing: Data(text.utf8)) }

    /// Parses bytes the caller already holds as an array, without the copy `Data` needs: an
    /// import of a large export keeps one buffer of it in memory, not two.
    package init(parsing bytes: [UInt8]) throws(DataError) {
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

extension JSONValue {
    /// The compact text of an object with `members` and one more member, `key`, whose value is
    /// already JSON text (`rawValue`, written by `JSONTextWriter`), at its sorted place: the same
    /// bytes as `.object(members + [key: value]).text` when `rawValue` is that value's text.
    package static func text(ofObject members: [String: JSONValue], adding key: String, rawValue: String) -> String {
        var out = JSONTextBuffer(indent: nil)
        out.writeObject(members, adding: key, rawValue: rawValue)
        return out.string
    }
}

/// Writes compact JSON text piece by piece, with the bytes `JSONValue.text` writes, for text
/// written so often that building a `JSONValue` first (a dictionary per object, its keys
/// sorted, every node freed again) costs more than the text itself. The caller writes object
/// keys in sorted order.
package struct JSONTextWriter {
    private var buffer = JSONTextBuffer(indent: nil)

    package init() {}

    /// Punctuation and keys known to need no escaping: `{"id":`, `,`, `]`.
    package mutating func raw(_ text: StaticString) { buffer.appendRaw(text) }
    package mutating func string(_ s: String) { buffer.writeString(s) }
    /// The date-time as the string its `description` is, without making that string first.
    package mutating func string(_ t: CivilDateTime) { buffer.writeDateTime(t) }
    package mutating func value(_ v: JSONValue) { buffer.write(v, level: 0) }
    package var text: String { buffer.string }
}

/// Writes JSON text as UTF-8 bytes. Row images, reports and transcripts are written for every
/// changed row of every student, so this is on the nightly hot path: bytes appended to one
/// buffer cost a fraction of growing a `String` piece by piece.
private struct JSONTextBuffer {
    let indent: [UInt8]?
    private var bytes: [UInt8] = []

    init(indent: [UInt8]?) {
        self.indent = indent
        bytes.reserveCapacity(256)
    }

    var string: String { String(decoding: bytes, as: UTF8.self) }

    mutating func write(_ value: JSONValue, level: Int) {
        switch value {
        case .null: append("null")
        case .bool(let b): append(b ? "true" : "false")
        case .number(let n):
            if n.rounded() == n && abs(n) < 1e15 { writeInteger(Int(n)) } else { append("\(n)") }
        case .string(let s): writeString(s)
        case .array(let items):
            if items.isEmpty {
                append("[]")
                return
            }
            bytes.append(UInt8(ascii: "["))
            for (i, item) in items.enumerated() {
                if i > 0 { bytes.append(UInt8(ascii: ",")) }
                newline(level + 1)
                write(item, level: level + 1)
            }
            newline(level)
            bytes.append(UInt8(ascii: "]"))
        case .object(let members):
            if members.isEmpty {
                append("{}")
                return
            }
            bytes.append(UInt8(ascii: "{"))
            // Sorting the pairs, not the keys, spares a hash lookup per member.
            for (i, member) in members.sorted(by: { $0.key < $1.key }).enumerated() {
                if i > 0 { bytes.append(UInt8(ascii: ",")) }
                newline(level + 1)
                writeString(member.key)
                append(indent == nil ? ":" : ": ")
                write(member.value, level: level + 1)
            }
            newline(level)
            bytes.append(UInt8(ascii: "}"))
        }
    }

    private mutating func append(_ s: String) { bytes.append(contentsOf: s.utf8) }

    mutating func writeDateTime(_ t: CivilDateTime) {
        if !CanonicalText.appendQuotedDateTime(t, to: &bytes) { writeString(t.description) }
    }

    mutating func appendRaw(_ s: StaticString) {
        s.withUTF8Buffer { bytes.append(contentsOf: $0) }
    }

    /// An object whose member `key` is given as JSON text.
    mutating func writeObject(_ members: [String: JSONValue], adding key: String, rawValue: String) {
        bytes.append(UInt8(ascii: "{"))
        var rawWritten = false
        func writeRaw(first: Bool) {
            if !first { bytes.append(UInt8(ascii: ",")) }
            writeString(key)
            bytes.append(UInt8(ascii: ":"))
            bytes.append(contentsOf: rawValue.utf8)
            rawWritten = true
        }
        var first = true
        for member in members.sorted(by: { $0.key < $1.key }) where member.key != key {
            if !rawWritten && key < member.key {
                writeRaw(first: first)
                first = false
            }
            if !first { bytes.append(UInt8(ascii: ",")) }
            first = false
            writeString(member.key)
            bytes.append(UInt8(ascii: ":"))
            write(member.value, level: 0)
        }
        if !rawWritten { writeRaw(first: first) }
        bytes.append(UInt8(ascii: "}"))
    }

    private mutating func newline(_ level: Int) {
        guard let indent else { return }
        bytes.append(UInt8(ascii: "\n"))
        for _ in 0..<level { bytes.append(contentsOf: indent) }
    }

    private mutating func writeInteger(_ value: Int) {
        if value < 0 { bytes.append(UInt8(ascii: "-")) }
        // Digits come out last first: append them, then reverse them in place.
        let first = bytes.count
        var magnitude = value.magnitude
        repeat {
            bytes.append(UInt8(ascii: "0") + UInt8(magnitude % 10))
            magnitude /= 10
        } while magnitude > 0
        bytes[first...].reverse()
    }

    private static let hexDigits = Array("0123456789abcdef".utf8)

    /// A JSON string: `"` and `\` escaped, control characters as `\n`, `\r`, `\t` or `\u00XX`,
    /// everything else (UTF-8 included) copied as it is.
    mutating func writeString(_ s: String) {
        bytes.append(UInt8(ascii: "\""))
        var s = s
        s.withUTF8 { u in
            // Runs that need no escaping (nearly all of a string) are copied whole.
            var runStart = 0
            for i in 0..<u.count {
                let b = u[i]
                guard b < 0x20 || b == UInt8(ascii: "\"") || b == UInt8(ascii: "\\") else { continue }
                bytes.append(contentsOf: UnsafeBufferPointer(rebasing: u[runStart..<i]))
                runStart = i + 1
                switch b {
                case UInt8(ascii: "\""), UInt8(ascii: "\\"):
                    bytes.append(UInt8(ascii: "\\"))
                    bytes.append(b)
                case UInt8(ascii: "\n"):
                    bytes.append(UInt8(ascii: "\\"))
                    bytes.append(UInt8(ascii: "n"))
                case UInt8(ascii: "\r"):
                    bytes.append(UInt8(ascii: "\\"))
                    bytes.append(UInt8(ascii: "r"))
                case UInt8(ascii: "\t"):
                    bytes.append(UInt8(ascii: "\\"))
                    bytes.append(UInt8(ascii: "t"))
                default:
                    bytes.append(contentsOf: [
                        UInt8(ascii: "\\"), UInt8(ascii: "u"), UInt8(ascii: "0"), UInt8(ascii: "0"),
                    ])
                    bytes.append(JSONTextBuffer.hexDigits[Int(b >> 4)])
                    bytes.append(JSONTextBuffer.hexDigits[Int(b & 0xF)])
                }
            }
            bytes.append(contentsOf: UnsafeBufferPointer(rebasing: u[runStart..<u.count]))
        }
        bytes.append(UInt8(ascii: "\""))
    }
}

extension JSONValue: ExpressibleByStringLiteral, ExpressibleByBooleanLiteral, ExpressibleByIntegerLiteral,
    ExpressibleByArrayLiteral, ExpressibleByDictionaryLiteral, ExpressibleByNilLiteral
{
    package init(stringLiteral value: String) { self = .string(value) }
    package init(booleanLiteral value: Bool) { self = .bool(value) }
    package init(integerLiteral value: Int) { self = .number(Double(value)) }
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
