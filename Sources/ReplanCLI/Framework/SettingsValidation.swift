import Foundation
import Planning

/// The one check of every setting's value, used by `run`, `preview` and `config show`, so an
/// edited configuration that `config show` accepts is one the night accepts (and the other way
/// round). The model key is checked where it is read (`KeySource`).
enum SettingsValidation {
    /// `metrics_file`: an absolute path ending in `.prom` (the collector reads only those).
    static func metricsFile(_ ctx: CommandContext) throws(CLIError) -> String? {
        guard let m = ctx.setting(.metricsFile) else { return nil }
        guard m.value.hasPrefix("/"), m.value.hasSuffix(".prom") else {
            throw .badInput("\(m.label) must be an absolute path ending in .prom, got \(SecretText.shown(m.value))")
        }
        return m.value
    }

    static func validate(_ ctx: CommandContext) throws(CLIError) {
        _ = try ModelSetup.endpoint(context: ctx)
        _ = try ctx.intSetting(.concurrency, in: 1...256)
        if let t = ctx.setting(.runAfter), TimeOfDay(t.value) == nil {
            throw .badInput("\(t.label) \(SecretText.shown(t.value)) is not HH:MM")
        }
        _ = try ModelSetup.onModelError(context: ctx)
        _ = try ModelSetup.prices(context: ctx)
        _ = try PruneCommand.retentionDays(ctx)
        _ = try metricsFile(ctx)
        // A directory named explicitly must hold the templates, also on a night without a key.
        if ctx.setting(.prompts) != nil { _ = try PromptDirectory.resolve(context: ctx) }
    }
}
