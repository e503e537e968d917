import Foundation
import Planning

/// A push notification, written in the same transaction as its changeset: a reminder to
/// schedule or cancel for an occurrence the changeset moved, created or deleted, or the
/// student's morning note about the night (docs/outbox.md).
package struct OutboxEntry: Hashable, Sendable {
    /// Whether the delivering side should set up or withdraw the reminder (a note is always
    /// `schedule`: deliver it at `fireAt`).
    package enum Action: String, Hashable, Sendable, CaseIterable { case schedule, cancel }

    /// What a row is: a session's reminder, or a note to the student.
    package enum Kind: String, Hashable, Sendable, CaseIterable { case reminder, note }

    /// The text of a `note` row, rendered in the student's language.
    package struct Note: Hashable, Sendable {
        /// Stands for the changeset's id in a note rendered before its commit gave the id;
        /// the insert writes the id in its place.
        package static let changesetMark = "{changeset}"

        package var title: String
        package var body: String

        package init(title: String, body: String) {
            self.title = title
            self.body = body
        }
    }

    /// The reminder's occurrence; empty (`OccurrenceID(taskID: "")`) for a note.
    package var occurrenceID: OccurrenceID
    /// The instant to notify (a reminder: already minus the user's reminder minutes).
    package var fireAt: Date
    package var action: Action
    /// Set for a note, nil for a reminder.
    package var note: Note?

    package var kind: Kind { note == nil ? .reminder : .note }

    package init(occurrenceID: OccurrenceID, fireAt: Date, action: Action) {
        self.occurrenceID = occurrenceID
        self.fireAt = fireAt
        self.action = action
    }

    /// A note to deliver at `fireAt`.
    package init(note: Note, fireAt: Date) {
        self.occurrenceID = OccurrenceID(taskID: "")
        self.fireAt = fireAt
        self.action = .schedule
        self.note = note
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
