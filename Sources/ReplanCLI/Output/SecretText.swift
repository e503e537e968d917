/// Values that look like an API key are never echoed: a key pasted into the configuration
/// file (mode 0644, read by every user) or onto the wrong line would otherwise reach the
/// terminal, `config show` and, through `run`, the journal.
enum SecretText {
    /// A value as messages quote it: `'abc'`, or a placeholder when it looks like a secret.
    static func shown(_ value: String) -> String {
        looksSecret(value) ? "a value that looks like an API key (not shown)" : "'\(value)'"
    }

    /// OpenAI-style keys (`sk-…`), bearer tokens, and long runs of key characters without the
    /// dots, slashes or spaces of paths, URLs, model names and numbers.
    static func looksSecret(_ value: String) -> Bool {
        let v = value.trimmingWhitespace()
        if v.hasPrefix("sk-") || v.lowercased().hasPrefix("bearer ") { return true }
        guard v.count >= 32 else { return false }
        let keyLike = v.unicodeScalars.allSatisfy {
            ("a"..."z").contains($0) || ("A"..."Z").contains($0) || ("0"..."9").contains($0) || $0 == "-" || $0 == "_"
        }
        let hasDigit = v.unicodeScalars.contains { ("0"..."9").contains($0) }
        let hasLetter = v.unicodeScalars.contains { ("a"..."z").contains($0) || ("A"..."Z").contains($0) }
        return keyLike && hasDigit && hasLetter
    }
}
