import Foundation
import Nightly
import Planning

/// The model configuration of `run` and `preview`: whether the model is used, with which
/// endpoint, model and key. The key comes from `--api-key-file`,
/// `$CREDENTIALS_DIRECTORY/openai-api-key` (systemd) or `OPENAI_API_KEY` — never a flag.
///
/// Endpoint and model: `--base-url` / `$OPENAI_BASE_URL`, `--model` / `$REPLAN_MODEL`,
/// `--reasoning-effort` / `$REPLAN_REASONING_EFFORT` (empty: not sent), `--request-timeout`,
/// `--max-completion-tokens`, each also a key of the configuration file (`SettingSpec`);
/// prompts from `PromptDirectory`. Flag values are checked even
/// with `--no-model`, so a typo in a unit file shows on the first run.
enum ModelSetup {
    /// The model stage of this run, from the settings and flags; the wiring is `ModelStage`'s.
    static func stage(context ctx: CommandContext, options a: ModelOptions) throws(CLIError) -> ModelStage {
        try SettingsValidation.validate(ctx)
        let policy = try onModelError(context: ctx)
        let endpoint = try ModelSetup.endpoint(context: ctx, serviceTier: a.serviceTier)
        // Prices feed the cost estimate; a typo shows on the first run, not weeks later in `log`.
        let prices = try ModelSetup.prices(context: ctx)
        let deadline = try ModelSetup.deadline(a)
        let access: ModelStage.Access
        if a.noModel {
            access = .off(reason: "--no-model")
        } else if let key = try ModelSetup.apiKey(context: ctx) {
            access = .on(apiKey: key, promptDirectory: try PromptDirectory.resolve(context: ctx))
        } else {
            access = .off(reason: "no API key configured")
        }
        do throws(ModelStage.PromptsUnavailable) {
            return try ModelStage(
                access: access, endpoint: endpoint, onModelError: policy, modelConcurrency: a.modelConcurrency,
                reviewEveryDays: a.reviewEvery, prices: prices, deadline: deadline,
                cancellation: ctx.interruption.cancellation)
        } catch {
            throw CLIError(
                .modelUnavailable, "\(error); pass --prompts DIR or set REPLAN_PROMPTS, or run with --no-model")
        }
    }

    /// `on_model_error`: local (commit the local edits) or skip.
    static func onModelError(context ctx: CommandContext) throws(CLIError) -> UserPipeline.ModelErrorPolicy {
        let onError = ctx.setting(.onModelError)
        switch onError?.value ?? "local" {
        case "local": return .local
        case "skip": return .skip
        case let other:
            // A flag typo is a usage error as before; a bad file or environment value is bad input.
            throw CLIError(
                onError?.source == "--on-model-error" ? .usage : .badInput,
                "\(onError?.label ?? "--on-model-error") must be local or skip, got \(SecretText.shown(other))")
        }
    }

    /// USD per million tokens from `--price-input`/`--price-cached`/`--price-output`, the
    /// environment or the configuration file (`price_input`, `price_cached_input`,
    /// `price_output`); unset, gpt-5.1's published prices (the default model).
    static func prices(context ctx: CommandContext) throws(CLIError) -> ModelPrices {
        var prices = ModelPrices.gpt51
        let input = try ctx.decimalSetting(.priceInput)
        let output = try ctx.decimalSetting(.priceOutput)
        let cached = try ctx.decimalSetting(.priceCachedInput)
        for (label, value) in [("input", input), ("cached", cached), ("output", output)] {
            if let value, value > 10_000 {
                throw .badInput("the \(label) price must be at most 10000 USD per million tokens, got \(value)")
            }
        }
        if let input {
            prices.input = input
            prices.cachedInput = input
        }
        if let cached {
            prices.cachedInput = cached
        } else if input == nil {
            prices.cachedInput = ModelPrices.gpt51.cachedInput
        }
        if let output { prices.output = output }
        return prices
    }

    /// Endpoint, model and limits from flags, environment and the configuration file, checked
    /// (the key is added separately).
    static func endpoint(
        context ctx: CommandContext, serviceTier: String? = nil
    ) throws(CLIError) -> ModelStage.Endpoint {
        var c = ModelStage.Endpoint()
        if let url = ctx.setting(.baseURL) {
            let lower = url.value.lowercased()
            guard lower.hasPrefix("http://") || lower.hasPrefix("https://") else {
                throw .badInput(
                    "the model base URL \(SecretText.shown(url.value)) (\(url.label)) must start with http:// or https:// (e.g. http://localhost:11434/v1)"
                )
            }
            c.baseURL = url.value
        }
        if let model = ctx.setting(.model) { c.model = model.value }
        // Present but empty means "send no reasoning_effort" (servers that reject it).
        if let effort = ctx.setting(.reasoningEffort) { c.reasoningEffort = effort.value.trimmingWhitespace() }
        if let timeout = ctx.setting(.requestTimeout) {
            guard let seconds = Double(timeout.value), seconds.isFinite, seconds > 0, seconds <= 3600 else {
                throw .badInput(
                    "\(timeout.label) must be a number of seconds from 0 to 3600, got \(SecretText.shown(timeout.value))"
                )
            }
            c.requestTimeout = seconds
        }
        if let tokens = try ctx.intSetting(.maxCompletionTokens, in: 1...1_000_000) {
            c.maxCompletionTokens = tokens
        }
        if let tier = serviceTier?.trimmingWhitespace(), !tier.isEmpty {
            c.serviceTier = tier
        }
        return c
    }

    /// `--model-deadline` (the run's model stage, default 2 h) and `--student-deadline` (one
    /// student's conversation, default 300 s), in seconds, counted from now (wall time, not
    /// `--now`). 0 turns the model stage off in effect; checked even with `--no-model`.
    static func deadline(_ options: ModelOptions) throws(CLIError) -> ModelDeadline {
        func seconds(_ option: String, _ text: String?, _ fallback: TimeInterval) throws(CLIError) -> TimeInterval {
            guard let text else { return fallback }
            guard let value = Double(text), value.isFinite, value >= 0, value <= 7 * 86_400 else {
                throw .badInput("\(option) must be a number of seconds from 0 to 604800, got '\(text)'")
            }
            return value
        }
        return ModelDeadline(
            perRun: try seconds("--model-deadline", options.modelDeadline, ModelDeadline.defaultPerRun),
            perStudent: try seconds("--student-deadline", options.studentDeadline, ModelDeadline.defaultPerStudent),
            startedAt: Date(),
            refusalBreaker: try seconds(
                "--refusal-breaker", options.refusalBreaker, ModelDeadline.defaultRefusalBreaker))
    }

    /// The API key, or nil when none is configured (`KeySource` says where it is looked for).
    static func apiKey(context ctx: CommandContext) throws(CLIError) -> String? {
        guard let source = KeySource.find(context: ctx) else { return nil }
        return try source.read(context: ctx)
    }
}
