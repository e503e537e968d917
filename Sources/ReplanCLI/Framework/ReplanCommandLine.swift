import Foundation
import JSON
import Planning

/// Entry point of the `replan` command line: finds the command, parses its options, runs it
/// and turns errors into messages and exit codes.
package enum ReplanCommandLine {
    /// Runs the process's own command line and exits.
    package static func main() -> Never {
        let environment = ProcessInfo.processInfo.environment
        let console = Console.standard(environment: environment)
        let interruption = SignalTrap.install()
        let code = run(
            Array(CommandLine.arguments.dropFirst()), environment: environment, console: console,
            interruption: interruption)
        exit(code.rawValue)
    }

    /// Runs one command line in-process (tests call this directly).
    package static func run(
        _ tokens: [String], environment: [String: String], console: Console,
        interruption: Interruption = Interruption()
    ) -> ExitCode {
        // `replan help [COMMAND…]` is `replan [COMMAND…] --help`.
        if tokens.first == "help" {
            return run(
                Array(tokens.dropFirst()) + ["--help"], environment: environment, console: console,
                interruption: interruption)
        }
        let line = ParsedCommandLine(tokens)
        if line.arguments.flag("--version") {
            console.out("replan \(ReplanVersion.current)")
            return .success
        }
        let wantsJSON = line.arguments.flag("--json")
        do {
            if let failure = line.failure { throw failure }
            guard let descriptor = line.command else {
                console.out(CommandTable.overview())
                return line.asksHelp || tokens.isEmpty ? .success : .usage
            }
            let globals = try GlobalOptions.parse(line.arguments)
            if let mode = globals.color { console.setColorMode(mode) }
            if globals.help {
                console.out(descriptor.helpText())
                return .success
            }
            let now =
                try CommandContext.parseNow(globals.now, source: "--now")
                ?? CommandContext.parseNow(environment["REPLAN_NOW"], source: "REPLAN_NOW")
                ?? Date()
            let configuration = try ConfigurationFile.load(flag: globals.config, environment: environment)
            let database = try ReplanSettings.databaseLocation(
                flag: globals.db, environment: environment, configuration: configuration)
            var context = CommandContext(
                globals: globals, environment: environment, console: console, now: now,
                databasePath: database.value, interruption: interruption)
            context.databaseSource = database.source
            context.configuration = configuration
            return try descriptor.run(line.arguments, context)
        } catch let error as CLIError {
            console.log("replan: \(error.message)", priority: error.code == .usage ? .warning : .error)
            if error.code == .usage { console.log("(run 'replan --help' for the commands)") }
            if wantsJSON { console.out(errorJSON(error.code, error.message)) }
            return error.code
        } catch let error as DataError {
            console.log("replan: \(error)", priority: .error)
            if wantsJSON { console.out(errorJSON(.badInput, "\(error)")) }
            return .badInput
        } catch {
            console.log("replan: internal error: \(error)", priority: .error)
            if wantsJSON { console.out(errorJSON(.internalError, "internal error: \(error)")) }
            return .internalError
        }
    }

    /// Under `--json` a failure is also a JSON document on stdout, so a script reading stdout
    /// gets an answer it can parse either way; the message stays on stderr for people.
    static func errorJSON(_ code: ExitCode, _ message: String) -> String {
        JSONValue.object([
            "schema": "replan.error/1",
            "error": ["exitCode": .int(Int(code.rawValue)), "kind": .string(code.kind), "message": .string(message)],
        ]).prettyText
    }
}
