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
    ///
    /// On PostgreSQL several workers finish a night, and each would prune after it: the prune
    /// runs under the database's chore lock (an advisory lock), so one worker prunes and the
    /// others skip it (nil) instead of deleting the same batches side by side.
    /// - Returns: what was deleted, or nil when another worker holds the chore lock.
    package func prune(olderThan cutoff: Date, shouldStop: () -> Bool) throws(UseCaseError) -> PruneReport? {
        let pruner = RetentionPruner(database.connection)
        var chore: (any AnyObject & Sendable)?
        if database.engine == .postgresql {
            let location = database.location
            chore = try storeCall { () throws(StoreError) in try location.tryAcquireRunLock() }
            if chore == nil { return nil }
        }
        return try withExtendedLifetime(chore) { () throws(UseCaseError) -> PruneReport in
            try storeCall { () throws(StoreError) in try pruner.prune(olderThan: cutoff, shouldStop: shouldStop) }
        }
    }
}
