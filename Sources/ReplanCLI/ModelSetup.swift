import Foundation
import Nightly
import Planning

/// The model configuration of `run` and `preview`: whether the model is used, with which
/// endpoint, model and key. The key comes from `--api-key-file`,
/// `$CREDENTIALS_DIRECTORY/openai-api-key` (systemd) or `OPENAI_API_KEY` — never a flag.
struct ModelSetup {
    let pipeline: UserPipeline
    /// Why the model is off for this run, if it is.
    let disabledReason: String?

    init(context ctx: CommandContext) throws(CLIError) {
        let a = ctx.arguments
        let policy: UserPipeline.ModelErrorPolicy
        switch a.value("--on-model-error") ?? "local" {
        case "local": policy = .local
        case "skip": policy = .skip
        case let other: throw .usage("--on-model-error must be local or skip, got '\(other)'")
        }
        if a.flag("--no-model") {
            pipeline = UserPipeline(reviewer: nil, onModelError: policy)
            disabledReason = "--no-model"
            return
        }
        guard let key = try ModelSetup.apiKey(context: ctx) else {
            pipeline = UserPipeline(reviewer: nil, onModelError: policy)
            disabledReason = "no API key configured"
            return
        }
        _ = key
        pipeline = UserPipeline(reviewer: nil, onModelError: policy)
        disabledReason = "the model stage is not available in this build"
    }

    /// The API key, or nil when none is configured. An empty file means "no key".
    static func apiKey(context ctx: CommandContext) throws(CLIError) -> String? {
        func read(_ path: String, _ source: String) throws(CLIError) -> String? {
            guard let data = FileManager.default.contents(atPath: path) else {
                throw CLIError.usage("cannot read the API key file \(path) (\(source))")
            }
            let key = String(decoding: data, as: UTF8.self).trimmingWhitespace()
            return key.isEmpty ? nil : key
        }
        if let path = ctx.arguments.value("--api-key-file") { return try read(path, "--api-key-file") }
        if let dir = ctx.environment["CREDENTIALS_DIRECTORY"], !dir.isEmpty,
           FileManager.default.fileExists(atPath: dir + "/openai-api-key") {
            return try read(dir + "/openai-api-key", "systemd credential")
        }
        if let key = ctx.environment["OPENAI_API_KEY"]?.trimmingWhitespace(), !key.isEmpty { return key }
        return nil
    }
}
