/// The model options `run` and `preview` share, declared once. Those that are settings
/// (`--model`, `--base-url`, …) go to `ReplanSettings` through `settingFlags`, which ranks the
/// flag above the environment and the configuration file.
struct ModelOptions: ArgumentGroup {
    @Flag(name: "--no-model", help: "skip the model: the local rules' edits are the whole changeset")
    var noModel: Bool
    @Option(
        setting: .onModelError, value: "local|skip",
        help: "local (default: commit the local edits) or skip (commit nothing; retried next run)",
        completion: .words(["local", "skip"]))
    var onModelError: ModelErrorChoice?
    @Option(setting: .model, value: "NAME", help: "model name (default: $REPLAN_MODEL or gpt-5.1)") var model: String?
    @Option(
        setting: .reasoningEffort, value: "EFFORT",
        help: "reasoning effort (default: $REPLAN_REASONING_EFFORT or low; empty: omitted)")
    var reasoningEffort: String?
    @Option(
        setting: .baseURL, value: "URL",
        help: "OpenAI-compatible base URL (default: $OPENAI_BASE_URL or https://api.openai.com/v1)")
    var baseURL: String?
    @Option(setting: .requestTimeout, value: "SECONDS", help: "seconds per model request (default 120)")
    var requestTimeout: String?
    @Option(
        setting: .maxCompletionTokens, value: "N",
        help: "safety cap per model response (default 8000; the cap sent follows the night's measured answers below it)"
    )
    var maxCompletionTokens: String?
    @Option(
        name: "--service-tier", value: "TIER", help: "service_tier sent to the model (e.g. flex); default: not sent")
    var serviceTier: String?
    @Option(
        name: "--review-every", value: "DAYS", range: 0...365,
        help: "days between reviews of an unchanged standing instruction (default 7; 0: never)")
    var reviewEvery: Int?
    @Option(
        setting: .priceInput, value: "USD", help: "US dollars per 1M input tokens, for the cost estimate (default 1.25)"
    )
    var priceInput: String?
    @Option(setting: .priceCachedInput, value: "USD", help: "US dollars per 1M cached input tokens (default 0.125)")
    var priceCached: String?
    @Option(setting: .priceOutput, value: "USD", help: "US dollars per 1M output tokens (default 10)")
    var priceOutput: String?
    @Option(
        name: "--model-concurrency", range: 1...1024,
        help: "hard maximum of model requests in flight (default 256; the rate-limit headers set the ceiling below it)")
    var modelConcurrency: Int?
    @Option(
        name: "--model-deadline", value: "SECONDS",
        help: "seconds the run's model stage may take; then the remaining students get local edits only (default 7200)")
    var modelDeadline: String?
    @Option(
        name: "--refusal-breaker", value: "SECONDS",
        help:
            "seconds the model server may refuse every request (429 or 5xx) before the run stops asking it; the remaining students get local edits only (default 120)"
    )
    var refusalBreaker: String?
    @Option(
        name: "--student-deadline", value: "SECONDS",
        help: "seconds one student's model conversation may take; then local edits only (default 300)")
    var studentDeadline: String?

    /// The settings these options give, for `ReplanSettings`.
    var settingFlags: SettingFlags {
        var flags = SettingFlags()
        flags.baseURL = baseURL
        flags.model = model
        flags.reasoningEffort = reasoningEffort
        flags.requestTimeout = requestTimeout
        flags.maxCompletionTokens = maxCompletionTokens
        flags.onModelError = onModelError
        flags.priceInput = priceInput
        flags.priceCachedInput = priceCached
        flags.priceOutput = priceOutput
        return flags
    }
}
