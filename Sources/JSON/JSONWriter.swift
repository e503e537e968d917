import Foundation

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
    /// Lets `write` append bytes it knows to be valid JSON text (a quoted string it wrote
    /// without escapes, say) straight to the buffer; it returns false when it appended nothing,
    /// so the caller can write the value the general way instead.
    package mutating func rawBytes(_ write: (inout [UInt8]) -> Bool) -> Bool { buffer.appendRaw(write) }
    package mutating func value(_ v: JSONValue) { buffer.write(v, level: 0) }
    package var text: String { buffer.string }
}

/// Writes JSON text as UTF-8 bytes. Row images, reports and transcripts are written for every
/// changed row of every student, so this is on the nightly hot path: bytes appended to one
/// buffer cost a fraction of growing a `String` piece by piece.
struct JSONTextBuffer {
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

    mutating func appendRaw(_ write: (inout [UInt8]) -> Bool) -> Bool { write(&bytes) }

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
