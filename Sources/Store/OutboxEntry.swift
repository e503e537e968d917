import Foundation
import Planning

/// A push notification to schedule or cancel, written in the same transaction as the
/// changeset that moved, created or deleted the occurrence.
package struct OutboxEntry: Hashable, Sendable {
    /// Whether the delivering side should set up or withdraw the reminder.
    package enum Action: String, Hashable, Sendable, CaseIterable { case schedule, cancel }

    package var occurrenceID: OccurrenceID
    /// The instant to notify (already minus the user's reminder minutes).
    package var fireAt: Date
    package var action: Action

    package init(occurrenceID: OccurrenceID, fireAt: Date, action: Action) {
        self.occurrenceID = occurrenceID
        self.fireAt = fireAt
        self.action = action
    }
}

/// An outbox row as stored, for whatever delivers the notifications.
package struct StoredOutboxEntry: Hashable, Sendable {
    package var id: Int
    package var userID: String
    package var entry: OutboxEntry
    package var createdAt: Date
    package var changesetID: ChangesetID?

    package init(id: Int, userID: String, entry: OutboxEntry, createdAt: Date, changesetID: ChangesetID?) {
        self.id = id
        self.userID = userID
        self.entry = entry
        self.createdAt = createdAt
        self.changesetID = changesetID
    }
}
