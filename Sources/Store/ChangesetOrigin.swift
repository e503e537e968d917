/// Who made a changeset.
public enum ChangesetOrigin: String, Hashable, Sendable, CaseIterable {
    case nightly, manual, `import`
}
