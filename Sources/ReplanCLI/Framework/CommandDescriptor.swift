/// One runnable command as the table lists it: its words and what its type declares, with the
/// usage line generated from the declarations, and how to run it.
package struct CommandDescriptor: Sendable {
    package var path: [String]
    /// Generated from the declarations (`task list --user ID [--from DATE] …`).
    package var synopsis: String
    package var summary: String
    /// Extra help text printed under the synopsis (may be empty).
    package var details: String
    package var options: [OptionSpec]
    package var arguments: [ArgumentSpec]
    /// Fills the command's declarations from the parsed line and runs it.
    package var run: @Sendable (Arguments, CommandContext) throws -> ExitCode

    /// The descriptor of a command type: everything but the path comes from the type.
    init<Command: ReplanCommand>(_ command: Command.Type, path: [String]) {
        let declarations = Command.declarations
        self.path = path
        synopsis = Usage.synopsis(path: path, declarations: declarations)
        summary = Command.configuration.abstract
        details = Command.configuration.discussion
        options = declarations.compactMap {
            if case .option(let o) = $0 { return o }
            return nil
        }
        arguments = declarations.compactMap {
            if case .argument(let a) = $0 { return a }
            return nil
        }
        run = { arguments, ctx in try Command.parse(arguments).run(ctx) }
    }

    /// A help-only entry (a group's `--help`), described by hand from its members.
    init(
        path: [String], synopsis: String, summary: String, details: String,
        run: @escaping @Sendable (Arguments, CommandContext) throws -> ExitCode
    ) {
        self.path = path
        self.synopsis = synopsis
        self.summary = summary
        self.details = details
        options = []
        arguments = []
        self.run = run
    }

    package var name: String { path.joined(separator: " ") }

    /// The `--help` text of this command, global options included.
    package func helpText() -> String { Usage.help(self) }
}

/// Options every command accepts, before or after the command name: declared once, like a
/// command's own; help, completion and the man page list them from these declarations.
package struct GlobalOptions: ArgumentGroup {
    @Option(
        name: "--db", value: "PATH",
        help:
            "database file (default: $REPLAN_DB, the configuration's database, $STATE_DIRECTORY/replan.db, ~/.local/share/replan/replan.db)",
        completion: .file)
    package var db: String?
    @Option(
        name: "--config", value: "FILE",
        help: "configuration file (default: $REPLAN_CONFIG or /etc/replan/replan.conf when it exists)",
        completion: .file)
    package var config: String?
    @Option(
        name: "--now", value: "INSTANT",
        help: "pretend it is this instant, ISO-8601 with offset (default: $REPLAN_NOW or the clock)")
    package var now: String?
    @Option(name: "--api-key-file", value: "FILE", help: "file holding the model API key", completion: .file)
    package var apiKeyFile: String?
    @Option(
        name: "--prompts", value: "DIR", help: "directory of system-prompt templates (default: the installed prompts/)",
        completion: .directory)
    package var prompts: String?
    @Option(
        name: "--color", value: "auto|always|never",
        help: "auto (default: on a terminal, without NO_COLOR or TERM=dumb), always or never")
    package var color: ColorMode?
    @Flag(name: "--version", help: "print the version") package var version: Bool
    @Flag(name: "--help", help: "show this help") package var help: Bool

    package init() {}

    /// The declarations as option specs, for the parser, help, completion and the man page.
    package static let specs: [OptionSpec] = Declarations.described(GlobalOptions()).compactMap {
        if case .option(let o) = $0 { return o }
        return nil
    }

    /// Global options that take a value, so the command name can be found around them.
    static let valued: Set<String> = Set(specs.filter(\.takesValue).map(\.name))

    /// The global options of a parsed command line (positionals are the command's business).
    static func parse(_ arguments: Arguments) throws(CLIError) -> GlobalOptions {
        let options = GlobalOptions()
        var position = 0
        for declaration in Declarations.of(options) { try declaration.fill(from: arguments, position: &position) }
        return options
    }
}

/// `--color`: whether the output is coloured; a terminal's colour only (a task's colour is
/// `task add|edit --task-color`).
extension ColorMode: ArgumentChoice {
    package static func rejection(_ text: String, option: String) -> CLIError {
        // The option a task's colour had before it was `--task-color`.
        let hint = ["red", "yellow", "green", "blue"].contains(text) ? "; a task's colour is --task-color \(text)" : ""
        return .badInput("\(option) must be \(choiceList), got '\(text)'\(hint)")
    }
}
