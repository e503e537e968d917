import Foundation

/// A credential (the API key) that refuses to be printed: `description`, `debugDescription`,
/// `dump` and string interpolation all show `<redacted>`, so a key cannot leak into logs,
/// error messages or transcripts by accident. Deliberately not `Codable`.
package struct Secret: Sendable, Equatable, CustomStringConvertible, CustomDebugStringConvertible,
    CustomReflectable
{
    private let value: String

    /// Surrounding whitespace is dropped: key files end with a newline, which would break
    /// the Authorization header and keep an echoed key from being recognised for redaction.
    package init(_ value: String) {
        self.value = value.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// The actual credential, for the one place that must send it (the Authorization header).
    package var unredactedValue: String { value }

    package var isEmpty: Bool { value.isEmpty }

    package var description: String { "<redacted>" }
    package var debugDescription: String { "<redacted>" }
    package var customMirror: Mirror { Mirror(self, children: [:]) }

    /// `text` with every occurrence of the secret replaced by `<redacted>`; for text that
    /// came from elsewhere (a server echoing the key in an error) before it is kept or shown.
    package func redact(_ text: String) -> String {
        value.isEmpty ? text : text.replacingOccurrences(of: value, with: description)
    }

    /// `data` with every occurrence of the secret's UTF-8 bytes replaced by `<redacted>`.
    package func redact(_ data: Data) -> Data {
        guard !value.isEmpty else { return data }
        let needle = Data(value.utf8)
        let replacement = Data(description.utf8)
        var result = data
        var searchStart = result.startIndex
        while let found = result.range(of: needle, in: searchStart..<result.endIndex) {
            result.replaceSubrange(found, with: replacement)
            searchStart = found.lowerBound + replacement.count
        }
        return result
    }
}
