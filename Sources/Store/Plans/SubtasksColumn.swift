import Planning

/// Reads the `subtasks` column in the one shape replan writes it (`TaskTable.values`: the
/// list's JSON with sorted keys and no spaces, `[{"done":false,"title":"outline"}]`) straight
/// from its bytes. A fifth of the tasks have subtasks and every night loads them; building
/// a JSON value tree for them cost more than the rest of the row.
///
/// Any other text (escapes, spaces, other or repeated keys, something that is not JSON)
/// gives nil and the caller parses it with the general JSON parser, so a column reads the
/// same either way and a malformed one is still reported by that parser.
enum SubtasksColumn {
    static func canonical(_ text: String) -> [Subtask]? {
        var text = text
        return text.withUTF8 { (b) -> [Subtask]? in
            var reader = Reader(bytes: b)
            guard reader.skip("[") else { return nil }
            var subtasks: [Subtask] = []
            repeat {
                guard reader.skip(#"{"done":"#) else { return nil }
                let done: Bool
                if reader.skip("true") { done = true } else if reader.skip("false") { done = false } else { return nil }
                guard reader.skip(#","title":""#), let title = reader.plainString(), reader.skip("}") else {
                    return nil
                }
                subtasks.append(Subtask(title: title, done: done))
            } while reader.skip(",")
            guard reader.skip("]"), reader.atEnd else { return nil }
            return subtasks
        }
    }

    private struct Reader {
        let bytes: UnsafeBufferPointer<UInt8>
        var index = 0

        var atEnd: Bool { index == bytes.count }

        /// Consumes `literal` if the bytes continue with it.
        mutating func skip(_ literal: StaticString) -> Bool {
            let count = literal.utf8CodeUnitCount
            guard bytes.count - index >= count else { return false }
            let start = literal.utf8Start
            for i in 0..<count where bytes[index + i] != start[i] { return false }
            index += count
            return true
        }

        /// The rest of a string whose opening quote is consumed, through its closing quote;
        /// nil when it has an escape or a control character (the general parser's business).
        mutating func plainString() -> String? {
            var end = index
            while end < bytes.count {
                let byte = bytes[end]
                if byte == UInt8(ascii: "\"") {
                    let text = String(decoding: UnsafeBufferPointer(rebasing: bytes[index..<end]), as: UTF8.self)
                    index = end + 1
                    return text
                }
                if byte == UInt8(ascii: "\\") || byte < 0x20 { return nil }
                end += 1
            }
            return nil
        }
    }
}
