/// A strict recursive-descent JSON parser over UTF-8 bytes (see `JSONValue.init(parsing:)`).
struct JSONParser {
    let bytes: [UInt8]
    var index = 0
    var depth = 0

    init(bytes: [UInt8]) { self.bytes = bytes }

    mutating func parseDocument() throws(JSONError) -> JSONValue {
        skipWhitespace()
        let value = try parseValue()
        skipWhitespace()
        guard index == bytes.count else { throw failure("unexpected text after the JSON value") }
        return value
    }

    private func failure(_ reason: String) -> JSONError {
        // Report a line number: people fix files in an editor.
        let end = min(index, bytes.count)
        let line = bytes[..<end].reduce(1) { $1 == 10 ? $0 + 1 : $0 }
        let lineStart = bytes[..<end].lastIndex(of: 10).map { $0 + 1 } ?? bytes.startIndex
        // Continuation bytes (10xxxxxx) do not start a character.
        let column = 1 + bytes[lineStart..<end].reduce(0) { $1 & 0xC0 == 0x80 ? $0 : $0 + 1 }
        return JSONError(line: line, column: column, reason: reason)
    }

    private mutating func skipWhitespace() {
        while index < bytes.count {
            switch bytes[index] {
            case 0x20, 0x0A, 0x0D, 0x09: index += 1
            default: return
            }
        }
    }

    private mutating func parseValue() throws(JSONError) -> JSONValue {
        guard index < bytes.count else { throw failure("unexpected end of input") }
        switch bytes[index] {
        case UInt8(ascii: "{"): return try parseObject()
        case UInt8(ascii: "["): return try parseArray()
        case UInt8(ascii: "\""): return .string(try parseString())
        case UInt8(ascii: "t"):
            try expectWord("true")
            return .bool(true)
        case UInt8(ascii: "f"):
            try expectWord("false")
            return .bool(false)
        case UInt8(ascii: "n"):
            try expectWord("null")
            return .null
        default: return try parseNumber()
        }
    }

    private mutating func expectWord(_ word: String) throws(JSONError) {
        let w = Array(word.utf8)
        guard index + w.count <= bytes.count, Array(bytes[index..<index + w.count]) == w else {
            throw failure("unexpected character")
        }
        index += w.count
    }

    private mutating func enter() throws(JSONError) {
        depth += 1
        guard depth <= 512 else { throw failure("nested too deeply") }
    }

    private mutating func parseObject() throws(JSONError) -> JSONValue {
        try enter()
        defer { depth -= 1 }
        index += 1
        var members: [String: JSONValue] = [:]
        skipWhitespace()
        if index < bytes.count, bytes[index] == UInt8(ascii: "}") {
            index += 1
            return .object(members)
        }
        while true {
            skipWhitespace()
            guard index < bytes.count, bytes[index] == UInt8(ascii: "\"") else {
                throw failure("expected a key in quotes")
            }
            let key = try parseString()
            skipWhitespace()
            guard index < bytes.count, bytes[index] == UInt8(ascii: ":") else {
                throw failure("expected ':' after key '\(key)'")
            }
            index += 1
            skipWhitespace()
            let value = try parseValue()
            guard members.updateValue(value, forKey: key) == nil else { throw failure("duplicate key '\(key)'") }
            skipWhitespace()
            guard index < bytes.count else { throw failure("unexpected end of input in an object") }
            if bytes[index] == UInt8(ascii: ",") {
                index += 1
                continue
            }
            if bytes[index] == UInt8(ascii: "}") {
                index += 1
                return .object(members)
            }
            throw failure("expected ',' or '}'")
        }
    }

    private mutating func parseArray() throws(JSONError) -> JSONValue {
        try enter()
        defer { depth -= 1 }
        index += 1
        var items: [JSONValue] = []
        skipWhitespace()
        if index < bytes.count, bytes[index] == UInt8(ascii: "]") {
            index += 1
            return .array(items)
        }
        while true {
            skipWhitespace()
            items.append(try parseValue())
            skipWhitespace()
            guard index < bytes.count else { throw failure("unexpected end of input in an array") }
            if bytes[index] == UInt8(ascii: ",") {
                index += 1
                continue
            }
            if bytes[index] == UInt8(ascii: "]") {
                index += 1
                return .array(items)
            }
            throw failure("expected ',' or ']'")
        }
    }

