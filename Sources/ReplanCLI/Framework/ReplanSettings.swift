import Foundation
import Nightly
import Planning

/// The flags of settings as the command line gave them: each command fills the ones it
/// declares (`run`: `--concurrency`, `--run-after`, `--metrics-file` and the model options;
/// `preview`: the model options) from its own declarations; nil is "not given".
/// `--db`, `--prompts` and `--api-key-file` are global options and come from `GlobalOptions`.
struct SettingFlags: Sendable {
    var baseURL: String?
    var model: String?
    var reasoningEffort: String?
    var requestTimeout: String?
    var maxCompletionTokens: String?
    var concurrency: String?
    var runAfter: String?
    var onModelError: ModelErrorChoice?
    var priceInput: String?
    var priceCachedInput: String?
    var priceOutput: String?
    var metricsFile: String?
}

/// Every setting of one command line, resolved once (flag over environment over configuration
/// file over default, `SettingSpec`) and checked once, as typed values. `run`, `preview`,
/// `undo`, `redo`, `status`, `log`, `prune` and `config show` all read this value, so a
/// configuration `config show` accepts is one the night accepts, with the same message for a
/// bad value, naming its source (`--concurrency`, `$REPLAN_MODEL`, `/etc/replan/replan.conf:5:
/// concurrency`).
///
/// To add a setting: a `SettingSpec` (its key, flag, environment variable, default and help,
/// listed in `SettingSpec.all`), a typed field here and its check in `init`, a field of
/// `SettingFlags` when it has a flag (filled by the commands that declare the flag with
/// `@Option(setting:)`), and its row in `config show` when its default needs more than
/// `SettingSpec.defaultText`.
struct ReplanSettings: Sendable {
    /// The database path and where it came from (resolved before the command runs, since every
    /// command needs it: `ReplanSettings.databaseLocation`).
    var database: ResolvedSetting
    /// Base URL, model, reasoning effort, request timeout and token cap; unset fields are the
    /// model client's defaults. The service tier is `run`'s own flag, added by `ModelSetup`.
    var endpoint = ModelStage.Endpoint()
    /// Student pipelines at once; nil lets the night choose (`NightlyJob.defaultConcurrency`).
    var concurrency: Int?
    /// The local time a student's night starts; nil: `RunOptions`' default (03:00).
    var runAfter: TimeOfDay?
    var onModelError = UserPipeline.ModelErrorPolicy.local
    var prices = ModelPrices.gpt51
    /// Days of history kept; nil keeps it forever (`retention_days = 0`).
    var retentionDays: Int? = 30
    var metricsFile: String?
    /// A template directory named by `--prompts`, `$REPLAN_PROMPTS` or `prompts`, checked to
    /// hold the templates; nil: the installed ones (`PromptDirectory.installed`).
    var promptDirectory: String?
    /// Where the model key would be read from; nil: none configured (`KeySource`).
    var keySource: KeySource?
    /// The text and source of every setting that was given, by configuration key, for
    /// `config show` to print as given.
    var given: [String: ResolvedSetting] = [:]

