import Foundation
import Planning

/// A push notification to schedule or cancel, written in the same transaction as the
/// changeset that moved, created or deleted the occurrence.
public struct OutboxEntry: Hashable, Sendable {
    /// Whether the delivering side should set up or withdraw the reminder.
    public enum Action: String, Hashable, Sendable, CaseIterable { case schedule, cancel }

    public var occurrenceID: OccurrenceID
    /// The instant to notify (already minus the user's reminder minutes).
    public var fireAt: Date
    public var action: Action

    public init(occurrenceID: OccurrenceID, fireAt: Date, action: Action) {
        self.occurrenceID = occurrenceID; self.fireAt = fireAt; self.action = action
    }
}

/// An outbox row as stored, for whatever delivers the notifications.
public struct StoredOutboxEntry: Hashable, Sendable {
    public var id: Int
    public var userID: String
    public var entry: OutboxEntry
    public var createdAt: Date
    public var changesetID: ChangesetID?

    public init(id: Int, userID: String, entry: OutboxEntry, createdAt: Date, changesetID: ChangesetID?) {
        self.id = id; self.userID = userID; self.entry = entry; self.createdAt = createdAt; self.changesetID = changesetID
    }
}