    private mutating func parseString() throws(JSONError) -> String {
        index += 1
        // One byte buffer for the whole string, validated as UTF-8 once at the end: linear in
        // the string's length however many escapes it has (a system prompt stored in a
        // transcript is one long string full of \" and \n). Raw bytes must be valid UTF-8:
        // decoding leniently would turn a broken file into U+FFFD in the student's titles.
        var out: [UInt8] = []
        func finish() throws(JSONError) -> String {
            guard let text = String(validating: out, as: UTF8.self) else { throw failure("invalid UTF-8 in a string") }
            return text
        }
        while index < bytes.count {
            // Copy the run up to the next quote, backslash or control byte in one go.
            var end = index
            while end < bytes.count, bytes[end] != UInt8(ascii: "\""), bytes[end] != UInt8(ascii: "\\"),
                bytes[end] >= 0x20
            { end += 1 }
            if end > index {
                out.append(contentsOf: bytes[index..<end])
                index = end
                continue
            }
            let b = bytes[index]
            if b == UInt8(ascii: "\"") {
                index += 1
                return try finish()
            }
            if b < 0x20 { throw failure("control character in a string") }
            if b == UInt8(ascii: "\\") {
                index += 1
                guard index < bytes.count else { break }
                let e = bytes[index]
                index += 1
                switch e {
                case UInt8(ascii: "\""): out.append(UInt8(ascii: "\""))
                case UInt8(ascii: "\\"): out.append(UInt8(ascii: "\\"))
                case UInt8(ascii: "/"): out.append(UInt8(ascii: "/"))
                case UInt8(ascii: "b"): out.append(0x08)
                case UInt8(ascii: "f"): out.append(0x0C)
                case UInt8(ascii: "n"): out.append(0x0A)
                case UInt8(ascii: "r"): out.append(0x0D)
                case UInt8(ascii: "t"): out.append(0x09)
                case UInt8(ascii: "u"):
                    var code = try hex4()
                    if (0xD800..<0xDC00).contains(code) {
                        guard index + 1 < bytes.count, bytes[index] == UInt8(ascii: "\\"),
                            bytes[index + 1] == UInt8(ascii: "u")
                        else {
                            throw failure("unpaired surrogate in a string")
                        }
                        index += 2
                        let low = try hex4()
                        guard (0xDC00..<0xE000).contains(low) else { throw failure("unpaired surrogate in a string") }
                        code = 0x10000 + ((code - 0xD800) << 10) + (low - 0xDC00)
                    }
                    guard let scalar = Unicode.Scalar(code) else { throw failure("invalid \\u escape") }
                    UTF8.encode(scalar) { out.append($0) }
                default: throw failure("invalid escape in a string")
                }
                continue
            }
            out.append(b)
            index += 1
        }
        throw failure("unterminated string")
    }

    private mutating func hex4() throws(JSONError) -> UInt32 {
        guard index + 4 <= bytes.count else { throw failure("short \\u escape") }
        var v: UInt32 = 0
        for b in bytes[index..<index + 4] {
            let d: UInt8
            switch b {
            case 48...57: d = b - 48
            case 65...70: d = b - 55
            case 97...102: d = b - 87
            default: throw failure("invalid \\u escape")
            }
            v = v * 16 + UInt32(d)
        }
        index += 4
        return v
    }

    /// `-? (0 | [1-9][0-9]*) (. [0-9]+)? ([eE] [+-]? [0-9]+)?` exactly (RFC 8259): `Double(_:)`
    /// alone would also take `01`, `.5` and `1.`, which no JSON writer produces.
    private mutating func parseNumber() throws(JSONError) -> JSONValue {
        let start = index
        if index < bytes.count, bytes[index] == UInt8(ascii: "-") { index += 1 }
        guard index < bytes.count, (48...57).contains(bytes[index]) else {
            index = start
            throw failure("unexpected character")
        }
        if bytes[index] == UInt8(ascii: "0") { index += 1 } else { skipDigits() }
        if index < bytes.count, bytes[index] == UInt8(ascii: ".") {
            index += 1
            guard skipDigits() > 0 else { throw failure("expected a digit after '.' in a number") }
        }
        if index < bytes.count, bytes[index] == UInt8(ascii: "e") || bytes[index] == UInt8(ascii: "E") {
            index += 1
            if index < bytes.count, bytes[index] == UInt8(ascii: "+") || bytes[index] == UInt8(ascii: "-") {
                index += 1
            }
            guard skipDigits() > 0 else { throw failure("expected a digit in a number's exponent") }
        }
        guard let value = Double(String(decoding: bytes[start..<index], as: UTF8.self)), value.isFinite else {
            index = start
            throw failure("number out of range")
        }
        return .number(value)
    }

    @discardableResult
    private mutating func skipDigits() -> Int {
        let start = index
        while index < bytes.count, (48...57).contains(bytes[index]) { index += 1 }
        return index - start
    }
}
