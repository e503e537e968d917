import Planning

/// What a changeset edit touches: the plan rows of `RowChange.Entity`, plus the per-category
/// statistic row a changeset creates for a new category (Store-local: only the store decides
/// when such a row is needed, and its undo removes it), and the focus sessions an import
/// brings (`FocusRowKey`), so undo takes them back and redo records them again; and the
/// student an import creates or updates (`user`, keyed by the user id: the `users` row with its
/// `settings` row, `ProfileImage`), so undo takes the profile and settings back, and removes a
/// student the import created.
package enum EditEntity: String, Hashable, Sendable, CaseIterable {
    case task, override, slide, statistic, focus, user

    package init(_ entity: RowChange.Entity) {
        switch entity {
        case .task: self = .task
        case .override: self = .override
        case .slide: self = .slide
        }
    }

    /// The plan entity, or nil for `statistic`, `focus` and `user`.
    package var rowEntity: RowChange.Entity? { RowChange.Entity(rawValue: rawValue) }
}
