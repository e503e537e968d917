import Foundation
import Planning
import Testing

@testable import ReplanCLI

/// Typed commands in process: what a command declares becomes its usage line, help,
/// completion and man page, and its typed values, with errors naming the option and the value.
@Suite struct CommandDeclarationTests {
    enum Shape: String, ArgumentChoice { case circle, square }

    struct Sample: ReplanCommand {
        static let configuration = CommandConfiguration(
            name: "sample", abstract: "a command for the tests", discussion: "Longer text.")

        @Argument(name: "ID", what: "sample id", help: "which sample") var id: String
        @Argument(name: "EXTRA", what: "extra") var extra: String?
        @Option(name: "--user", value: "ID", help: "student id") var user: String
        @Option(name: "--limit", range: 1...10, help: "how many") var limit: Int?
        @Option(name: "--count", help: "any whole number") var count: Int?
        @Option(name: "--from", help: "first date") var from: CivilDate?
        @Option(name: "--windows", help: "on|off") var windows: Bool?
        @Option(name: "--shape", help: "a shape") var shape: Shape?
        @Option(name: "--tag", value: "T", help: "repeatable") var tags: [String]
        @Option(name: "--out", value: "DIR", help: "a directory", completion: .directory) var out: String?
        @Flag(name: "--json", help: "print JSON") var json: Bool
        @OptionGroup(title: "more options") var more: More

        func run(_ ctx: CommandContext) throws -> ExitCode { .success }
    }

    struct More: ArgumentGroup {
        @Flag(name: "--loud", help: "louder") var loud: Bool
        @Option(name: "--level", help: "a level") var level: Int?
    }

    static func parse(_ tokens: [String]) throws(CLIError) -> Sample {
        let descriptor = CommandDescriptor(Sample.self, path: ["sample"])
        return try Sample.parse(Arguments(tokens: tokens, specs: descriptor.options + GlobalOptions.specs))
    }

    static func error(_ tokens: [String]) -> CLIError? {
        do {
            _ = try parse(tokens)
            return nil
        } catch { return error }
    }

    // MARK: declarations → usage, help