    /// Resolves and checks every setting; the first bad value is the error, in the order `run`
    /// has always checked them (the model endpoint first, the prompt directory last).
    init(flags: SettingFlags = SettingFlags(), context ctx: CommandContext) throws(CLIError) {
        database = ResolvedSetting(value: ctx.databasePath, source: ctx.databaseSource)
        func take(_ spec: SettingSpec, _ flag: String?) -> ResolvedSetting? {
            let found = Self.resolve(spec, flag: flag, environment: ctx.environment, configuration: ctx.configuration)
            if let found { given[spec.key] = found }
            return found
        }
        func int(_ spec: SettingSpec, _ flag: String?, in range: ClosedRange<Int>) throws(CLIError) -> Int? {
            guard let s = take(spec, flag) else { return nil }
            guard let v = Int(s.value), range.contains(v) else {
                throw .badInput(
                    "\(s.label) must be a whole number from \(range.lowerBound) to \(range.upperBound), got \(SecretText.shown(s.value))"
                )
            }
            return v
        }
        func price(_ spec: SettingSpec, _ flag: String?) throws(CLIError) -> Double? {
            guard let s = take(spec, flag) else { return nil }
            guard let v = Double(s.value), v.isFinite, v >= 0 else {
                throw .badInput(
                    "\(s.label) must be a number of USD per million tokens (e.g. 1.25), got \(SecretText.shown(s.value))"
                )
            }
            return v
        }

        // The model endpoint.
        if let url = take(.baseURL, flags.baseURL) {
            let lower = url.value.lowercased()
            guard lower.hasPrefix("http://") || lower.hasPrefix("https://") else {
                throw .badInput(
                    "the model base URL \(SecretText.shown(url.value)) (\(url.label)) must start with http:// or https:// (e.g. http://localhost:11434/v1)"
                )
            }
            endpoint.baseURL = url.value
        }
        if let model = take(.model, flags.model) { endpoint.model = model.value }
        // Present but empty means "send no reasoning_effort" (servers that reject it).
        if let effort = take(.reasoningEffort, flags.reasoningEffort) {
            endpoint.reasoningEffort = effort.value.trimmingWhitespace()
        }
        if let timeout = take(.requestTimeout, flags.requestTimeout) {
            guard let seconds = Double(timeout.value), seconds.isFinite, seconds > 0, seconds <= 3600 else {
                throw .badInput(
                    "\(timeout.label) must be a number of seconds from 0 to 3600, got \(SecretText.shown(timeout.value))"
                )
            }
            endpoint.requestTimeout = seconds
        }
        if let tokens = try int(.maxCompletionTokens, flags.maxCompletionTokens, in: 1...1_000_000) {
            endpoint.maxCompletionTokens = tokens
        }

        concurrency = try int(.concurrency, flags.concurrency, in: 1...256)
        if let t = take(.runAfter, flags.runAfter) {
            guard let time = TimeOfDay(t.value) else {
                throw .badInput("\(t.label) \(SecretText.shown(t.value)) is not HH:MM")
            }
            runAfter = time
        }
        // The flag is a typed choice (a typo is a usage error when parsed); the environment and
        // the file are checked here, bad input like every other bad value of theirs.
        if let choice = flags.onModelError {
            given[SettingSpec.onModelError.key] = ResolvedSetting(
                value: choice.rawValue, source: SettingSpec.onModelError.flag!)
            onModelError = choice.policy
        } else if let s = take(.onModelError, nil) {
            guard let choice = ModelErrorChoice(rawValue: s.value) else {
                throw .badInput(ModelErrorChoice.message(s.value, label: s.label))
            }
            onModelError = choice.policy
        }

        // Prices feed the cost estimate; a typo shows on the first run, not weeks later in `log`.
        let input = try price(.priceInput, flags.priceInput)
        let output = try price(.priceOutput, flags.priceOutput)
        let cached = try price(.priceCachedInput, flags.priceCachedInput)
        for (label, value) in [("input", input), ("cached", cached), ("output", output)] {
            if let value, value > 10_000 {
                throw .badInput("the \(label) price must be at most 10000 USD per million tokens, got \(value)")
            }
        }
        if let input {
            prices.input = input
            prices.cachedInput = input
        }
        if let cached { prices.cachedInput = cached }
        if let output { prices.output = output }

        let days = try int(.retentionDays, nil, in: 0...36_500) ?? 30
        retentionDays = days == 0 ? nil : days

        if let m = take(.metricsFile, flags.metricsFile) {
            // An absolute path ending in `.prom`: node_exporter's collector reads only those.
            guard m.value.hasPrefix("/"), m.value.hasSuffix(".prom") else {
                throw .badInput("\(m.label) must be an absolute path ending in .prom, got \(SecretText.shown(m.value))")
            }
            metricsFile = m.value
        }
        // A directory named explicitly must hold the templates, also on a night without a key.
        if let dir = take(.prompts, ctx.globals.prompts) {
            promptDirectory = try PromptDirectory.checked(dir.value, source: dir.label)
        }
        keySource = KeySource.find(
            flag: ctx.globals.apiKeyFile, environment: ctx.environment, setting: take(.apiKeyFile, nil))
    }

