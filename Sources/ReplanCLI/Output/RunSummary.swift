import Foundation
import Nightly

/// The closing line of `replan run`, on stderr: the counts an operator reads in the journal
/// the next morning. Model errors are counted and the commonest named, because with
/// `--on-model-error=local` such students still commit their local edits and would otherwise
/// show as "0 failed".
struct RunSummary {
    let report: NightlyRunner.Report
    let modelOff: String?
    let peakRSSKiB: Int

    var text: String {
        let r = report
        let seconds = r.finishedAt.timeIntervalSince(r.startedAt)
        var s =
            "run \(r.runID): \(r.due) due, \(r.changed) changed, \(r.unchanged) unchanged, \(r.skipped) skipped, \(r.failed) failed, "
        s += "\(r.modelErrorCount) model error\(r.modelErrorCount == 1 ? "" : "s")"
        let ranked = ModelErrorKind.ranked(r.modelErrors)
        if !ranked.isEmpty {
            let named = ranked.prefix(2).map { "\($0.kind): \($0.count)" }
            s += " (\(named.joined(separator: ", "))\(ranked.count > 2 ? ", \(ranked.count - 2) more kind(s)" : ""))"
        }
        s += ", model asked for \(r.modelAsked), \(r.tokens.total) tokens, est. $\(String(format: "%.2f", r.costUSD))"
        s += ", \(String(format: "%.1f", seconds)) s, peak RSS \(peakRSSKiB / 1024) MiB"
        if let modelOff { s += " (model off: \(modelOff))" }
        if let worker = r.worker {
            s += "; worker \(worker)"
            if r.rescued > 0 { s += ", \(r.rescued) taken over from a worker whose lease ran out" }
            if r.refused > 0 { s += ", \(r.refused) late commit(s) refused (another worker had taken them over)" }
        }
        if r.modelUnavailableForAll, let commonest = ranked.first {
            s += "; model unavailable for every student: \(commonest.kind)"
        }
        return s
    }

    /// error: the model was unavailable for everyone or every due student failed; warning:
    /// some failed or met a model error; notice otherwise.
    var priority: LogPriority {
        let r = report
        if r.modelUnavailableForAll || (r.due > 0 && r.failed == r.due) { return .error }
        if r.failed > 0 || r.modelErrorCount > 0 { return .warning }
        return .notice
    }
}
