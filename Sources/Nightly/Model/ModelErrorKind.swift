/// A short, countable name for why the model stage failed for one student, so a run's summary
/// can say "2 model errors (HTTP 401 invalid_api_key: 2)" instead of hiding them.
///
/// The error travels as text (`ModelSummary.error`, stored on the user run); the kinds are read
/// from the wording of `ModelCallError`, `HTTPError` and the conversation's endings, which
/// tests pin (a change of wording there fails `ModelErrorKindTests`). Unknown wording still
/// counts, under its first clause.
package enum ModelErrorKind {
    package static func of(_ error: String) -> String {
        let text = error.hasPrefix("model failed: ") ? String(error.dropFirst("model failed: ".count)) : error
        if text.hasPrefix("the model account has no quota left") { return "insufficient_quota" }
        if let rest = text.after("the model server answered HTTP ") {
            let status = rest.prefix { $0.isNumber }
            // "401 (invalid_api_key): Incorrect API key…": the API's error code names the cause.
            if rest.dropFirst(status.count).hasPrefix(" ("), let close = rest.firstIndex(of: ")") {
                let code = rest[rest.index(rest.startIndex, offsetBy: status.count + 2)..<close]
                return "HTTP \(status) \(code)"
            }
            return "HTTP \(status)"
        }
        if let rest = text.after("the model server could not be reached: ") {
            if rest.hasPrefix("the request timed out") { return "timeout" }
            if rest.hasPrefix("connection failed") { return "connection failed" }
            if rest.hasPrefix("the response is larger") { return "response too large" }
            if let curl = rest.after("transfer failed ("), let close = curl.firstIndex(of: ")") {
                return String(curl[..<close])
            }
            return "unreachable"
        }
        if text.hasPrefix("the model server sent an unusable response") { return "invalid response" }
        if text.hasPrefix("the model request could not be encoded") { return "invalid request" }
        if text.contains("(turn-limit)") { return "turn-limit" }
        if text.hasPrefix("the model request was cancelled") { return "cancelled" }
        if text.hasPrefix("the model server refused every request") { return "provider refusing" }
        let clause = text.prefix { $0 != ":" && $0 != ";" }
        return clause.count <= 60 ? String(clause) : String(clause.prefix(57)) + "…"
    }

    /// The kinds by count, most frequent first (ties by name, so the order is stable).
    package static func ranked(_ counts: [String: Int]) -> [(kind: String, count: Int)] {
        counts.map { (kind: $0.key, count: $0.value) }.sorted {
            $0.count != $1.count ? $0.count > $1.count : $0.kind < $1.kind
        }
    }
}

extension StringProtocol {
    fileprivate func after(_ prefix: String) -> SubSequence? {
        hasPrefix(prefix) ? self[index(startIndex, offsetBy: prefix.count)...] : nil
    }
}
