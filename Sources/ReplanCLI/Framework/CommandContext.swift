import Foundation
import Nightly
import Planning
import Synchronization

/// Everything a command needs from the outside world, injected so tests can run commands
/// in-process with a fixed clock, environment and captured output.
package struct CommandContext: Sendable {
    /// `--db`, `--now`, `--api-key-file`, … as parsed for this command line. (The command's own
    /// options are its declarations, filled from the same parse: `ParsedCommandLine`.)
    package var globals: GlobalOptions
    package var environment: [String: String]
    package var console: Console
    /// The run's instant: `--now`, else `REPLAN_NOW`, else the clock.
    package var now: Date
    /// The database path (`--db`, `REPLAN_DB`, the configuration file's `database`, systemd's
    /// state directory, or the XDG default: `ReplanSettings.databaseLocation`).
    package var databasePath: String
    /// Where `databasePath` came from, for `config show` and "no database at …" messages.
    var databaseSource: String = "default"
    /// The configuration file read for this command (`/etc/replan/replan.conf` by default).
    var configuration: ConfigurationFile = .none
    /// Set by SIGINT/SIGTERM handlers; long-running commands check it between units of work.
    package var interruption: Interruption

    /// The `--now` / `REPLAN_NOW` instant, or nil to use the clock.
    static func parseNow(_ text: String?, source: String) throws(CLIError) -> Date? {
        guard let text, !text.isEmpty else { return nil }
        guard let date = Timestamp.date(text) else {
            // A bad value, like every other bad value: exit 65.
            throw .badInput(
                "\(source) '\(text)' is not an ISO-8601 instant with an offset, e.g. 2025-01-07T03:00:00+08:00 or 2025-01-06T19:00:00Z"
            )
        }
        return date
    }
}

/// A flag raised by a signal handler and read by the work loop: stop after the current unit.
/// Raising it also cancels `cancellation`, so a model request in flight ends at once instead
/// of holding the run for up to the request timeout.
package final class Interruption: Sendable {
    private struct State {
        var signal: Int32?
        var graceful = false
        var paging = false
    }
    private let state = Mutex(State())
    /// Handed to the model client; cancelled when the interruption is raised.
    package let cancellation = CancellationToken()

    package init() {}

    /// Called by commands that stop cleanly between units of work (`run`, `preview`): a signal
    /// then only raises the flag. Every other command is ended at once by a signal, which is
    /// safe because an open SQLite transaction that never committed leaves no trace.
    package func handleGracefully() { state.withLock { $0.graceful = true } }
    package var isGraceful: Bool { state.withLock { $0.graceful } }

    /// While a pager shows the output, Ctrl-C is the pager's (less stops a search with it):
    /// SIGINT is then ignored, so replan waits for the pager instead of leaving it running.
    func setPaging(_ paging: Bool) { state.withLock { $0.paging = paging } }
    var isPaging: Bool { state.withLock { $0.paging } }

    package func raise(_ signal: Int32) {
        state.withLock { if $0.signal == nil { $0.signal = signal } }
        cancellation.cancel()
    }
    package var raisedSignal: Int32? { state.withLock { $0.signal } }
    package var isRaised: Bool { raisedSignal != nil }

    /// The exit code docs/commands.md §5 gives an interrupted run.
    package var exitCode: ExitCode { raisedSignal == SIGTERM ? .terminated : .interrupted }
}
