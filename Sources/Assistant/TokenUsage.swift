import Planning

/// Tokens billed for model calls, summed per user run and per run with `+`.
///
/// Decodes the `usage` object of a Chat Completions response; every field may be missing
/// (local servers often omit the details) and then counts as 0.
package struct TokenUsage: Sendable, Hashable {
    package var prompt: Int
    package var completion: Int
    /// Part of `completion` spent on hidden reasoning.
    package var reasoning: Int
    /// Part of `prompt` served from the provider's prompt cache.
    package var cached: Int
    /// As reported by the server; `prompt + completion` when it reports none.
    package var total: Int

    package static let zero = TokenUsage(prompt: 0, completion: 0, reasoning: 0, cached: 0, total: 0)

    package init(prompt: Int, completion: Int, reasoning: Int = 0, cached: Int = 0, total: Int? = nil) {
        self.prompt = prompt
        self.completion = completion
        self.reasoning = reasoning
        self.cached = cached
        self.total = total ?? Int.saturating(prompt, plus: completion)
    }

    package static func + (left: TokenUsage, right: TokenUsage) -> TokenUsage {
        // Saturating: the counts are the server's numbers (see `Int.saturating`).
        TokenUsage(
            prompt: .saturating(left.prompt, plus: right.prompt),
            completion: .saturating(left.completion, plus: right.completion),
            reasoning: .saturating(left.reasoning, plus: right.reasoning),
            cached: .saturating(left.cached, plus: right.cached),
            total: .saturating(left.total, plus: right.total)
        )
    }

    package static func += (left: inout TokenUsage, right: TokenUsage) {
        left = left + right
    }
}

extension TokenUsage: Decodable {
    private enum CodingKeys: String, CodingKey {
        case prompt = "prompt_tokens"
        case completion = "completion_tokens"
        case total = "total_tokens"
        case promptDetails = "prompt_tokens_details"
        case completionDetails = "completion_tokens_details"
    }

    private enum PromptDetailsKeys: String, CodingKey {
        case cached = "cached_tokens"
    }

    private enum CompletionDetailsKeys: String, CodingKey {
        case reasoning = "reasoning_tokens"
    }

    package init(from decoder: any Decoder) throws {
        let usage = try decoder.container(keyedBy: CodingKeys.self)
        let promptDetails = try? usage.nestedContainer(keyedBy: PromptDetailsKeys.self, forKey: .promptDetails)
        let completionDetails = try? usage.nestedContainer(
            keyedBy: CompletionDetailsKeys.self, forKey: .completionDetails)
        self.init(
            prompt: Self.count(usage, .prompt) ?? 0,
            completion: Self.count(usage, .completion) ?? 0,
            reasoning: completionDetails.flatMap { Self.count($0, .reasoning) } ?? 0,
            cached: promptDetails.flatMap { Self.count($0, .cached) } ?? 0,
            total: Self.count(usage, .total)
        )
    }

    /// A count as the server wrote it, read leniently: any JSON number (negative: 0, beyond
    /// `Int.max`: `Int.max`); nil when absent or not a number. Never throws or traps.
    private static func count<K: CodingKey>(_ container: KeyedDecodingContainer<K>, _ key: K) -> Int? {
        if let whole = try? container.decodeIfPresent(Int.self, forKey: key) { return Swift.max(0, whole) }
        if let real = try? container.decodeIfPresent(Double.self, forKey: key) { return Int.count(clamping: real) }
        return nil
    }
}
