import Foundation
import Store

/// `replan run` as one use case: the database is opened (and migrated) once, the night runs
/// with as many pipelines as this chooses, and history older than the retention is pruned
/// after it, within a budget. The command parses options, calls `run` and renders the outcome.
package struct NightlyJob {
    /// What the night and the prune after it did.
    package struct Outcome: Sendable {
        package var report: NightlyRunner.Report
        /// Nil when nothing was pruned: retention is off, the night was interrupted, or
        /// another worker of the night holds the chore (PostgreSQL).
        package var pruned: PruneReport?
        package var pruneSeconds: Double = 0
        /// A prune that failed: a warning, never a failed night.
        package var pruneError: UseCaseError?
    }

    /// How many students a run plans at once unless told. A night that asks the model waits on
    /// the network, so it gets as many pipelines as requests may be in flight; a local night
    /// keeps 8. On PostgreSQL each pipeline holds a connection and the workers share the
    /// provider's limit, so a worker opens at most 64 (docs/model.md §16).
    package static func defaultConcurrency(modelOn: Bool, modelConcurrency: Int, engine: DatabaseEngine) -> Int {
        guard modelOn else { return 8 }
        return min(modelConcurrency, engine == .postgresql ? 64 : 256)
    }

    /// How long the prune after a night may take; what is left goes the next night.
    package static let pruneBudget: TimeInterval = 60

    let database: ReplanDatabase
    let runner: NightlyRunner
    /// Days of history kept (nil: forever).
    let retentionDays: Int?
    let shouldStop: @Sendable () -> Bool

    package init(
        database: ReplanDatabase, runner: NightlyRunner, retentionDays: Int?,
        shouldStop: @escaping @Sendable () -> Bool = { false }
    ) {
        self.database = database
        self.runner = runner
        self.retentionDays = retentionDays
        self.shouldStop = shouldStop
    }

    /// The night, then the prune: the retention counts back from the night's `now`.
    package func run(pruneBudget: TimeInterval = NightlyJob.pruneBudget) throws(NightlyRunner.RunError) -> Outcome {
        var outcome = Outcome(report: try runner.run())
        guard !outcome.report.interrupted, let days = retentionDays else { return outcome }
        let now = runner.options.now
        let clock = RunClock(start: now)
        do throws(UseCaseError) {
            outcome.pruned = try Retention(database: database).prune(
                olderThan: Retention.cutoff(days: days, now: now),
                shouldStop: { shouldStop() || clock.elapsed > pruneBudget })
        } catch {
            outcome.pruneError = error
        }
        outcome.pruneSeconds = clock.elapsed
        return outcome
    }
}
