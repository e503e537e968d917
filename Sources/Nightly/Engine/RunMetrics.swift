import Foundation
import Planning
import Store

/// The metrics of the latest run in the Prometheus text exposition format, for the
/// node_exporter textfile collector: written after every run, replaced atomically (a scrape
/// never reads half a file).
///
/// Decision: these are gauges of the last run (`replan_last_run_…`), not counters. Each run
/// is a separate process and history is pruned, so a counter would need state of its own;
/// a monitor gets rates and sums from the gauges' series (`sum_over_time`) instead.
package struct RunMetrics: Sendable {
    package var report: NightlyRunner.Report
    /// The run's own clock (`--now` in a reproduction), as `log` records it.
    package var startedAt: Date
    package var finishedAt: Date
    /// Chat Completions requests sent during the run.
    package var modelRequests = 0
    package var outboxRows = 0
    package var outboxOldest: Date?

    package init(report: NightlyRunner.Report, startedAt: Date, finishedAt: Date) {
        self.report = report
        self.startedAt = startedAt
        self.finishedAt = finishedAt
    }

    /// Adds the outbox backlog, read from the run's database.
    package mutating func readOutbox(_ database: ReplanDatabase) throws(UseCaseError) {
        let backlog = try storeCall { () throws(StoreError) in try HealthRepository(database.connection).outboxBacklog()
        }
        outboxRows = backlog.rows
        outboxOldest = backlog.oldest
    }

    package var text: String {
        var out = ""
        func metric(_ name: String, _ help: String, _ samples: [(labels: String, value: Double)]) {
            out += "# HELP \(name) \(help)\n# TYPE \(name) gauge\n"
            for s in samples { out += "\(name)\(s.labels) \(Self.number(s.value))\n" }
        }
        func one(_ name: String, _ help: String, _ value: Double) { metric(name, help, [("", value)]) }
        let r = report
        one("replan_last_run_id", "Id of the last run (replan log --run ID).", Double(r.runID))
        one(
            "replan_last_run_start_timestamp_seconds", "When the last run started, Unix time.",
            startedAt.timeIntervalSince1970)
        one(
            "replan_last_run_end_timestamp_seconds", "When the last run finished, Unix time.",
            finishedAt.timeIntervalSince1970)
        one(
            "replan_last_run_duration_seconds", "How long the last run took.",
            max(0, r.finishedAt.timeIntervalSince(r.startedAt)))
        one("replan_last_run_interrupted", "1 when the last run was stopped by a signal.", r.interrupted ? 1 : 0)
        one("replan_last_run_due_students", "Students due in the last run.", Double(r.due))
        metric(
            "replan_last_run_students", "Students of the last run by outcome.",
            [
                ("{outcome=\"changed\"}", Double(r.changed)), ("{outcome=\"unchanged\"}", Double(r.unchanged)),
                ("{outcome=\"skipped\"}", Double(r.skipped)), ("{outcome=\"failed\"}", Double(r.failed)),
            ])
        one("replan_last_run_model_asked_students", "Students the model was asked for.", Double(r.modelAsked))
        one("replan_last_run_model_requests", "Chat Completions requests of the last run.", Double(modelRequests))
        metric(
            "replan_last_run_model_errors", "Students whose model stage ended in an error, by kind.",
            r.modelErrors.sorted { $0.key < $1.key }.map { ("{kind=\"\(Self.label($0.key))\"}", Double($0.value)) })
        metric(
            "replan_last_run_tokens", "Model tokens of the last run by kind.",
            [
                ("{kind=\"prompt\"}", Double(r.tokens.prompt)), ("{kind=\"cached\"}", Double(r.tokens.cached)),
                ("{kind=\"completion\"}", Double(r.tokens.completion)),
                ("{kind=\"reasoning\"}", Double(r.tokens.reasoning)),
            ])
        one(
            "replan_last_run_estimated_cost_usd", "Estimated cost of the last run's model requests, US dollars.",
            r.costUSD.isFinite ? r.costUSD : 0)
        one("replan_outbox_rows", "Notification rows waiting for the push service.", Double(outboxRows))
        one(
            "replan_outbox_oldest_row_timestamp_seconds",
            "When the oldest waiting outbox row was written, Unix time (0: none waiting).",
            outboxOldest?.timeIntervalSince1970 ?? 0)
        return out
    }

    /// Writes `text` to `path` atomically: a new file beside it, created exclusively (never
    /// through a link planted at its name), flushed, given mode 0644 (the collector runs as
    /// another user) and renamed over the old one.
    package func write(to path: String) throws(UseCaseError) {
        let dir = (path as NSString).deletingLastPathComponent
        let temporary =
            (dir.isEmpty ? "." : dir) + "/.\((path as NSString).lastPathComponent).\(getpid()).tmp"
        func fail(_ what: String) -> UseCaseError {
            UseCaseError(
                .cannotOpenDatabase,
                "cannot write the metrics file \(path): \(what): \(String(cString: strerror(errno)))")
        }
        let fd = open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0o644)
        if fd < 0, errno == EEXIST {
            // A temporary left by a crashed run of the same pid; it is ours to replace.
            unlink(temporary)
        }
        let handle = fd >= 0 ? fd : open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0o644)
        guard handle >= 0 else { throw fail("create \(temporary)") }
        let bytes = Array(text.utf8)
        var written = 0
        while written < bytes.count {
            let n = bytes[written...].withUnsafeBytes { Foundation.write(handle, $0.baseAddress, $0.count) }
            if n < 0, errno == EINTR { continue }
            guard n > 0 else {
                close(handle)
                unlink(temporary)
                throw fail("write")
            }
            written += n
        }
        _ = fchmod(handle, 0o644)
        guard fsync(handle) == 0, close(handle) == 0 else {
            unlink(temporary)
            throw fail("flush")
        }
        guard rename(temporary, path) == 0 else {
            let error = fail("rename")
            unlink(temporary)
            throw error
        }
    }

    /// A label value with the format's three escapes.
    static func label(_ value: String) -> String {
        value.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\"", with: "\\\"")
            .replacingOccurrences(of: "\n", with: "\\n")
    }

    static func number(_ v: Double) -> String {
        guard v.isFinite else { return "0" }
        if v == v.rounded(), abs(v) < 1e15 { return String(Int64(v)) }
        return String(v)
    }
}
