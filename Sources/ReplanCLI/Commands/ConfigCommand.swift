import Foundation
import JSON
import Nightly
import Planning

/// `replan config show`: which configuration file and database this command line uses, and
/// every setting with where its value comes from. It also checks the values (exit 65 naming
/// the file and line of a bad one), so an operator can test an edited file before the night.
enum ConfigCommand {
    struct Group: ReplanCommand {
        static let configuration = CommandConfiguration(
            name: "config", abstract: "the configuration in use", subcommands: [Show.self])
    }

    struct Show: ReplanCommand {
        static let configuration = CommandConfiguration(
            name: "show", abstract: "the configuration file and database in use, and every setting with its source",
            discussion: """
                Settings come from a flag, else the environment, else the configuration file
                (--config FILE, $REPLAN_CONFIG, or /etc/replan/replan.conf when it exists), else the default.
                The file holds one 'key = value' per line; '#' starts a comment. Keys:
                \(SettingSpec.all.map { "  \(DisplayWidth.padded($0.key, to: 22)) \($0.help)" }.joined(separator: "\n"))
                """)

        @Flag(name: "--json", help: "print JSON") var json: Bool

        func run(_ ctx: CommandContext) throws -> ExitCode {
            // The same resolution and checks as `run`: a value that would fail tonight fails here.
            let settings = try ReplanSettings(context: ctx)
            let state = ModelAvailability.check(settings, context: ctx)
            let rows = ConfigCommand.rows(settings, model: state)
            if self.json {
                ctx.console.out(
                    JSONValue.object([
                        "schema": "replan.config/1",
                        "configFile": ctx.configuration.path.map { .string($0) } ?? .null,
                        "settings": .object(
                            Dictionary(
                                uniqueKeysWithValues: rows.map { row in
                                    (
                                        row.key,
                                        JSONValue.object([
                                            "value": row.value.map { .string($0) } ?? .null,
                                            "source": .string(row.source),
                                        ])
                                    )
                                })),
                        "model": [
                            "state": .string(ConfigCommand.name(state)), "text": .string(ModelAvailability.text(state)),
                        ],
                    ]).prettyText)
                // The document says why; the exit code says that run would fail.
                if case .broken = state { return .usage }
                return .success
            }
            ctx.console.out(
                "configuration file: \(ctx.configuration.path ?? "none (\(ctx.configuration.absence ?? "not found"))")")
            let width = rows.map { $0.key.count }.max() ?? 0
            for row in rows {
                let key = DisplayWidth.padded(row.key, to: width)
                ctx.console.out("\(key)  \(row.value ?? "-")  (\(row.source))")
            }
            if case .broken(let reason) = state {
                ctx.console.log("replan: \(reason)", priority: .error)
                return .usage
            }
            return .success
        }
    }

    static func name(_ state: HealthCheck.Model) -> String {
        switch state {
        case .on: "on"
        case .off: "off"
        case .broken: "broken"
        case .undetermined: "undetermined"
        }
    }

    struct Row {
        var key: String
        var value: String?
        var source: String
    }

    /// Every setting's effective value and source: as given, else its default.
    static func rows(_ settings: ReplanSettings, model state: HealthCheck.Model) -> [Row] {
        let model = settings.endpoint.effective
        var rows: [Row] = []
        for spec in SettingSpec.all {
            switch spec {
            case .database:
                // A PostgreSQL URI may hold the password: shown by its parts, never as given.
                rows.append(
                    Row(
                        key: spec.key, value: DatabaseLocationText.shown(settings.database.value),
                        source: settings.database.source))
            case .apiKeyFile:
                // Where the key would be read from and whether the service will use the
                // model; the key itself is never printed.
                rows.append(
                    Row(
                        key: "model_stage", value: ModelAvailability.text(state),
                        source: settings.keySource?.description ?? "the sources run reads"))
            default:
                let resolved = settings.given[spec.key]
                var value = resolved?.value
                if spec == .reasoningEffort, value == "" { value = "(not sent)" }
                if resolved == nil {
                    switch spec {
                    case .baseURL: value = model.baseURL
                    case .model: value = model.model
                    case .reasoningEffort: value = model.reasoningEffort
                    case .requestTimeout: value = String(Int(model.requestTimeout))
                    case .maxCompletionTokens: value = String(model.maxCompletionTokens)
                    case .concurrency, .runAfter, .onModelError: value = spec.defaultText
                    case .prompts:
                        value = PromptDirectory.defaultCandidates().first(where: PromptDirectory.holdsTemplates)
                    default: value = nil
                    }
                }
                if let v = value, SecretText.looksSecret(v) { value = "(looks like an API key; not shown)" }
                rows.append(Row(key: spec.key, value: value, source: resolved?.source ?? "default"))
            }
        }
        return rows
    }
}
