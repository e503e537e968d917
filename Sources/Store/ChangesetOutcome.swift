import Planning

/// What an undo or redo did.
public struct ChangesetOutcome: Hashable, Sendable {
    /// The changeset with its new state.
    public var changeset: ChangesetHeader
    /// The edits as applied, in application order (inverted and reversed for an undo).
    public var applied: [ChangesetEdit]
    /// Conflicting rows that `force` overwrote (or, for a missing parent, skipped).
    public var overwritten: [ChangesetConflict.Row]
    /// The changeset's report, so the caller can tell the student and emit notifications.
    public var report: JSONValue

    public init(changeset: ChangesetHeader, applied: [ChangesetEdit], overwritten: [ChangesetConflict.Row], report: JSONValue) {
        self.changeset = changeset; self.applied = applied; self.overwritten = overwritten; self.report = report
    }
}
