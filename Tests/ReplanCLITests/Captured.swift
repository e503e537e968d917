import ReplanTestSupport

@testable import ReplanCLI

/// What an in-process console printed on each stream, from whichever thread printed it.
struct Captured: Sendable {
    let out = Shared<[String]>()
    let err = Shared<[String]>()

    func appendOut(_ text: String) { out.append(text) }
    func appendErr(_ text: String) { err.append(text) }

    var stdout: String { out.all.joined() }
    var stderr: String { err.all.joined() }
}

extension Captured {
    /// Runs a command line in process with a console that captures both streams.
    static func run(_ tokens: [String], environment: [String: String] = ["HOME": "/nonexistent"]) -> (
        ExitCode, Captured
    ) {
        let captured = Captured()
        let console = Console(
            stdoutIsTTY: false, stderrIsTTY: false, stdinIsTTY: false, noColor: true, journal: false,
            writeOut: { captured.appendOut($0) }, writeErr: { captured.appendErr($0) })
        return (ReplanCommandLine.run(tokens, environment: environment, console: console), captured)
    }
}
