import Foundation
import JSON
import Nightly
import Planning

/// `replan night`: the night several workers share on PostgreSQL, as it moves: its claims
/// (due, pending, claimed, done, failed, retried) and each worker's share and lease, so an
/// operator can watch it (`watch -n 5 replan night`). On SQLite one run at a time plans the
/// night and there is nothing shared to show: exit 64, pointing at `log` and `status`.
struct NightCommand: ReplanCommand {
    static let configuration = CommandConfiguration(
        name: "night",
        abstract:
            "the night the workers share on PostgreSQL, in progress or the latest: due, claimed, done, failed, retried, per worker",
        discussion: """
            Reads the claims of the latest night (docs/deploy.md): how many students are due, pending,
            claimed, done and failed, how many were taken more than once (retried: taken over from a
            worker whose lease ran out, handed back by a stopped one, or retried after a failure), and
            for each worker its run, its state (running, stopped, or lost: its lease ran out), the
            claims it holds, what it finished, and its lease (time left and the last heartbeat's age).
            Times are the database server's. Exit 0; on SQLite, where one run at a time plans the night,
            exit 64 (replan log and replan status show that run).
            """)

    @Flag(name: "--json", help: "print JSON") var json: Bool

    func run(_ ctx: CommandContext) throws -> ExitCode {
        let db = try ctx.openExistingDatabase()
        guard db.engine == .postgresql else {
            throw CLIError.usage(
                "no shared night: this database is SQLite, where one run at a time plans the night (replan log and replan status show it)"
            )
        }
        let found = try useCase { () throws(UseCaseError) in try RunLog(database: db).latestNight() }
        if json {
            ctx.console.out(Self.json(found).prettyText)
        } else {
            ctx.console.out(Self.text(found, console: ctx.console))
        }
        return .success
    }

    /// Where the night stands: `running` while a worker's lease is current, `finished` when every
    /// claim is done or failed, `stopped` when claims are left and no worker is running (the next
    /// run takes them).
    static func state(_ p: NightProgress) -> String {
        if p.night.finishedAt == nil { return "running" }
        return p.total.pending + p.total.claimed == 0 ? "finished" : "stopped"
    }

    /// The server's now, from a worker's lease: its end minus the seconds left.
    static func serverNow(_ p: NightProgress) -> Date? {
        p.night.workers.first.map { $0.endsAt.addingTimeInterval(-$0.leaseLeft) }
    }

    static func seconds(_ p: NightProgress) -> Double {
        let end = p.night.finishedAt ?? serverNow(p) ?? p.night.startedAt
        return max(0, end.timeIntervalSince(p.night.startedAt))
    }

    /// Seconds since the worker's last heartbeat: its lease's length minus what is left of it
    /// (running workers only; the length is what the run recorded).
    static func heartbeatAge(_ w: NightWorker, runs: [Int: RunTotals]) -> Double? {
        guard w.state == .running, let lease = runs[w.runID]?.run.options["lease"]?.intValue else { return nil }
        return max(0, Double(lease) - w.leaseLeft)
    }

    static func leaseWords(_ w: NightWorker, runs: [Int: RunTotals], stoppedAgo: Double) -> String {
        switch w.state {
        case .running:
            let beat = heartbeatAge(w, runs: runs).map { ", heartbeat \(LogCommand.seconds($0)) ago" } ?? ""
            return "\(LogCommand.seconds(max(0, w.leaseLeft))) left\(beat)"
        case .lost: return "ran out \(LogCommand.seconds(max(0, -w.leaseLeft))) ago"
        case .stopped: return "stopped \(LogCommand.seconds(max(0, stoppedAgo))) ago"
        }
    }

    static func text(_ found: (progress: NightProgress, runs: [Int: RunTotals])?, console: Console) -> String {
        guard let (p, runs) = found else { return "no night yet: no replan run has shared a night on this database" }
        let t = p.total
        let now = serverNow(p)
        var lines = [
            console.paint(
                "night \(p.night.id) (runs \(LogCommand.idList(p.night.runIDs))), started \(Timestamp.text(p.night.startedAt)), \(state(p)), \(LogCommand.seconds(seconds(p)))",
                .bold),
            "  due \(t.due)  pending \(t.pending)  claimed \(t.claimed)  done \(t.done)  failed \(t.failed)  retried \(t.retried)"
                + (t.abandoned > 0 ? "  (\(t.abandoned) claimed by a lost worker, to be taken over)" : ""),
        ]
        let header = ["worker", "run", "state", "claims", "done", "failed", "retried", "lease"]
        let rows = p.night.workers.map { w -> [String] in
            let c = p.byWorker[w.name] ?? NightProgress.Counts()
            let ago = now.map { $0.timeIntervalSince(w.endsAt) } ?? 0
            return [
                Console.oneLine(w.name), String(w.runID), w.state.rawValue, String(c.claimed), String(c.done),
                String(c.failed), String(c.retried), leaseWords(w, runs: runs, stoppedAgo: ago),
            ]
        }
        let widths = header.indices.map { i in
            max(DisplayWidth.of(header[i]), rows.map { DisplayWidth.of($0[i]) }.max() ?? 0)
        }
        func format(_ cells: [String]) -> String {
            "  "
                + cells.indices.map { i in
                    i == 0 || i == 2 || i == cells.count - 1
                        ? DisplayWidth.padded(cells[i], to: i == cells.count - 1 ? 0 : widths[i])
                        : DisplayWidth.leftPadded(cells[i], to: widths[i])
                }.joined(separator: "  ")
        }
        lines.append(console.paint(format(header), .bold))
        lines += rows.map(format)
        return lines.joined(separator: "\n")
    }

    static func json(_ found: (progress: NightProgress, runs: [Int: RunTotals])?) -> JSONValue {
        func counts(_ c: NightProgress.Counts) -> JSONValue {
            [
                "due": .int(c.due), "pending": .int(c.pending), "claimed": .int(c.claimed),
                "abandoned": .int(c.abandoned), "done": .int(c.done), "failed": .int(c.failed),
                "retried": .int(c.retried),
            ]
        }
        guard let (p, runs) = found else {
            return [
                "schema": "replan.night/1", "state": "none", "counts": counts(NightProgress.Counts()), "workers": [],
            ]
        }
        return [
            "schema": "replan.night/1", "id": .int(p.night.id), "runs": .array(p.night.runIDs.map { .int($0) }),
            "startedAt": .string(Timestamp.text(p.night.startedAt)), "state": .string(state(p)),
            "seconds": .number((seconds(p) * 10).rounded() / 10), "counts": counts(p.total),
            "workers": .array(
                p.night.workers.map { w in
                    let c = p.byWorker[w.name] ?? NightProgress.Counts()
                    return [
                        "worker": .string(w.name), "run": .int(w.runID), "state": .string(w.state.rawValue),
                        "startedAt": .string(Timestamp.text(w.startedAt)), "claims": .int(c.claimed),
                        "done": .int(c.done), "failed": .int(c.failed), "retried": .int(c.retried),
                        "leaseSeconds": .number((w.leaseLeft * 10).rounded() / 10),
                        "heartbeatAgeSeconds": heartbeatAge(w, runs: runs).map { .number(($0 * 10).rounded() / 10) }
                            ?? .null,
                    ]
                }),
        ]
    }
}
