/// Store SQL is written once with SQLite's `?` placeholders; PostgreSQL numbers them (`$1`,
/// `$2`, …). This rewrites the placeholders outside quoted text, identifiers and comments, so a
/// `?` inside a string literal stays a question mark.
enum PostgresPlaceholders {
    static func numbered(_ sql: String) -> String {
        guard sql.utf8.contains(UInt8(ascii: "?")) else { return sql }
        var out = ""
        out.reserveCapacity(sql.utf8.count + 8)
        var number = 0
        var quote: Character?
        var lineComment = false
        var previous: Character?
        for character in sql {
            defer { previous = character }
            if lineComment {
                if character == "\n" { lineComment = false }
                out.append(character)
                continue
            }
            if let open = quote {
                if character == open { quote = nil }
                out.append(character)
                continue
            }
            switch character {
            case "'", "\"":
                quote = character
                out.append(character)
            case "-" where previous == "-":
                lineComment = true
                out.append(character)
            case "?":
                number += 1
                out.append("$\(number)")
            default:
                out.append(character)
            }
        }
        return out
    }
}
