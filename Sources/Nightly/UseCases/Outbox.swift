import Foundation
import Store

/// The notification outbox as a push service consumes it: read the rows after a cursor,
/// deliver them, acknowledge the last id handled.
package struct Outbox {
    let database: ReplanDatabase

    package init(database: ReplanDatabase) { self.database = database }

    /// The rows after `cursor`. A cursor beyond every id this outbox ever handed out is
    /// refused rather than answered with nothing: it belongs to another database (or to an
    /// outbox from before ids kept their high-water mark), and quietly waiting for ids above
    /// it would skip every row written meanwhile.
    package func entries(after cursor: Int, limit: Int) throws(UseCaseError) -> [StoredOutboxEntry] {
        let outbox = OutboxRepository(database.connection)
        let highest = try storeCall { () throws(StoreError) in try outbox.highestIssuedID() }
        guard cursor <= highest else {
            throw .badInput(
                "cursor \(cursor) is beyond the highest outbox id this database ever wrote (\(highest)): the cursor is from another database or from before the upgrade that made outbox ids permanent; start again from 0 (deliveries are idempotent) or from \(highest)"
            )
        }
        return try storeCall { () throws(StoreError) in try outbox.entries(after: cursor, limit: limit) }
    }

    /// Removes the rows up to and including `cursor`; returns how many.
    package func acknowledge(through cursor: Int) throws(UseCaseError) -> Int {
        let outbox = OutboxRepository(database.connection)
        return try storeCall { () throws(StoreError) in try outbox.acknowledge(through: cursor) }
    }
}
