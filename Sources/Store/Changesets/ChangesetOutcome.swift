import JSON
import Planning

/// What an undo or redo did.
package struct ChangesetOutcome: Hashable, Sendable {
    /// The changeset with its new state.
    package var changeset: ChangesetHeader
    /// The edits as applied, in application order (inverted and reversed for an undo).
    package var applied: [ChangesetEdit]
    /// Conflicting rows that `force` overwrote (or, for a missing parent, skipped).
    package var overwritten: [ChangesetConflict.Row]
    /// The changeset's report, so the caller can tell the student and emit notifications.
    package var report: JSONValue

    package init(
        changeset: ChangesetHeader, applied: [ChangesetEdit], overwritten: [ChangesetConflict.Row], report: JSONValue
    ) {
        self.changeset = changeset
        self.applied = applied
        self.overwritten = overwritten
        self.report = report
    }
}
