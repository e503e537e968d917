/// One command of the `replan` command line: its words, help, options and what it does.
package struct CommandDescriptor: Sendable {
    package var path: [String]
    package var synopsis: String
    package var summary: String
    /// Extra help text printed under the synopsis (may be empty).
    package var details: String
    package var options: [OptionSpec]
    package var run: @Sendable (CommandContext) throws -> ExitCode

    package init(
        path: [String], synopsis: String, summary: String, details: String = "", options: [OptionSpec],
        run: @escaping @Sendable (CommandContext) throws -> ExitCode
    ) {
        self.path = path
        self.synopsis = synopsis
        self.summary = summary
        self.details = details
        self.options = options
        self.run = run
    }

    package var name: String { path.joined(separator: " ") }

    /// The `--help` text of this command, global options included.
    package func helpText() -> String {
        var text = "usage: replan \(synopsis)\n\n\(summary)\n"
        if !details.isEmpty { text += "\n\(details)\n" }
        // A command's own option wins over a global one of the same name (`task add --color`).
        let all = options + GlobalOptions.specs.filter { g in !options.contains { $0.name == g.name } }
        if !all.isEmpty {
            text += "\noptions:\n"
            let width = all.map { $0.name.count + ($0.takesValue ? 6 : 0) }.max() ?? 0
            for o in all {
                let left = o.name + (o.takesValue ? " VALUE" : "")
                text += "  \(DisplayWidth.padded(left, to: width))  \(o.help)\n"
            }
        }
        return text
    }
}

/// Options every command accepts, before or after the command name.
package enum GlobalOptions {
    package static let specs: [OptionSpec] = [
        .value(
            "--db",
            "database file (default: $REPLAN_DB, the configuration's database, $STATE_DIRECTORY/replan.db, ~/.local/share/replan/replan.db)"
        ),
        .value("--config", "configuration file (default: $REPLAN_CONFIG or /etc/replan/replan.conf when it exists)"),
        .value("--now", "pretend it is this instant, ISO-8601 with offset (default: $REPLAN_NOW or the clock)"),
        .value("--api-key-file", "file holding the model API key"),
        .value("--prompts", "directory of system-prompt templates (default: the installed prompts/)"),
        .value("--color", "auto (default: on a terminal, without NO_COLOR or TERM=dumb), always or never"),
        .flag("--version", "print the version"),
        .flag("--help", "show this help"),
    ]

    /// Global options that take a value, so the command name can be found around them.
    static let valued: Set<String> = Set(specs.filter(\.takesValue).map(\.name))
}
