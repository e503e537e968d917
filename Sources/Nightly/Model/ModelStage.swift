import Assistant
import Foundation
import HTTP
import JSON
import Planning

// Values of the model stage the command line handles (prices it checks and shows, the token a
// signal cancels); named here so the command line needs neither Assistant nor HTTP.
package typealias ModelPrices = Assistant.ModelPrices
package typealias CancellationToken = HTTP.CancellationToken

/// The model stage of a run or preview: the pipeline that asks the model for the students who
/// need it, or why it does not. Built from settings the command line resolved (flags,
/// environment, configuration file) and checked; this type wires the client, the prompt, the
/// shared rate-limit gate and the deadlines together.
package struct ModelStage {
    /// Endpoint and limits; nil keeps the defaults of docs/model.md §3.
    package struct Endpoint: Sendable {
        package var baseURL: String?
        package var model: String?
        /// Empty means "send no reasoning_effort" (servers that reject it).
        package var reasoningEffort: String?
        package var requestTimeout: Double?
        package var maxCompletionTokens: Int?
        package var serviceTier: String?

        package init() {}

        /// What is sent, defaults filled in (`config show`).
        package var effective: Effective {
            let c = configuration(apiKey: "")
            return Effective(
                baseURL: c.baseURL, model: c.model, reasoningEffort: c.reasoningEffort,
                requestTimeout: c.requestTimeout, maxCompletionTokens: c.maxCompletionTokens)
        }

        func configuration(apiKey: String) -> ModelConfiguration {
            var c = ModelConfiguration(apiKey: Secret(apiKey))
            if let baseURL { c.baseURL = baseURL }
            if let model { c.model = model }
            if let reasoningEffort { c.reasoningEffort = reasoningEffort }
            if let requestTimeout {
                c.requestTimeout = requestTimeout
                c.connectTimeout = min(c.connectTimeout, requestTimeout)
            }
            if let maxCompletionTokens { c.maxCompletionTokens = maxCompletionTokens }
            if let tier = serviceTier, !tier.isEmpty { c.serviceTier = tier }
            return c
        }
    }

    package struct Effective: Sendable, Equatable {
        package var baseURL: String
        package var model: String
        package var reasoningEffort: String
        package var requestTimeout: Double
        package var maxCompletionTokens: Int
    }

    /// Whether the model is asked at all.
    package enum Access: Sendable {
        /// Off from the start, and why (`--no-model`, no key).
        case off(reason: String)
        /// On, with the key and the directory of the prompt templates.
        case on(apiKey: String, promptDirectory: String)
    }

    /// The prompt templates could not be loaded; the message names the file and the problem.
    package struct PromptsUnavailable: Error, CustomStringConvertible {
        package let description: String
    }

    /// The hard maximum of requests in flight: the ceiling the rate-limit headers allow is
    /// usually lower (docs/model.md §8); 2M tokens per minute at 30 s answers of about 5,000
    /// tokens each need about 200.
    package static let defaultModelConcurrency = 256
    /// Where the adaptive limit starts: it grows with each success up to the ceiling.
    static let initialModelConcurrency = 8

    package let pipeline: UserPipeline
    /// Why the model is off for this run from the start, if it is.
    package let disabledReason: String?
    /// Set once the account ran out of quota during the run.
    package let shutoff: ModelShutoff
    /// The most model requests in flight.
    package let modelConcurrency: Int
    /// The run's pacing, for reports (nil with the model off).
    package let gate: RateLimitGate?
    let outputCap: OutputCap?

    /// What the pacing did in this run (`run --json`'s `pacing`; null with the model off):
    /// the most requests in flight, the highest ceiling the headers allowed, requests that
    /// waited for a budget, 429s and halvings, the output cap sent last, and the students not
    /// reached because the urgent went first.
    package var pacing: JSONValue {
        guard let gate, let outputCap else { return .null }
        let c = gate.counters
        return [
            "peakInFlight": .int(c.peakInFlight), "peakCeiling": .int(c.peakCeiling),
            "pacedRequests": .int(c.pacedRequests), "rateLimited": .int(c.rateLimited), "halvings": .int(c.halvings),
            "reservedTokens": .int(c.reservedTokens), "outputCap": .int(outputCap.current),
            "notReached": .int(pipeline.admission?.refused ?? 0),
        ]
    }

    /// Why the model was off, from the start or since the quota ran out; nil while it is on.
    package var offReason: String? { disabledReason ?? shutoff.reason }

    package init(
        access: Access, endpoint: Endpoint, onModelError: UserPipeline.ModelErrorPolicy,
        modelConcurrency: Int?, reviewEveryDays: Int?, prices: ModelPrices, deadline: ModelDeadline,
        cancellation: CancellationToken
    ) throws(PromptsUnavailable) {
        let shutoff = ModelShutoff()
        self.shutoff = shutoff
        self.modelConcurrency = modelConcurrency ?? Self.defaultModelConcurrency
        let callPolicy = ModelCallPolicy(reviewEveryDays: reviewEveryDays ?? ModelCallPolicy.defaultReviewEveryDays)
        var pipeline: UserPipeline
        switch access {
        case .off(let reason):
            pipeline = UserPipeline(reviewer: nil, onModelError: onModelError)
            disabledReason = reason
            gate = nil
            outputCap = nil
        case .on(let apiKey, let promptDirectory):
            let prompt: SystemPrompt
            do throws(PromptError) { prompt = try SystemPrompt.load(directory: promptDirectory) } catch {
                throw PromptsUnavailable(description: "\(error)")
            }
            // One gate for the whole run: it paces every user's requests by the rate-limit
            // headers, and a 429 with retry-after pauses them all.
            let gate = RateLimitGate(
                maxInFlight: self.modelConcurrency,
                initialInFlight: min(Self.initialModelConcurrency, self.modelConcurrency))
            self.gate = gate
            let configuration = endpoint.configuration(apiKey: apiKey)
            // And one output cap: each request's max_completion_tokens, and so what the gate
            // reserves of the limit, follows what the night's answers used.
            let outputCap = OutputCap(safetyCap: configuration.maxCompletionTokens)
            self.outputCap = outputCap
            // One breaker for the whole run too: a provider that refuses everything for
            // `refusalBreaker` seconds is not asked again in this run.
            let breaker = ProviderBreaker(openAfter: deadline.refusalBreaker)
            let reviewer = AssistantReviewer(
                conversation: ModelConversation(
                    client: ChatCompletionsClient(
                        configuration: configuration, gate: gate, breaker: breaker, outputCap: outputCap),
                    prompt: prompt),
                cancellation: cancellation, shutoff: shutoff, deadline: deadline, breaker: breaker)
            pipeline = UserPipeline(
                reviewer: reviewer, onModelError: onModelError, modelDisabledReason: { shutoff.reason })
            pipeline.admission = ModelAdmission(deadline: deadline, gate: gate)
            disabledReason = nil
        }
        pipeline.policy = callPolicy
        pipeline.prices = prices
        self.pipeline = pipeline
    }
}