    @Test func theUsageLineIsGeneratedFromTheDeclarations() {
        let d = CommandDescriptor(Sample.self, path: ["sample"])
        #expect(
            d.synopsis
                == "sample ID [EXTRA] --user ID [--limit N] [--count N] [--from DATE] [--windows on|off] [--shape circle|square] [--tag T]… [--out DIR] [--json] [more options]"
        )
        #expect(d.summary == "a command for the tests" && d.details == "Longer text.")
        #expect(
            d.options.map(\.name) == [
                "--user", "--limit", "--count", "--from", "--windows", "--shape", "--tag", "--out", "--json", "--loud",
                "--level",
            ])
        #expect(d.options.first { $0.name == "--loud" }?.group == "more options")
        #expect(d.arguments.map(\.name) == ["ID", "EXTRA"])
    }

    @Test func helpListsArgumentsOptionsGroupsAndGlobalOptions() {
        let help = CommandDescriptor(Sample.self, path: ["sample"]).helpText()
        #expect(help.hasPrefix("usage: replan sample ID [EXTRA] --user ID"))
        #expect(help.contains("\narguments:\n  ID  which sample\n"), "an argument without help is not listed")
        #expect(help.contains("\noptions:\n  --user ID "))
        #expect(help.contains("\nmore options:\n  --loud "))
        #expect(help.contains("\nglobal options:\n  --db PATH "))
        #expect(help.contains("  --shape circle|square  "), "choices come from the cases")
    }

    // MARK: typed values

    @Test func typedValuesAreFilledFromTheCommandLine() throws {
        let s = try Self.parse([
            "a1", "--user", "mei", "--limit=3", "--from", "2025-01-06", "--windows", "off", "--shape", "square",
            "--tag", "x", "--tag", "y", "--json", "--loud", "--level", "-2",
        ])
        #expect(s.id == "a1" && s.extra == nil && s.user == "mei" && s.limit == 3 && s.count == nil)
        #expect(s.from == CivilDate("2025-01-06") && s.windows == false && s.shape == .square)
        #expect(s.tags == ["x", "y"] && s.json && s.more.loud && s.more.level == -2 && s.out == nil)
        let defaults = try Self.parse(["a1", "EXTRA", "--user", "u"])
        #expect(defaults.extra == "EXTRA" && !defaults.json && defaults.tags.isEmpty && defaults.windows == nil)
    }

    @Test func aBadValueNamesTheOptionAndTheValue() {
        let cases: [([String], ExitCode, String)] = [
            (
                ["a", "--user", "u", "--limit", "11"], .badInput,
                "--limit must be a whole number from 1 to 10, got '11'"
            ),
            (["a", "--user", "u", "--count", "x"], .badInput, "--count must be a whole number, got 'x'"),
            (["a", "--user", "u", "--from", "2025-13-01"], .badInput, "--from '2025-13-01' is not a date YYYY-MM-DD"),
            (["a", "--user", "u", "--windows", "maybe"], .badInput, "--windows must be on or off, got 'maybe'"),
            (["a", "--user", "u", "--shape", "cube"], .badInput, "--shape must be circle or square, got 'cube'"),
            (["a", "--user", "u", "--more-level", "1"], .usage, "unknown option --more-level"),
        ]
        for (tokens, code, message) in cases {
            let error = Self.error(tokens)
            #expect(
                error?.code == code && error?.message.hasPrefix(message) == true,
                "\(tokens): \(String(describing: error))")
        }
    }

    @Test func missingAndStrayArgumentsAreUsageErrors() {
        let cases: [([String], String)] = [
            (["--user", "u"], "missing sample id"), (["a"], "--user is required"),
            (["a", "b", "c", "--user", "u"], "unexpected argument 'c'"), (["a", "--user"], "--user needs a value"),
            (["a", "--user", "u", "--json=yes"], "--json takes no value"),
            (["a", "--user", "u", "--user", "v"], "--user given twice"),
            (["a", "--user", "u", "--jsno"], "unknown option --jsno; did you mean --json?"),
        ]
        for (tokens, message) in cases {
            let error = Self.error(tokens)
            #expect(
                error?.code == .usage && error?.message.hasPrefix(message) == true,
                "\(tokens): \(String(describing: error))")
        }
    }

    // MARK: the real table

    @Test func everyCommandsUsageLineStartsWithItsWordsAndNamesEachOptionOnce() {
        for d in CommandTable.all {
            #expect(d.synopsis.hasPrefix(d.name), "\(d.name): \(d.synopsis)")
            let names = d.options.map(\.name)
            #expect(Set(names).count == names.count, "\(d.name) declares an option twice: \(names)")
            for o in d.options where o.group == nil {
                #expect(d.synopsis.contains(Usage.item(o)), "\(d.name): \(o.name) is in its usage line")
            }
        }
    }

    @Test func everySettingsFlagIsDeclaredByACommandOrIsGlobal() {
        let declared = Set(CommandTable.all.flatMap { $0.options.map(\.name) } + GlobalOptions.specs.map(\.name))
        for setting in SettingSpec.all {
            guard let flag = setting.flag else { continue }
            #expect(declared.contains(flag), "\(setting.key): \(flag)")
        }
    }

    @Test func completionAndTheManPageComeFromTheDeclarations() {
        let bash = CompletionCommand.bash()
        #expect(bash.contains("--format) COMPREPLY=($(compgen -W \"json ics\" -- \"$cur\")); return ;;"))
        #expect(bash.contains("--out) COMPREPLY=($(compgen -d -- \"$cur\")); return ;;"))
        #expect(bash.contains("--keep-export) COMPREPLY=($(compgen -f -- \"$cur\")); return ;;"))
        #expect(bash.contains("--windows) COMPREPLY=($(compgen -W \"on off\" -- \"$cur\")); return ;;"))
        #expect(bash.contains("\"task add\") opts=\"--user --title "))
        let fish = CompletionCommand.fish()
        #expect(
            fish.contains("-l shape") == false
                && fish.contains("__fish_seen_subcommand_from log' -l status -r -f -a 'changed"))
        let page = ManPageCommand.page()
        for d in CommandTable.all {
            for o in d.options { #expect(page.contains(ManPageCommand.escape(Usage.item(o))), "\(d.name) \(o.name)") }
        }
    }

    @Test func aGroupWithoutARunOfItsOwnIsNotACommand() {
        let paths = CommandTable.all.map(\.path)
        #expect(!paths.contains(["task"]) && paths.contains(["task", "add"]))
        #expect(paths.contains(["outbox"]) && paths.contains(["outbox", "ack"]), "outbox runs and has a subcommand")
        #expect(paths.first == ["user", "add"] && paths.last == ["man"], "the overview keeps the table's order")
    }

    // MARK: through the command line, in process

    static func run(_ tokens: [String]) -> (ExitCode, Captured) { Captured.run(tokens) }

    @Test func aTypedErrorStopsTheCommandBeforeItOpensTheDatabase() {
        let db = NSTemporaryDirectory() + "replan-declarations-\(UUID().uuidString).db"
        for (tokens, code, message) in [
            (["log", "--limit", "0"], ExitCode.badInput, "--limit must be a whole number from 1 to 10000, got '0'"),
            (["redo"], .usage, "missing CHANGESET id"), (["task", "list"], .usage, "--user is required"),
            (["settings", "set", "--user", "u", "--windows", "sometimes"], .badInput, "--windows must be on or off"),
            (
                ["task", "add", "--user", "u", "--title", "t", "--start", "s", "--end", "e"], .usage,
                "--category is required: every task needs a specific category"
            ),
        ] {
            let (result, captured) = Self.run(tokens + ["--db", db])
            #expect(result == code && captured.stderr.contains(message), "\(tokens): \(captured.stderr)")
        }
        #expect(!FileManager.default.fileExists(atPath: db), "nothing was opened or created")
    }

    @Test func feedsHelpNamesTheDefaultsTheCommandUses() {
        // The --days-back help once said 30 while the command used 14.
        let (code, captured) = Self.run(["feeds", "--help"])
        #expect(code == .success)
        #expect(captured.stdout.contains("days before today in each feed (default 14)"), "\(captured.stdout)")
        #expect(!captured.stdout.contains("(default 30)"), "\(captured.stdout)")
    }

    @Test func helpIsTheGeneratedTextOnStdout() throws {
        for d in CommandTable.all {
            let (code, captured) = Self.run(d.path + ["--help"])
            #expect(code == .success && captured.stdout == d.helpText(), "\(d.name)")
        }
    }
}
