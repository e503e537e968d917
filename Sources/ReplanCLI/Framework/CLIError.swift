/// A failure the command line reports on stderr with its exit code.
package struct CLIError: Error, CustomStringConvertible {
    package var code: ExitCode
    package var message: String

    package init(_ code: ExitCode, _ message: String) {
        self.code = code
        self.message = message
    }

    package static func usage(_ message: String) -> CLIError { CLIError(.usage, message) }
    package static func badInput(_ message: String) -> CLIError { CLIError(.badInput, message) }

    package var description: String { message }
}