    /// The value of `spec` from its flag (`flag`: what the command line gave, if the command
    /// declares it), the environment or the configuration file; nil when none sets it.
    static func resolve(
        _ spec: SettingSpec, flag: String?, environment: [String: String], configuration: ConfigurationFile
    ) -> ResolvedSetting? {
        func usable(_ v: String?) -> String? {
            guard let v else { return nil }
            return v.isEmpty && !spec.emptyIsValue ? nil : v
        }
        if let flag, let name = spec.flag { return ResolvedSetting(value: flag, source: name) }
        if let name = spec.environment, let v = usable(environment[name]) {
            return ResolvedSetting(value: v, source: "$\(name)")
        }
        if let entry = configuration.entries[spec.key], let v = usable(entry.value) {
            let origin = configuration.origin(of: spec.key) ?? spec.key
            return ResolvedSetting(value: v, source: origin, label: "\(origin): \(spec.key)")
        }
        return nil
    }

    /// The database: `--db`, else `$REPLAN_DB`, else the configuration file's `database`, else
    /// `$STATE_DIRECTORY/replan.db` (systemd), else `$XDG_DATA_HOME/replan/replan.db`. The file
    /// ranks above the systemd default so that an operator's `sudo -u replan replan …` (no
    /// `STATE_DIRECTORY`) and the service open the same database. Resolved before the command
    /// runs: every command opens it.
    static func databaseLocation(
        flag: String?, environment env: [String: String], configuration: ConfigurationFile
    ) throws(CLIError) -> ResolvedSetting {
        if let found = resolve(.database, flag: flag, environment: env, configuration: .none) { return found }
        if let entry = configuration.entries[SettingSpec.database.key], !entry.value.isEmpty {
            let origin = configuration.origin(of: SettingSpec.database.key) ?? "database"
            // A relative path would depend on the directory each command happens to start in.
            guard entry.value.hasPrefix("/") else {
                throw .badInput("\(origin): database must be an absolute path, got '\(entry.value)'")
            }
            return ResolvedSetting(value: entry.value, source: origin)
        }
        if let state = env["STATE_DIRECTORY"], !state.isEmpty {
            // systemd may list several directories separated by ':'; the first is ours.
            return ResolvedSetting(
                value: String(state.split(separator: ":").first!) + "/replan.db", source: "$STATE_DIRECTORY")
        }
        let xdg = env["XDG_DATA_HOME"].flatMap { $0.isEmpty ? nil : $0 }
        let dataHome = xdg ?? ((env["HOME"] ?? NSHomeDirectory()) + "/.local/share")
        return ResolvedSetting(
            value: dataHome + "/replan/replan.db", source: xdg == nil ? "default (~/.local/share)" : "$XDG_DATA_HOME")
    }
}

/// `--on-model-error` / `on_model_error`: what a student's night commits when the model fails.
enum ModelErrorChoice: String, ArgumentChoice {
    /// Commit the local rules' edits (the default).
    case local
    /// Commit nothing; the student is retried by the next run.
    case skip

    var policy: UserPipeline.ModelErrorPolicy {
        switch self {
        case .local: .local
        case .skip: .skip
        }
    }

    static func message(_ text: String, label: String) -> String {
        "\(label) must be local or skip, got \(SecretText.shown(text))"
    }

    /// A typo in the flag is a usage error, as it always was.
    static func rejection(_ text: String, option: String) -> CLIError { .usage(message(text, label: option)) }
}
