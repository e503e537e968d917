/// One setting that can come from a flag, the environment or the configuration file, in that
/// order of precedence (the first that is set wins), else its default. One table, so the
/// configuration file's keys, `config show` and the precedence rule cannot drift apart.
struct SettingSpec: Sendable, Equatable {
    /// The configuration file's key.
    var key: String
    /// The flag of the same meaning, if any (only consulted when the command declares it).
    var flag: String?
    /// The environment variable of the same meaning, if any.
    var environment: String?
    /// Whether an empty value is a value (`reasoning_effort =` means "send none"); otherwise an
    /// empty value counts as not set.
    var emptyIsValue = false
    /// The default, as `config show` prints it.
    var defaultText: String
    var help: String

    static let database = SettingSpec(
        key: "database", flag: "--db", environment: "REPLAN_DB",
        defaultText: "$STATE_DIRECTORY/replan.db under systemd, else $XDG_DATA_HOME/replan/replan.db",
        help: "the SQLite database (an absolute path)")
    static let baseURL = SettingSpec(
        key: "base_url", flag: "--base-url", environment: "OPENAI_BASE_URL",
        defaultText: "https://api.openai.com/v1", help: "OpenAI-compatible endpoint, up to the API version")
    static let model = SettingSpec(
        key: "model", flag: "--model", environment: "REPLAN_MODEL", defaultText: "gpt-5.1", help: "model name")
    static let reasoningEffort = SettingSpec(
        key: "reasoning_effort", flag: "--reasoning-effort", environment: "REPLAN_REASONING_EFFORT", emptyIsValue: true,
        defaultText: "low", help: "reasoning effort; empty: not sent (servers that reject it)")
    static let requestTimeout = SettingSpec(
        key: "request_timeout", flag: "--request-timeout", defaultText: "120", help: "seconds per model request")
    static let maxCompletionTokens = SettingSpec(
        key: "max_completion_tokens", flag: "--max-completion-tokens", defaultText: "8000",
        help: "token cap per model response")
    static let concurrency = SettingSpec(
        key: "concurrency", flag: "--concurrency", defaultText: "8", help: "student pipelines at once in `run`")
    static let runAfter = SettingSpec(
        key: "run_after", flag: "--run-after", defaultText: "03:00", help: "local time a student's night starts")
    static let onModelError = SettingSpec(
        key: "on_model_error", flag: "--on-model-error", defaultText: "local",
        help: "local (commit the local edits) or skip (commit nothing) when the model fails")
    static let prompts = SettingSpec(
        key: "prompts", flag: "--prompts", environment: "REPLAN_PROMPTS",
        defaultText: "the prompts/ installed with replan", help: "directory of system-prompt templates")
    static let apiKeyFile = SettingSpec(
        key: "api_key_file", flag: "--api-key-file",
        defaultText: "$CREDENTIALS_DIRECTORY/openai-api-key, else $OPENAI_API_KEY",
        help: "file holding the model API key (used when neither the systemd credential nor $OPENAI_API_KEY is set)")
    static let retentionDays = SettingSpec(
        key: "retention_days", defaultText: "30",
        help:
            "days of changesets, runs and model transcripts kept; older ones are pruned after each run (0: keep forever)"
    )
    static let priceInput = SettingSpec(
        key: "price_input", flag: "--price-input", defaultText: "1.25 (gpt-5.1)",
        help: "USD per million uncached prompt tokens")
    static let priceCachedInput = SettingSpec(
        key: "price_cached_input", flag: "--price-cached",
        defaultText: "0.125 (gpt-5.1), or price_input when that is set",
        help: "USD per million cached prompt tokens")
    static let priceOutput = SettingSpec(
        key: "price_output", flag: "--price-output", defaultText: "10 (gpt-5.1)",
        help: "USD per million completion tokens (reasoning included)")

    static let metricsFile = SettingSpec(
        key: "metrics_file", flag: "--metrics-file", environment: "REPLAN_METRICS_FILE", defaultText: "none",
        help:
            "Prometheus text file written after every run, for node_exporter's textfile collector (an absolute path ending in .prom)"
    )

    static let all: [SettingSpec] = [
        database, baseURL, model, reasoningEffort, requestTimeout, maxCompletionTokens, concurrency, runAfter,
        onModelError,
        prompts, apiKeyFile, retentionDays, priceInput, priceCachedInput, priceOutput, metricsFile,
    ]
}

/// A setting's value and where it came from (`--model`, `$REPLAN_MODEL`,
/// `/etc/replan/replan.conf:3`), so an error or `config show` can name the source.
struct ResolvedSetting: Sendable, Equatable {
    var value: String
    var source: String
    /// How an error message names the setting: `--concurrency`, `$REPLAN_MODEL`,
    /// `/etc/replan/replan.conf:5: concurrency`.
    var label: String

    init(value: String, source: String, label: String? = nil) {
        self.value = value
        self.source = source
        self.label = label ?? source
    }
}
