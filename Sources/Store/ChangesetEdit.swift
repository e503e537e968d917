import Planning

/// One stored edit of a changeset (a row of `changeset_edits`): entity, key, the row's image
/// before and after (nil = the row did not exist) and the reason.
public struct ChangesetEdit: Hashable, Sendable {
    /// Position in the changeset, from 1; edits are applied in this order and undone in reverse.
    public var seq: Int
    public var entity: EditEntity
    public var key: String
    public var before: JSONValue?
    public var after: JSONValue?
    public var reason: String

    public init(seq: Int, entity: EditEntity, key: String, before: JSONValue?, after: JSONValue?, reason: String) {
        self.seq = seq; self.entity = entity; self.key = key; self.before = before; self.after = after; self.reason = reason
    }

    public init(seq: Int, _ change: RowChange) {
        self.init(seq: seq, entity: EditEntity(change.entity), key: change.key, before: change.before,
                  after: change.after, reason: change.reason)
    }

    /// The plan-row change, or nil for a statistic edit.
    public var rowChange: RowChange? {
        entity.rowEntity.map { RowChange(entity: $0, key: key, before: before, after: after, reason: reason) }
    }

    /// The edit that undoes this one.
    public var inverted: ChangesetEdit {
        ChangesetEdit(seq: seq, entity: entity, key: key, before: after, after: before, reason: reason)
    }
}
