/// Store SQL is written once with SQLite's `?` placeholders; PostgreSQL numbers them (`$1`,
/// `$2`, …). This rewrites the placeholders outside quoted text, identifiers and comments, so a
/// `?` inside a string literal stays a question mark. A numbered `?N` (a value used twice)
/// becomes `$N`, and a plain `?` after it takes the next number, as SQLite counts.
enum PostgresPlaceholders {
    static func numbered(_ sql: String) -> String {
        guard sql.utf8.contains(UInt8(ascii: "?")) else { return sql }
        var out = ""
        out.reserveCapacity(sql.utf8.count + 8)
        var number = 0
        var quote: Character?
        var lineComment = false
        var previous: Character?
        var pendingNumber: String?
        /// Ends a placeholder just written: `?N` keeps N, a bare `?` takes the next number.
        func closePlaceholder() {
            guard let digits = pendingNumber else { return }
            pendingNumber = nil
            if let explicit = Int(digits) {
                number = max(number, explicit)
            } else {
                number += 1
                out.append(String(number))
            }
        }
        for character in sql {
            defer { previous = character }
            if pendingNumber != nil {
                if character.isASCII, character.isNumber {
                    pendingNumber!.append(character)
                    out.append(character)
                    continue
                }
                closePlaceholder()
            }
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
                pendingNumber = ""
                out.append("$")
            default:
                out.append(character)
            }
        }
        closePlaceholder()
        return out
    }
}
