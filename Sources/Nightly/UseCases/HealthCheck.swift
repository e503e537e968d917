import Foundation
import Planning
import Store

/// `replan status`: whether the nightly job is healthy, for a monitoring system (Nagios and
/// Icinga read the state from the exit code). Each check is one fact about the database the
/// service uses; the worst check's state is the whole result's.
package struct HealthCheck {
    /// The monitoring states, in Nagios's order (the raw value is the plugin exit code).
    package enum State: Int, Sendable, Comparable {
        case ok = 0
        case warning = 1
        case critical = 2
        case unknown = 3

        package static func < (a: State, b: State) -> Bool { a.severity < b.severity }

        /// UNKNOWN (the check itself could not run) ranks between WARNING and CRITICAL: a
        /// known critical fault says more.
        private var severity: Int {
            switch self {
            case .ok: 0
            case .warning: 1
            case .unknown: 2
            case .critical: 3
            }
        }

        package var name: String {
            switch self {
            case .ok: "OK"
            case .warning: "WARNING"
            case .critical: "CRITICAL"
            case .unknown: "UNKNOWN"
            }
        }
    }

    /// One check: a stable name for JSON, its state and a sentence for the operator.
    package struct Finding: Sendable, Equatable {
        package var check: String
        package var state: State
        package var message: String
    }

    /// Whether the model stage will run, as the command line found it from the same sources
    /// as `run` (the key is never part of this).
    package enum Model: Sendable, Equatable {
        case on(source: String)
        /// Off on purpose (no key configured, an empty key file): reported, not a fault.
        case off(reason: String)
        /// A key is configured but `run` could not use it (unreadable file, bad content).
        case broken(reason: String)
        /// This user cannot see what the service will read (its credential file is root's).
        case undetermined(reason: String)
    }

    /// A run's timestamps and counts (the store's row, kept on this side of `Nightly`).
    package struct RunFacts: Sendable, Equatable {
        package var id: Int
        package var startedAt: Date
        package var finishedAt: Date?
        package var due: Int
        package var failed: Int
        package var modelErrors: Int
        /// Why the run stopped asking the model part-way, if it did.
        package var modelStopped: String?

        init(_ f: HealthRepository.RunFacts) {
            (id, startedAt, finishedAt) = (f.id, f.startedAt, f.finishedAt)
            (due, failed, modelErrors) = (f.due, f.failed, f.modelErrors)
            modelStopped = f.modelStopped
        }
    }

    package struct Inputs: Sendable {
        package var now: Date
        /// The longest time since the last finished run before it is CRITICAL (the timer is
        /// hourly; default 2 h).
        package var maxAge: TimeInterval = 7200
        package var runAfter = TimeOfDay(hour: 3, minute: 0)
        /// Consecutive failed nights of one student that make a WARNING.
        package var failingNights = 3
        /// 0: history is kept forever.
        package var retentionDays = 30
        /// The oldest undelivered outbox row older than this is a WARNING.
        package var outboxMaxAge: TimeInterval = 86_400
        package var model: Model = .off(reason: "not checked")
        /// The file the shipped `OnFailure=` hook writes; nil: not checked.
        package var failureMarker: String?

        package init(now: Date) { self.now = now }
    }

    /// What `status` found.
    package struct Result: Sendable {
        package var findings: [Finding]
        package var lastRun: RunFacts?
        package var lastFinishedRun: RunFacts?
        package var dueNotPlanned: [String] = []
        package var failingStudents: [String] = []
        package var outboxRows = 0
        package var outboxOldest: Date?
        package var students = 0

        package var state: State { findings.map(\.state).max() ?? .ok }

        /// The worst findings' messages: Nagios's one line.
        package var summary: String {
            let worst = findings.filter { $0.state == state && $0.state != .ok }
            if worst.isEmpty {
                return findings.first(where: { $0.check == "last-run" })?.message ?? "healthy"
            }
            return worst.map(\.message).joined(separator: "; ")
        }
    }

    let database: ReplanDatabase

    package init(database: ReplanDatabase) { self.database = database }

    package func check(_ inputs: Inputs) throws(UseCaseError) -> Result {
        let db = database.connection
        let health = HealthRepository(db)
        let runs = try storeCall { () throws(StoreError) in try health.latestRuns() }
        let finished = runs.finished.map(RunFacts.init)
        var result = Result(findings: [], lastRun: runs.latest.map(RunFacts.init), lastFinishedRun: finished)
        let (students, due) = try dueStudents(inputs)
        result.students = students
        result.dueNotPlanned = due
        result.failingStudents = try storeCall { () throws(StoreError) in
            try health.failingStudents(nights: inputs.failingNights)
        }
        let backlog = try storeCall { () throws(StoreError) in try health.outboxBacklog() }
        result.outboxRows = backlog.rows
        result.outboxOldest = backlog.oldest

        result.findings.append(lastRunFinding(finished, students: students, inputs))
        if let marker = markerFinding(inputs, lastFinish: runs.finished?.finishedAt) {
            result.findings.append(marker)
        }
        if let run = finished, run.due > 0 {
            if run.failed == run.due {
                result.findings.append(
                    Finding(
                        check: "failed-students", state: .critical,
                        message: "run \(run.id) failed every student (\(run.failed)); replan log --run \(run.id)"))
            } else if run.failed > 0 || run.modelErrors > 0 {
                result.findings.append(
                    Finding(
                        check: "failed-students", state: .warning,
                        message:
                            "run \(run.id): \(run.failed) of \(run.due) students failed, \(run.modelErrors) model errors; replan log --run \(run.id)"
                    ))
            }
        }
        if let run = finished, let stopped = run.modelStopped {
            // The breaker, the quota or a deadline: the night committed its local edits, but
            // the model stage did not finish; an operator should know before the next night.
            result.findings.append(
                Finding(
                    check: "model-stopped", state: .warning,
                    message: "run \(run.id) stopped asking the model: \(Self.printable(stopped))"))
        }
        if !due.isEmpty {
            result.findings.append(
                Finding(
                    check: "due-not-planned", state: .warning,
                    message:
                        "\(due.count) students due for over \(Self.duration(inputs.maxAge)) and not planned tonight (\(Self.sample(due)))"
                ))
        }
        if !result.failingStudents.isEmpty {
            result.findings.append(
                Finding(
                    check: "failing-students", state: .warning,
                    message:
                        "\(result.failingStudents.count) students failed their last \(inputs.failingNights) nights (\(Self.sample(result.failingStudents)))"
                ))
        }
        switch inputs.model {
        case .on(let source):
            result.findings.append(Finding(check: "model", state: .ok, message: "model on (key from \(source))"))
        case .undetermined(let reason):
            result.findings.append(Finding(check: "model", state: .ok, message: "model: cannot tell: \(reason)"))
        case .off(let reason):
            result.findings.append(Finding(check: "model", state: .ok, message: "model off: \(reason)"))
        case .broken(let reason):
            result.findings.append(
                Finding(check: "model", state: .critical, message: "model key unusable, run will fail: \(reason)"))
        }
        if let oldest = backlog.oldest {
            let age = inputs.now.timeIntervalSince(oldest)
            let text = "outbox: \(backlog.rows) rows waiting, the oldest for \(Self.duration(age))"
            result.findings.append(
                Finding(check: "outbox", state: age > inputs.outboxMaxAge ? .warning : .ok, message: text))
        } else {
            result.findings.append(Finding(check: "outbox", state: .ok, message: "outbox: empty"))
        }
        if inputs.retentionDays > 0,
            let oldest = try storeCall({ () throws(StoreError) in try health.oldestRunStart() })
        {
            // Every run prunes; a day's slack covers a prune cut short by its time budget.
            let limit = TimeInterval(inputs.retentionDays + 1) * 86_400
            if inputs.now.timeIntervalSince(oldest) > limit {
                result.findings.append(
                    Finding(
                        check: "retention", state: .warning,
                        message:
                            "retention overdue: a run from \(Timestamp.text(oldest)) is older than retention_days (\(inputs.retentionDays)); run replan prune"
                    ))
            }
        }
        return result
    }

    private func lastRunFinding(
        _ finished: RunFacts?, students: Int, _ inputs: Inputs
    ) -> Finding {
        guard let finished, let end = finished.finishedAt else {
            if students == 0 {
                return Finding(check: "last-run", state: .ok, message: "no students and no runs yet")
            }
            return Finding(
                check: "last-run", state: .critical,
                message: "no run has finished yet for \(students) students (is replan.timer enabled?)")
        }
        let age = inputs.now.timeIntervalSince(end)
        if age > inputs.maxAge {
            return Finding(
                check: "last-run", state: .critical,
                message:
                    "last run \(finished.id) finished \(Self.duration(age)) ago (over --max-age \(Self.duration(inputs.maxAge)); is replan.timer running?)"
            )
        }
        return Finding(
            check: "last-run", state: .ok,
            message: "last run \(finished.id) finished \(Self.duration(max(0, age))) ago, \(finished.due) due")
    }

    /// The hook writes the marker after a failed run finished; a later finished run (the
    /// next successful night) makes it old news.
    private func markerFinding(_ inputs: Inputs, lastFinish: Date?) -> Finding? {
        guard let path = inputs.failureMarker else { return nil }
        var info = stat()
        guard stat(path, &info) == 0 else { return nil }
        let written = Date(timeIntervalSince1970: TimeInterval(info.st_mtim.tv_sec))
        if let lastFinish, lastFinish > written { return nil }
        let unit =
            (try? String(contentsOfFile: path, encoding: .utf8))?.split(separator: "\n").first.map(String.init)
            ?? "replan.service"
        return Finding(
            check: "failure-marker", state: .critical,
            message:
                "\(Self.printable(unit)) failed at \(Timestamp.text(written)) (\(path)); journalctl -u replan.service")
    }

    /// Students with auto-update whose night began more than `maxAge` ago in their own zone
    /// and who have no finished run for it: every hourly tick since should have planned them.
    private func dueStudents(_ inputs: Inputs) throws(UseCaseError) -> (Int, [String]) {
        let db = database.connection
        let runs = RunStore(db)
        var cursor = UserRepository(db).cursor()
        var count = 0
        var due: [String] = []
        try storeCall { () throws(StoreError) in
            while let user = try cursor.next() {
                count += 1
                guard user.settings.autoUpdate else { continue }
                let local = user.zone.civil(inputs.now.addingTimeInterval(-inputs.maxAge))
                guard local.time >= inputs.runAfter else { continue }
                let tonight = user.zone.civil(inputs.now).date
                guard local.date == tonight else { continue }
                if try !runs.isDone(userID: user.id, planDate: tonight) { due.append(user.id) }
            }
        }
        return (count, due)
    }

    static func sample(_ ids: [String]) -> String {
        let shown = ids.prefix(5).joined(separator: ", ")
        return ids.count > 5 ? shown + ", …" : shown
    }

    /// The marker's text with control characters escaped: anyone who can write the state
    /// directory could otherwise forge lines in a monitoring system's output.
    static func printable(_ text: String) -> String {
        String(
            String.UnicodeScalarView(
                text.unicodeScalars.prefix(200).flatMap { (u: Unicode.Scalar) -> [Unicode.Scalar] in
                    u.value < 0x20 || u.value == 0x7F ? Array("\\u{\(String(u.value, radix: 16))}".unicodeScalars) : [u]
                }))
    }

    /// `2h`, `35m`, `3d` — the coarse age an operator reads.
    package static func duration(_ seconds: TimeInterval) -> String {
        let s = Int(seconds.isFinite ? seconds : 0)
        if s >= 2 * 86_400 { return "\(s / 86_400)d" }
        if s >= 2 * 3600 { return "\(s / 3600)h" }
        if s >= 120 { return "\(s / 60)m" }
        return "\(s)s"
    }
}
