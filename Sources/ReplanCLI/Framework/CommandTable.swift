/// `replan` itself: every command of the README's table, in the order the overview lists them.
struct Replan: ReplanCommand {
    static let configuration = CommandConfiguration(
        name: "replan", abstract: "the nightly calendar assistant of a study planner",
        subcommands: [
            UserCommands.Group.self, SettingsCommands.Group.self, TaskCommands.Group.self, ImportCommand.self,
            ExportCommand.self, FeedsCommand.self, WeekCommand.self, OutboxCommand.List.self, PruneCommand.self,
            StatsCommand.self, NightlyCommands.Run.self, NightlyCommands.Preview.self, NightlyCommands.Undo.self,
            NightlyCommands.Redo.self, LogCommand.self, NightCommand.self, NightlyCommands.Show.self, NoteCommand.self,
            StatusCommand.self,
            ConfigCommand.Group.self, CopyDatabaseCommand.self,
            DemoCommand.self, CompletionCommand.self, ManPageCommand.self,
        ])
}

/// All commands of the README's table and how a command line finds one.
enum CommandTable {
    /// Every runnable command, generated once from the command types' declarations.
    static let all: [CommandDescriptor] = Replan.configuration.subcommands.flatMap { $0.descriptors(under: []) }

    /// What the first non-option words of a command line name.
    enum Found {
        /// A command, and the tokens without its words.
        case command(CommandDescriptor, rest: [String])
        /// A group's word (`task`), without a subcommand of it: its help when asked for
        /// (`replan task --help`), else `error`. `rest` is the tokens without the words.
        case group(help: CommandDescriptor, error: CLIError, rest: [String])
        /// No command word at all (`replan`, `replan --help`): the overview.
        case none
        /// Words that name no command.
        case unknown(CLIError)
    }

    /// The command named by the first non-option words, and the tokens without those words.
    /// Global options may come first (`replan --db x.db run`).
    static func find(_ tokens: [String]) -> Found {
        var wordPositions: [Int] = []
        var i = 0
        while i < tokens.count {
            let t = tokens[i]
            if t == "--" { break }
            if t.hasPrefix("-") {
                if GlobalOptions.valued.contains(t) { i += 1 }
                i += 1
                continue
            }
            // Command words come before any command option; stop at the first option-like value.
            wordPositions.append(i)
            if wordPositions.count == 2 { break }
            i += 1
            if i < tokens.count, tokens[i].hasPrefix("-"), !GlobalOptions.valued.contains(tokens[i]),
                !GlobalOptions.specs.contains(where: { $0.name == tokens[i] })
            {
                break
            }
        }
        let words = wordPositions.map { tokens[$0] }
        func without(_ positions: ArraySlice<Int>) -> [String] {
            var rest = tokens
            for p in positions.reversed() { rest.remove(at: p) }
            return rest
        }
        for length in stride(from: words.count, through: 1, by: -1) {
            let path = Array(words.prefix(length))
            if let d = all.first(where: { $0.path == path }) {
                return .command(d, rest: without(wordPositions.prefix(length)))
            }
        }
        guard let first = words.first else { return .none }
        let group = all.filter { $0.path.first == first }
        guard !group.isEmpty else {
            let hint = Suggestion.closest(to: first, among: topLevelWords).map { " (did you mean '\($0)'?)" } ?? ""
            return .unknown(.usage("unknown command '\(first)'\(hint)"))
        }
        let subcommands = group.map { $0.path.dropFirst().joined(separator: " ") }
        let error: CLIError
        if words.count == 1 {
            error = .usage("'\(first)' needs a subcommand: \(subcommands.joined(separator: ", "))")
        } else {
            let hint =
                Suggestion.closest(to: words[1], among: subcommands).map { " (did you mean '\(first) \($0)'?)" } ?? ""
            error = .usage(
                "unknown command '\(words.joined(separator: " "))'\(hint); '\(first)' has: \(subcommands.joined(separator: ", "))"
            )
        }
        // `replan task --help` is a question, not a mistake: it lists the subcommands.
        return .group(help: groupHelp(first, group), error: error, rest: without(wordPositions[...]))
    }

    /// The first words of all commands (`run`, `user`, `task`, …), in table order.
    static var topLevelWords: [String] {
        var seen: [String] = []
        for d in all where !seen.contains(d.path[0]) { seen.append(d.path[0]) }
        return seen
    }

    /// What the group type named `name` (`task`) says of itself, if it says anything.
    static func groupAbstract(_ name: String) -> String? {
        let abstract = Replan.configuration.subcommands.first { $0.configuration.name == name }?.configuration.abstract
        return abstract?.isEmpty == false ? abstract : nil
    }

    /// A help-only command for a group of subcommands (`replan user --help`).
    static func groupHelp(_ name: String, _ group: [CommandDescriptor]) -> CommandDescriptor {
        let names = group.map { $0.path.dropFirst().joined(separator: " ") }.joined(separator: ", ")
        return CommandDescriptor(
            path: [name], synopsis: "\(name) SUBCOMMAND [OPTIONS]   (replan \(name) SUBCOMMAND --help for details)",
            summary: (groupAbstract(name).map { "\($0); " } ?? "") + "subcommands: \(names)",
            details: group.map { "  replan \($0.synopsis)\n      \($0.summary)" }.joined(separator: "\n")
        ) { _, _ in throw CLIError.usage("'\(name)' needs a subcommand: \(names)") }
    }

    static func overview() -> String {
        var text = """
            replan — the nightly calendar assistant of a study planner.

            usage: replan COMMAND [OPTIONS]   (replan COMMAND --help for details)

            commands:

            """
        let width = all.map { $0.name.count }.max() ?? 0
        for d in all {
            text += "  \(DisplayWidth.padded(d.name, to: width))  \(d.summary)\n"
        }
        text += "\nglobal options: --db PATH, --config FILE, --now INSTANT, --api-key-file FILE, --prompts DIR,\n"
        text += "                --color auto|always|never, --version, --help\n"
        text +=
            "configuration: /etc/replan/replan.conf (or --config, $REPLAN_CONFIG); replan config show says what is used\n"
        text += "exit codes: 0 ok, 1 some users failed, 2 conflicts, 64 usage, 65 bad input, 69 model unavailable,\n"
        text += "            70 internal error, 73 cannot open database, 75 locked, 130/143 interrupted;\n"
        text += "            status: 0 OK, 1 WARNING, 2 CRITICAL, 3 UNKNOWN\n"
        return text
    }
}
