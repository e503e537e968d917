import Planning

/// What a changeset edit touches: the plan rows of `RowChange.Entity`, plus the per-category
/// statistic row a changeset creates for a new category (Store-local: only the store decides
/// when such a row is needed, and its undo removes it).
package enum EditEntity: String, Hashable, Sendable, CaseIterable {
    case task, override, slide, statistic

    package init(_ entity: RowChange.Entity) {
        switch entity {
        case .task: self = .task
        case .override: self = .override
        case .slide: self = .slide
        }
    }

    /// The plan entity, or nil for `statistic`.
    package var rowEntity: RowChange.Entity? { RowChange.Entity(rawValue: rawValue) }
}
