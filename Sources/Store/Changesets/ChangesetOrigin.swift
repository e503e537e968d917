/// Who made a changeset.
package enum ChangesetOrigin: String, Hashable, Sendable, CaseIterable {
    case nightly, manual, `import`
}
