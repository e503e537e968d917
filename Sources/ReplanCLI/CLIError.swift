/// A failure the command line reports on stderr with its exit code.
public struct CLIError: Error, CustomStringConvertible {
    public var code: ExitCode
    public var message: String

    public init(_ code: ExitCode, _ message: String) { self.code = code; self.message = message }

    public static func usage(_ message: String) -> CLIError { CLIError(.usage, message) }
    public static func badInput(_ message: String) -> CLIError { CLIError(.badInput, message) }

    public var description: String { message }
}
