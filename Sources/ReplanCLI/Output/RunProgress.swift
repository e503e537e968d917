import Foundation
import Nightly
import Synchronization

/// Progress of `replan run` on stderr: a bar redrawn in place on a terminal (users done / due,
/// changed, failed, tokens, ETA), otherwise a summary line at most every five seconds.
final class RunProgress: Sendable {
    private struct State {
        var lastPrint = Date.distantPast
        var drawn = false
    }
    /// How much `run` says: `quiet` only errors, `normal` one line per run and one per failed
    /// or model-error student, `verbose` also a line per student and, off a terminal, progress.
    enum Verbosity: Sendable { case quiet, normal, verbose }

    private let console: Console
    private let verbosity: Verbosity
    private let started = Date()
    /// Held while printing, so the bar and the lines never interleave.
    private let state = Mutex(State())

    init(console: Console, verbosity: Verbosity = .normal) {
        self.console = console
        self.verbosity = verbosity
    }

    func update(_ r: NightlyRunner.Report) {
        state.withLock { s in
            let now = Date()
            if console.stderrRedraws && !console.journal && verbosity != .quiet {
                guard now.timeIntervalSince(s.lastPrint) > 0.1 else { return }
                s.lastPrint = now
                let width = 24
                let fraction = r.due == 0 ? 0 : Double(r.done) / Double(r.due)
                let filled = Int(fraction * Double(width))
                let bar = String(repeating: "█", count: filled) + String(repeating: "░", count: width - filled)
                let elapsed = now.timeIntervalSince(started)
                let eta = r.done == 0 ? "?" : "\(Int(elapsed / Double(r.done) * Double(max(r.due - r.done, 0))))s"
                console.err(
                    "\r\u{1B}[2K\(bar) \(r.done)/\(r.due) users, \(r.changed) changed, \(r.failed) failed, \(r.tokens.total) tokens, ETA \(eta)"
                )
                s.drawn = true
            } else if verbosity == .verbose, now.timeIntervalSince(s.lastPrint) >= 5 {
                s.lastPrint = now
                console.log(
                    "progress: \(r.done)/\(r.due) users done, \(r.changed) changed, \(r.failed) failed, \(r.tokens.total) tokens"
                )
            }
        }
    }

    /// A message line that must not be overwritten by the bar.
    func line(_ text: String) {
        state.withLock { s in
            if s.drawn { console.err("\r\u{1B}[2K") }
            console.out(text)
        }
    }

    /// A log line on stderr (with its journald priority) that must not be overwritten by the bar;
    /// under `quiet` only errors.
    func log(_ text: String, priority: LogPriority) {
        if verbosity == .quiet, priority != .error { return }
        state.withLock { s in
            if s.drawn { console.err("\r\u{1B}[2K") }
            console.log(text, priority: priority)
        }
    }

    func finish() {
        state.withLock { s in if s.drawn { console.err("\r\u{1B}[2K") } }
    }
}
