import Foundation
import Nightly
import Planning

/// The model stage of `run` and `preview`: whether the model is used, with which endpoint,
/// model and key. The settings (endpoint, prices, `on_model_error`, prompts, where the key is)
/// are `ReplanSettings`', resolved and checked before this is called; this adds `run`'s own
/// flags (`--service-tier`, `--review-every`, the deadlines) and reads the key — from
/// `--api-key-file`, `$CREDENTIALS_DIRECTORY/openai-api-key` (systemd) or `OPENAI_API_KEY`,
/// never a flag. Flag values are checked even with `--no-model`, so a typo in a unit file
/// shows on the first run.
enum ModelSetup {
    /// The model stage of this run; the wiring is `ModelStage`'s.
    static func stage(
        _ settings: ReplanSettings, options a: ModelOptions, context ctx: CommandContext
    ) throws(CLIError) -> ModelStage {
        var endpoint = settings.endpoint
        if let tier = a.serviceTier?.trimmingWhitespace(), !tier.isEmpty { endpoint.serviceTier = tier }
        let deadline = try ModelSetup.deadline(a)
        let access: ModelStage.Access
        if a.noModel {
            access = .off(reason: "--no-model")
        } else if let key = try settings.keySource?.read(context: ctx) {
            let prompts: String
            if let dir = settings.promptDirectory { prompts = dir } else { prompts = try PromptDirectory.installed() }
            access = .on(apiKey: key, promptDirectory: prompts)
        } else {
            access = .off(reason: "no API key configured")
        }
        do throws(ModelStage.PromptsUnavailable) {
            return try ModelStage(
                access: access, endpoint: endpoint, onModelError: settings.onModelError,
                modelConcurrency: a.modelConcurrency, reviewEveryDays: a.reviewEvery, prices: settings.prices,
                deadline: deadline, cancellation: ctx.interruption.cancellation)
        } catch {
            throw CLIError(
                .modelUnavailable, "\(error); pass --prompts DIR or set REPLAN_PROMPTS, or run with --no-model")
        }
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
}
