import Synchronization

/// The `max_completion_tokens` a run sends, chosen from what the model's answers used this
/// night rather than the configured cap (docs/model.md §8).
///
/// The provider counts a request's whole `max_completion_tokens` against the tokens-per-minute
/// limit when it admits it, and so does the gate, which reserves what the provider will
/// count. At the configured 8,000 a request held about 10,900 tokens of the limit while the
/// answer used about 1,000: the night paid for output it never got. The cap sent is therefore
/// `margin` × the `percentile` of the completion tokens measured over the last `window`
/// answers, at least `floor`, and never above the configured cap (the safety cap). Until
/// `minimumSamples` answers are measured it is `prior`, so the first requests of a night (and
/// every request of a test with a few students) carry a fixed number and their bodies are
/// byte-identical from run to run.
///
/// An answer cut at the sized cap (`finish_reason: length`) is sent again once at the safety
/// cap (`ChatCompletionsClient`); the cut is measured as the cap it hit, so the percentile
/// climbs when the cap is too tight.
package final class OutputCap: Sendable {
    package let safetyCap: Int
    package let prior: Int
    package let floor: Int
    package let percentile: Double
    package let margin: Double
    package let minimumSamples: Int
    package let window: Int
    private let samples: Mutex<Samples>

    private struct Samples {
        var ring: [Int] = []
        var next = 0
        /// The cap for the current samples; recomputed when a sample arrives.
        var cap: Int?
    }

    package static let defaultPrior = 4000
    package static let defaultFloor = 1000

    package init(
        safetyCap: Int, prior: Int = OutputCap.defaultPrior, floor: Int = OutputCap.defaultFloor,
        percentile: Double = 0.95, margin: Double = 1.5, minimumSamples: Int = 20, window: Int = 2000
    ) {
        self.safetyCap = max(1, safetyCap)
        self.prior = max(1, prior)
        self.floor = max(1, floor)
        self.percentile = min(1, max(0, percentile))
        self.margin = max(1, margin)
        self.minimumSamples = max(1, minimumSamples)
        self.window = max(self.minimumSamples, window)
        self.samples = Mutex(Samples())
    }

    /// The cap to send now.
    package var current: Int {
        let measured = samples.withLock { $0.cap }
        return min(safetyCap, measured ?? prior)
    }

    /// Records the completion tokens of an answer (for a cut answer: the cap it hit).
    package func record(completionTokens: Int) {
        let value = min(max(0, completionTokens), 10_000_000)
        let (window, minimumSamples, percentile, margin, floor) = (
            window, minimumSamples, percentile, margin, floor
        )
        samples.withLock { s in
            if s.ring.count < window {
                s.ring.append(value)
            } else {
                s.ring[s.next] = value
                s.next = (s.next + 1) % window
            }
            guard s.ring.count >= minimumSamples else { return }
            let sorted = s.ring.sorted()
            let index = min(sorted.count - 1, Int((Double(sorted.count - 1) * percentile).rounded(.up)))
            let sized = (Double(sorted[index]) * margin).rounded(.up)
            s.cap = max(floor, Int(min(sized, 10_000_000)))
        }
    }
}
