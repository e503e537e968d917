import Foundation
import Store

/// `prune`, and the prune after every run: deletes changesets, runs and transcripts older
/// than a cutoff, in short batches so other commands are not held up.
package struct Retention {
    let database: ReplanDatabase

    package init(database: ReplanDatabase) { self.database = database }

    /// The instant `days` days before `now`.
    package static func cutoff(days: Int, now: Date) -> Date { now.addingTimeInterval(-Double(days) * 86_400) }

    /// What a prune would delete.
    package func count(olderThan cutoff: Date) throws(UseCaseError) -> PruneReport {
        let pruner = RetentionPruner(database.connection)
        return try storeCall { () throws(StoreError) in try pruner.count(olderThan: cutoff) }
    }

    /// Deletes, checking `shouldStop` between batches.
    package func prune(olderThan cutoff: Date, shouldStop: () -> Bool) throws(UseCaseError) -> PruneReport {
        let pruner = RetentionPruner(database.connection)
        return try storeCall { () throws(StoreError) in try pruner.prune(olderThan: cutoff, shouldStop: shouldStop) }
    }
}
