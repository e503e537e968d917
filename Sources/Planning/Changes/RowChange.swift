import JSON

/// One row a changeset touches: which table and key, the row before and after (nil when the
/// row does not exist on that side), and why. Applying sets `after`; undoing sets `before`.
package struct RowChange: Hashable, Sendable {
    /// The stored entities a changeset may touch.
    package enum Entity: String, Sendable, Hashable, CaseIterable {
        case task, override, slide
    }

    package var entity: Entity
    /// `TASKID` for tasks, `TASKID@YYYY-MM-DD` for overrides (original date) and slides (from date).
    package var key: String
    package var before: JSONValue?
    package var after: JSONValue?
    package var reason: String

    package init(entity: Entity, key: String, before: JSONValue?, after: JSONValue?, reason: String) {
        self.entity = entity
        self.key = key
        self.before = before
        self.after = after
        self.reason = reason
    }

    /// The change that undoes this one.
    package var inverted: RowChange {
        RowChange(entity: entity, key: key, before: after, after: before, reason: reason)
    }

    /// The version stored in an image (absent row: nil).
    package static func version(of image: JSONValue?) -> Int? { image?["version"]?.intValue }
}
