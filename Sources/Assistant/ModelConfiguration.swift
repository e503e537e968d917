/// Where and how the model is asked: endpoint, model, reasoning effort, token cap, limits
/// and key. Defaults follow docs/model.md §3; every field can point the client at any
/// OpenAI-compatible server (vLLM, llama.cpp, Ollama's `/v1`).
package struct ModelConfiguration: Sendable {
    /// Base URL up to and including the API version, e.g. `http://localhost:11434/v1`;
    /// a trailing slash is tolerated.
    package var baseURL: String
    package var model: String
    /// Sent as `reasoning_effort`; an empty string omits the field (for servers that reject it).
    package var reasoningEffort: String
    package var maxCompletionTokens: Int
    /// Seconds to establish the connection.
    package var connectTimeout: Double
    /// Seconds for one whole request, response included.
    package var requestTimeout: Double
    package var maxResponseBytes: Int
    /// Sent as `Authorization: Bearer …`; an empty key sends no Authorization header.
    package var apiKey: Secret
    /// Sent as `service_tier` when set (e.g. `flex`: half the price, slower answers); nil or
    /// empty sends nothing, so servers that do not know the field are not bothered.
    package var serviceTier: String?

    package init(
        apiKey: Secret,
        baseURL: String = "https://api.openai.com/v1",
        model: String = "gpt-5.1",
        reasoningEffort: String = "low",
        maxCompletionTokens: Int = 8000,
        connectTimeout: Double = 10,
        requestTimeout: Double = 120,
        maxResponseBytes: Int = 8 * 1024 * 1024,
        serviceTier: String? = nil
    ) {
        self.serviceTier = serviceTier
        self.apiKey = apiKey
        self.baseURL = baseURL
        self.model = model
        self.reasoningEffort = reasoningEffort
        self.maxCompletionTokens = maxCompletionTokens
        self.connectTimeout = connectTimeout
        self.requestTimeout = requestTimeout
        self.maxResponseBytes = maxResponseBytes
    }

    /// `{baseURL}/chat/completions`, with any trailing slashes of the base removed first.
    package var completionsURL: String {
        var base = Substring(baseURL)
        while base.hasSuffix("/") { base = base.dropLast() }
        return base + "/chat/completions"
    }
}
