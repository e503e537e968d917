import Foundation
import Nightly
import Planning
import Synchronization

/// Everything a command needs from the outside world, injected so tests can run commands
/// in-process with a fixed clock, environment and captured output.
package struct CommandContext: Sendable {
    package var arguments: Arguments
    /// `--db`, `--now`, `--api-key-file`, … as parsed for this command line.
    package var globals: GlobalOptions
    package var environment: [String: String]
    package var console: Console
    /// The run's instant: `--now`, else `REPLAN_NOW`, else the clock.
    package var now: Date
    /// The database path (`--db`, `REPLAN_DB`, the configuration file's `database`, systemd's
    /// state directory, or the XDG default).
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

    /// The database: `--db`, else `$REPLAN_DB`, else the configuration file's `database`, else
    /// `$STATE_DIRECTORY/replan.db` (systemd), else `$XDG_DATA_HOME/replan/replan.db`. The file
    /// ranks above the systemd default so that an operator's `sudo -u replan replan …` (no
    /// `STATE_DIRECTORY`) and the service open the same database.
    static func databaseLocation(
        flag: String?, environment env: [String: String],
        configuration: ConfigurationFile
    ) throws(CLIError) -> ResolvedSetting {
        if let p = flag { return ResolvedSetting(value: p, source: "--db") }
        if let p = env["REPLAN_DB"], !p.isEmpty { return ResolvedSetting(value: p, source: "$REPLAN_DB") }
        if let entry = configuration.entries[SettingSpec.database.key], !entry.value.isEmpty {
            let origin = configuration.origin(of: SettingSpec.database.key) ?? "database"
            // A relative path would depend on the directory each command happens to start in.
            guard entry.value.hasPrefix("/") else {
                throw .badInput("\(origin): database must be an absolute path, got '\(entry.value)'")
            }
            return ResolvedSetting(value: entry.value, source: origin)
        }
        if let state = env["STATE_DIRECTORY"], !state.isEmpty {
            // systemd may list several directories separated by ':'; the first is ours.
            return ResolvedSetting(
                value: String(state.split(separator: ":").first!) + "/replan.db", source: "$STATE_DIRECTORY")
        }
        let xdg = env["XDG_DATA_HOME"].flatMap { $0.isEmpty ? nil : $0 }
        let dataHome = xdg ?? ((env["HOME"] ?? NSHomeDirectory()) + "/.local/share")
        return ResolvedSetting(
            value: dataHome + "/replan/replan.db", source: xdg == nil ? "default (~/.local/share)" : "$XDG_DATA_HOME")
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
