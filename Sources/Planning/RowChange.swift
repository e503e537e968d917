/// One row a changeset touches: which table and key, the row before and after (nil when the
/// row does not exist on that side), and why. Applying sets `after`; undoing sets `before`.
public struct RowChange: Hashable, Sendable {
    /// The stored entities a changeset may touch.
    public enum Entity: String, Sendable, Hashable, CaseIterable {
        case task, override, slide
    }

    public var entity: Entity
    /// `TASKID` for tasks, `TASKID@YYYY-MM-DD` for overrides (original date) and slides (from date).
    public var key: String
    public var before: JSONValue?
    public var after: JSONValue?
    public var reason: String

    public init(entity: Entity, key: String, before: JSONValue?, after: JSONValue?, reason: String) {
        self.entity = entity; self.key = key; self.before = before; self.after = after; self.reason = reason
    }

    /// The change that undoes this one.
    public var inverted: RowChange {
        RowChange(entity: entity, key: key, before: after, after: before, reason: reason)
    }

    /// The version stored in an image (absent row: nil).
    public static func version(of image: JSONValue?) -> Int? { image?["version"]?.intValue }
}
