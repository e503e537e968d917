import JSON
import Planning

/// One stored edit of a changeset (a row of `changeset_edits`): entity, key, the row's image
/// before and after (nil = the row did not exist) and the reason.
package struct ChangesetEdit: Hashable, Sendable {
    /// Position in the changeset, from 1; edits are applied in this order and undone in reverse.
    package var seq: Int
    package var entity: EditEntity
    package var key: String
    package var before: JSONValue?
    package var after: JSONValue?
    package var reason: String

    package init(seq: Int, entity: EditEntity, key: String, before: JSONValue?, after: JSONValue?, reason: String) {
        self.seq = seq
        self.entity = entity
        self.key = key
        self.before = before
        self.after = after
        self.reason = reason
    }

    package init(seq: Int, _ change: RowChange) {
        self.init(
            seq: seq, entity: EditEntity(change.entity), key: change.key, before: change.before,
            after: change.after, reason: change.reason)
    }

    /// The plan-row change, or nil for a statistic or focus edit.
    package var rowChange: RowChange? {
        entity.rowEntity.map { RowChange(entity: $0, key: key, before: before, after: after, reason: reason) }
    }

    /// The edit that undoes this one.
    package var inverted: ChangesetEdit {
        ChangesetEdit(seq: seq, entity: entity, key: key, before: after, after: before, reason: reason)
    }
}

extension ChangesetEdit {
    /// The earliest date on which a session can start, before or after the edits, among the
    /// sessions the edits change (used to keep or drop a settled statistics base); nil when
    /// they touch no plan row.
    ///
    /// - a task: its start (a series' sessions start there or later);
    /// - an override: the start it moves the session to or from; where a side has no move,
    ///   the original date;
    /// - a slide: its from date (the sessions it moves start there or later).
    ///
    /// Slides with negative days move sessions before those dates, so for a series every date
    /// is lowered by `backwardShift(taskID)`: the most its slides (stored ones and those in
    /// the edits) can move a session back. An image that does not read counts as touching
    /// everything (0001-01-01).
    package static func earliestAffectedDate(of edits: [ChangesetEdit], backwardShift: (String) -> Int = { _ in 0 })
        -> CivilDate?
    {
        let everything = CivilDate(year: 1, month: 1, day: 1)!
        // Negative days of slides in the edits count too: they may not be stored yet.
        var editedBackward: [String: Int] = [:]
        for edit in edits where edit.entity == .slide {
            guard let taskID = ChildRowKey(edit.key)?.taskID ?? OccurrenceID(edit.key)?.taskID else { continue }
            for image in [edit.before, edit.after] {
                editedBackward[taskID, default: 0] += max(-(image?["days"]?.intValue ?? 0), 0)
            }
        }
        var earliest: CivilDate?
        func note(_ date: CivilDate, series taskID: String?) {
            let shifted =
                taskID.map { date.adding(days: -(backwardShift($0) + editedBackward[$0, default: 0])) } ?? date
            earliest = min(earliest ?? shifted, max(shifted, everything))
        }
        func startDate(_ image: JSONValue?) -> CivilDate? {
            guard let value = image?["start"], value != .null else { return nil }
            return value.stringValue.flatMap { CivilDate($0.prefix(10)) } ?? everything
        }
        for edit in edits where edit.entity.rowEntity != nil {
            if edit.entity == .task {
                for image in [edit.before, edit.after] where image != nil {
                    let isSeries = (image?["repeat"]).map { $0 != .null } ?? false
                    note(startDate(image) ?? everything, series: isSeries ? edit.key : nil)
                }
                continue
            }
            guard let key = ChildRowKey(edit.key) else {
                earliest = everything
                continue
            }
            for image in [edit.before, edit.after] {
                if edit.entity == .override, let moved = startDate(image) {
                    note(moved, series: nil)
                } else {
                    note(key.date, series: key.taskID)
                }
            }
        }
        return earliest
    }
}
