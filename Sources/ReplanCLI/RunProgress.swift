import Foundation
import Nightly

/// Progress of `replan run` on stderr: a bar redrawn in place on a terminal (users done / due,
/// changed, failed, tokens, ETA), otherwise a summary line at most every five seconds.
final class RunProgress: @unchecked Sendable {
    private let console: Console
    private let lock = NSLock()
    private let started = Date()
    private var lastPrint = Date.distantPast
    private var drawn = false

    init(console: Console) { self.console = console }

    func update(_ r: NightlyRunner.Report) {
        lock.withLock {
            let now = Date()
            if console.stderrRedraws && !console.journal {
                guard now.timeIntervalSince(lastPrint) > 0.1 else { return }
                lastPrint = now
                let width = 24
                let fraction = r.due == 0 ? 0 : Double(r.done) / Double(r.due)
                let filled = Int(fraction * Double(width))
                let bar = String(repeating: "█", count: filled) + String(repeating: "░", count: width - filled)
                let elapsed = now.timeIntervalSince(started)
                let eta = r.done == 0 ? "?" : "\(Int(elapsed / Double(r.done) * Double(max(r.due - r.done, 0))))s"
                console.err(
                    "\r\u{1B}[2K\(bar) \(r.done)/\(r.due) users, \(r.changed) changed, \(r.failed) failed, \(r.tokens.total) tokens, ETA \(eta)"
                )
                drawn = true
            } else if now.timeIntervalSince(lastPrint) >= 5 {
                lastPrint = now
                console.log(
                    "progress: \(r.done)/\(r.due) users done, \(r.changed) changed, \(r.failed) failed, \(r.tokens.total) tokens"
                )
            }
        }
    }

    /// A message line that must not be overwritten by the bar.
    func line(_ text: String) {
        lock.withLock {
            if drawn { console.err("\r\u{1B}[2K") }
            console.out(text)
        }
    }

    /// A log line on stderr (with its journald priority) that must not be overwritten by the bar.
    func log(_ text: String, priority: LogPriority) {
        lock.withLock {
            if drawn { console.err("\r\u{1B}[2K") }
            console.log(text, priority: priority)
        }
    }

    func finish() {
        lock.withLock { if drawn { console.err("\r\u{1B}[2K") } }
    }
}
