/// What the provider charges, in US dollars per million tokens, to turn token counts into an
/// estimated cost (per student and per run). Configurable because prices differ by model and
/// change; the defaults are gpt-5.1's list prices (issue 16).
package struct ModelPrices: Sendable, Hashable {
    package var input: Double
    /// Input tokens served from the prompt cache.
    package var cachedInput: Double
    /// Output tokens, reasoning included.
    package var output: Double

    package static let gpt51 = ModelPrices(input: 1.25, cachedInput: 0.125, output: 10)

    package init(input: Double, cachedInput: Double, output: Double) {
        self.input = input
        self.cachedInput = cachedInput
        self.output = output
    }

    /// Estimated dollars for the given counts: cached tokens are part of `prompt` and billed at
    /// the cached price, reasoning tokens are part of `completion`. Nonsense counts from a
    /// server (negative, cached above prompt) are clamped, never trapped on.
    package func cost(prompt: Int, cached: Int, completion: Int) -> Double {
        let p = Double(max(0, prompt))
        let c = min(Double(max(0, cached)), p)
        let o = Double(max(0, completion))
        return ((p - c) * input + c * cachedInput + o * output) / 1_000_000
    }
}
