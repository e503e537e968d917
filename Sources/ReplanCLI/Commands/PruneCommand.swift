import Foundation
import JSON
import Nightly
import Planning

/// Retention: `replan prune`, and the prune every `run` does after its students. Without it
/// nothing ever deleted runs, changesets or transcripts (a model night for 3,000 students
/// doubled a 75 MB database).
struct PruneCommand: ReplanCommand {
    static func cutoff(days: Int, now: Date) -> Date { Retention.cutoff(days: days, now: now) }

    static let configuration = CommandConfiguration(
        name: "prune",
        abstract:
            "delete changesets, runs, model transcripts and past reminders older than the retention (retention_days, default 30)",
        discussion: """
            Deletes in batches of 500 rows, each its own short transaction, so the nightly job and
            other commands are not held up. Changesets older than the retention cannot be undone.
            Every `replan run` prunes the same way after its students (for at most a minute).
            Undelivered notification rows outlive their changeset; only those whose reminder
            time passed before the cutoff are deleted (and counted).
            """)

    @Option(name: "--older-than", value: "DAYS", range: 1...36_500, help: "days to keep instead of retention_days")
    var olderThan: Int?
    @Flag(name: "--dry-run", help: "only count") var dryRun: Bool
    @Flag(name: "--json", help: "print JSON") var json: Bool

    func run(_ ctx: CommandContext) throws -> ExitCode {
        // `retention_days` (default 30; 0 keeps forever), unless --older-than says otherwise.
        guard let days = try self.olderThan ?? ReplanSettings(context: ctx).retentionDays else {
            ctx.console.out("retention_days is 0: history is kept forever; pass --older-than DAYS to prune anyway")
            return .success
        }
        let cutoff = Self.cutoff(days: days, now: ctx.now)
        let db = try ctx.openExistingDatabase()
        let pruner = Retention(database: db)
        let dry = self.dryRun
        let started = Date()
        let pruned = try useCase { () throws(UseCaseError) in
            try dry
                ? pruner.count(olderThan: cutoff)
                : pruner.prune(olderThan: cutoff, shouldStop: { ctx.interruption.isRaised })
        }
        guard let report = pruned else {
            throw CLIError(
                .locked, "another replan worker is pruning this database now; nothing was deleted, try again later")
        }
        if self.json {
            ctx.console.out(
                JSONValue.object([
                    "schema": "replan.prune/1", "olderThan": .string(Timestamp.text(cutoff)), "dryRun": .bool(dry),
                    "changesets": .int(report.changesets), "userRuns": .int(report.userRuns),
                    "transcripts": .int(report.transcripts),
                    "runs": .int(report.runs), "outbox": .int(report.outbox), "batches": .int(report.batches),
                    "complete": .bool(!report.stopped),
                ]).prettyText)
        } else {
            ctx.console.out(Self.text(report, cutoff: cutoff, dryRun: dry, seconds: Date().timeIntervalSince(started)))
        }
        return report.stopped ? ctx.interruption.exitCode : .success
    }

    static func text(_ r: PruneReport, cutoff: Date, dryRun: Bool, seconds: Double) -> String {
        "\(dryRun ? "would prune" : "pruned") \(r.changesets) changeset(s), \(r.userRuns) user run(s) with \(r.transcripts) transcript(s) and \(r.runs) run(s) older than \(Timestamp.text(cutoff)), and \(r.outbox) outbox row(s) whose reminder time passed before it"
            + (dryRun ? "" : " in \(r.batches) batch(es), \(String(format: "%.1f", seconds)) s")
            + (r.stopped ? " (stopped early)" : "")
    }

}
