/// Where and how the model is asked: endpoint, model, reasoning effort, token cap, limits
/// and key. Defaults follow spec/assistant.md; every field can point the client at any
/// OpenAI-compatible server (vLLM, llama.cpp, Ollama's `/v1`).
public struct ModelConfiguration: Sendable {
    /// Base URL up to and including the API version, e.g. `http://localhost:11434/v1`;
    /// a trailing slash is tolerated.
    public var baseURL: String
    public var model: String
    /// Sent as `reasoning_effort`; an empty string omits the field (for servers that reject it).
    public var reasoningEffort: String
    public var maxCompletionTokens: Int
    /// Seconds to establish the connection.
    public var connectTimeout: Double
    /// Seconds for one whole request, response included.
    public var requestTimeout: Double
    public var maxResponseBytes: Int
    /// Sent as `Authorization: Bearer …`; an empty key sends no Authorization header.
    public var apiKey: Secret
    /// Sent as `service_tier` when set (e.g. `flex`: half the price, slower answers); nil or
    /// empty sends nothing, so servers that do not know the field are not bothered.
    package var serviceTier: String?

    public init(
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
    public var completionsURL: String {
        var base = Substring(baseURL)
        while base.hasSuffix("/") { base = base.dropLast() }
        return base + "/chat/completions"
    }
}
