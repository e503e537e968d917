/// What a command says about itself beside its declarations: its word, a one-line abstract
/// for lists, a discussion for `--help` and the man page, and its subcommands.
package struct CommandConfiguration: Sendable {
    /// The command's word (`add` in `replan task add`).
    package var name: String
    package var abstract: String
    package var discussion: String
    package var subcommands: [any ReplanCommand.Type]
    /// Whether the command runs by itself as well as having subcommands (`outbox`,
    /// `outbox ack`); a group that is only a name (`task`) does not.
    package var runsWithoutSubcommand: Bool

    package init(
        name: String, abstract: String = "", discussion: String = "", subcommands: [any ReplanCommand.Type] = [],
        runsWithoutSubcommand: Bool? = nil
    ) {
        self.name = name
        self.abstract = abstract
        self.discussion = discussion
        self.subcommands = subcommands
        self.runsWithoutSubcommand = runsWithoutSubcommand ?? subcommands.isEmpty
    }
}

/// One command of `replan`: a type whose stored properties (`@Option`, `@Flag`, `@Argument`,
/// `@OptionGroup`) declare its options once. The usage line, `--help`, shell completion and
/// the man page are generated from those declarations; `run` reads them as typed values.
///
/// To add a command: declare a struct conforming to this protocol (its configuration, its
/// options as properties, `run`), and list it in `Replan.configuration.subcommands`
/// (`CommandTable.swift`), or in its group's `subcommands`. A value of a new type converts
/// through `ExpressibleByArgument`; a fixed set of words is an `ArgumentChoice` enum.
package protocol ReplanCommand: Sendable {
    static var configuration: CommandConfiguration { get }
    init()
    func run(_ ctx: CommandContext) throws -> ExitCode
}

extension ReplanCommand {
    /// A group that is only a name never runs: the table answers for it.
    package func run(_ ctx: CommandContext) throws -> ExitCode {
        let names = Self.configuration.subcommands.map { $0.configuration.name }.joined(separator: ", ")
        throw CLIError.usage("'\(Self.configuration.name)' needs a subcommand: \(names)")
    }

    /// The declarations of this command, in order.
    static var declarations: [Declaration] { Declarations.described(Self()) }

    /// A command value with every declaration filled from `arguments`.
    static func parse(_ arguments: Arguments) throws(CLIError) -> Self {
        let command = Self()
        try Declarations.fill(command, from: arguments)
        return command
    }

    /// The runnable commands of this type and its subcommands, as the table lists them.
    static func descriptors(under prefix: [String]) -> [CommandDescriptor] {
        let path = prefix + [configuration.name]
        var result: [CommandDescriptor] = []
        if configuration.runsWithoutSubcommand { result.append(CommandDescriptor(Self.self, path: path)) }
        for sub in configuration.subcommands { result += sub.descriptors(under: path) }
        return result
    }
}
