import Planning

/// What a changeset edit touches: the plan rows of `RowChange.Entity`, plus the per-category
/// statistic row a changeset creates for a new category (Store-local: only the store decides
/// when such a row is needed, and its undo removes it), and the focus sessions an import
/// brings (`FocusRowKey`), so undo takes them back and redo records them again.
package enum EditEntity: String, Hashable, Sendable, CaseIterable {
    case task, override, slide, statistic, focus

    package init(_ entity: RowChange.Entity) {
        switch entity {
        case .task: self = .task
        case .override: self = .override
        case .slide: self = .slide
        }
    }

    /// The plan entity, or nil for `statistic` and `focus`.
    package var rowEntity: RowChange.Entity? { RowChange.Entity(rawValue: rawValue) }
}
