import Planning

/// Why a changeset could not be committed, undone or redone: the rows that no longer look as
/// expected. Nothing was written when this is thrown.
package struct ChangesetConflict: Error, Hashable, Sendable, CustomStringConvertible {
    /// One conflicting row.
    package struct Row: Hashable, Sendable, CustomStringConvertible {
        /// What is wrong with the row.
        package enum Kind: String, Hashable, Sendable {
            /// The row's version (or its presence) differs from what the changeset expects.
            case changed
            /// The row would be restored under a task that no longer exists.
            case parentMissing = "parent-missing"
            /// The task would be deleted, but it has an override or slide the changeset does
            /// not know about (someone added it since); deleting would silently drop it.
            case unrecordedChild = "unrecorded-child"
        }

        package var entity: EditEntity
        package var key: String
        /// The version the changeset expects; nil = expects the row to be absent (a `user` edit
        /// compares content and says 0 for "present").
        package var expectedVersion: Int?
        /// The version found; nil = the row is absent.
        package var foundVersion: Int?
        package var kind: Kind

        package init(entity: EditEntity, key: String, expectedVersion: Int?, foundVersion: Int?, kind: Kind = .changed)
        {
            self.entity = entity
            self.key = key
            self.expectedVersion = expectedVersion
            self.foundVersion = foundVersion
            self.kind = kind
        }

        package var description: String {
            if entity == .user && kind == .changed {
                // Compared by content (`ProfileImage`): versions would say nothing here.
                switch (expectedVersion, foundVersion) {
                case (nil, _): return "user \(key): expected absent, found a student added since"
                case (_, nil): return "user \(key): expected the student, found them removed"
                default: return "user \(key): the profile or settings changed since"
                }
            }
            // A focus edit's "version" is how many sessions of its content there are.
            let describe: (Int?) -> String =
                entity == .focus
                ? { "\($0 ?? 0) session(s)" } : { $0.map { "version \($0)" } ?? "absent" }
            let (expected, found) = (describe(expectedVersion), describe(foundVersion))
            switch kind {
            case .changed: return "\(entity.rawValue) \(key): expected \(expected), found \(found)"
            case .parentMissing: return "\(entity.rawValue) \(key): its task no longer exists"
            case .unrecordedChild:
                return "\(entity.rawValue) \(key) (\(found)) was added since and would be deleted with its task"
            }
        }
    }

    /// The changeset being undone or redone; nil for a commit.
    package var changesetID: ChangesetID?
    package var rows: [Row]

    package init(changesetID: ChangesetID?, rows: [Row]) {
        self.changesetID = changesetID
        self.rows = rows
    }

    package var description: String {
        let subject = changesetID.map { "changeset \($0)" } ?? "the changes"
        return "\(subject) conflict with \(rows.count) row(s) changed since: "
            + rows.map(\.description).joined(separator: "; ")
    }
}
