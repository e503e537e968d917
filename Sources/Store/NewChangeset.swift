import Foundation
import Planning

/// A changeset to commit: one user's row changes (usually from `PlanDiff`), with the summary
/// and report the caller built, and the notification outbox rows to write with it.
public struct NewChangeset: Sendable {
    public var userID: String
    public var origin: ChangesetOrigin
    public var planDate: CivilDate?
    public var createdAt: Date
    public var changes: [RowChange]
    /// Summary counts, free-form (e.g. `{"dropped":1,"rescheduled":3,"chained":2}`).
    public var summary: JSONValue
    /// Free-form report: occurrence-level edits, flags, model info — whatever `show` needs.
    public var report: JSONValue
    public var outbox: [OutboxEntry]

    public init(userID: String, origin: ChangesetOrigin, planDate: CivilDate?, createdAt: Date, changes: [RowChange],
                summary: JSONValue = [:], report: JSONValue = [:], outbox: [OutboxEntry] = []) {
        self.userID = userID; self.origin = origin; self.planDate = planDate; self.createdAt = createdAt
        self.changes = changes; self.summary = summary; self.report = report; self.outbox = outbox
    }
}
