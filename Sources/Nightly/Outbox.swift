import Foundation
import Store

/// The notification outbox as a push service consumes it: read the rows after a cursor,
/// deliver them, acknowledge the last id handled.
package struct Outbox {
    let database: ReplanDatabase

    package init(database: ReplanDatabase) { self.database = database }

    package func entries(after cursor: Int, limit: Int) throws(UseCaseError) -> [StoredOutboxEntry] {
        let outbox = OutboxRepository(database.connection)
        return try storeCall { () throws(StoreError) in try outbox.entries(after: cursor, limit: limit) }
    }

    /// Removes the rows up to and including `cursor`; returns how many.
    package func acknowledge(through cursor: Int) throws(UseCaseError) -> Int {
        let outbox = OutboxRepository(database.connection)
        return try storeCall { () throws(StoreError) in try outbox.acknowledge(through: cursor) }
    }
}
