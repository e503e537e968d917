/// Whether a changeset's edits are in effect.
package enum ChangesetState: String, Hashable, Sendable, CaseIterable {
    case applied, undone
}
