/// Whether a changeset's edits are in effect.
public enum ChangesetState: String, Hashable, Sendable, CaseIterable {
    case applied, undone
}
