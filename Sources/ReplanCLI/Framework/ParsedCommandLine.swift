/// The command line, parsed once: the command its words name, and its tokens tokenized
/// against that command's options and the global ones. `ReplanCommandLine` asks this value
/// whether `--version`, `--json` and `--help` were given (also on a line that fails, so a
/// failure under `--json` is still a JSON document), and the command fills its declarations
/// from `arguments`; nothing else looks at the raw tokens.
struct ParsedCommandLine: Sendable {
    /// The command to run, or its group's help (`replan task --help`); nil: the overview.
    var command: CommandDescriptor?
    var arguments: Arguments
    /// The first thing wrong with the line: an unknown command, a group without its
    /// subcommand, an unknown option, a missing value.
    var failure: CLIError?

    init(_ tokens: [String]) {
        switch CommandTable.find(tokens) {
        case .command(let descriptor, let rest):
            command = descriptor
            arguments = Arguments(scanning: rest, specs: descriptor.options + GlobalOptions.specs)
            failure = arguments.problem
        case .group(let help, let error, let rest):
            arguments = Arguments(scanning: rest, specs: GlobalOptions.specs)
            if arguments.flag("--help") {
                command = help
                failure = arguments.problem
            } else {
                failure = error
            }
        case .none:
            // `replan --db x` prints the overview; an option it does not know changes nothing.
            arguments = Arguments(scanning: tokens, specs: GlobalOptions.specs)
        case .unknown(let error):
            arguments = Arguments(scanning: tokens, specs: GlobalOptions.specs)
            failure = error
        }
    }

    /// Whether the line asked for help (`--help`, `-h`).
    var asksHelp: Bool { arguments.flag("--help") }
}
