import Foundation

/// The header fields of the latest response block seen on a connection.
///
/// libcurl reports every header line of every block: interim `100 Continue` or
/// `103 Early Hints` responses come before the final one, each starting with a status line.
/// Starting over at each status line leaves exactly the final response's fields.
struct ResponseHeaderBlock {
    private(set) var fields: [String: String] = [:]
    private var lastName: String?

    mutating func consume(line rawLine: String) {
        let line = rawLine.trimmingCharacters(in: Self.lineEnd)
        if line.hasPrefix("HTTP/") {
            fields = [:]
            lastName = nil
            return
        }
        if line.isEmpty { return }
        // Obsolete line folding (RFC 9112 §5.2): a continuation belongs to the previous field.
        if line.first == " " || line.first == "\t" {
            if let name = lastName {
                fields[name, default: ""] += " " + line.trimmingCharacters(in: .whitespaces)
            }
            return
        }
        guard let colon = line.firstIndex(of: ":") else { return }
        let name = line[..<colon].trimmingCharacters(in: .whitespaces).lowercased()
        let value = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
        if let existing = fields[name] {
            fields[name] = existing + ", " + value
        } else {
            fields[name] = value
        }
        lastName = name
    }

    private static let lineEnd = CharacterSet(charactersIn: "\r\n")
}
