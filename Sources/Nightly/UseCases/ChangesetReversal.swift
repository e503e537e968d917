import Foundation
import Planning
import Store

/// `undo` and `redo`: flips a changeset with the conflict check, writes the notification rows
/// the flip implies in the same transaction, then recounts the student's statistics for the
/// plan as it now is.
///
/// The recount runs after the flip has committed, so its failure cannot undo the flip; it is
/// reported in the result (`Done.statisticsFailure`) instead of dropped, so the caller can say
/// that the statistics are stale until the student's next night recounts them.
package struct ChangesetReversal {
    package enum Direction: Sendable, Equatable {
        case undo, redo

        /// "undo" or "redo", for messages.
        package var verb: String { self == .undo ? "undo" : "redo" }
    }

    /// A changeset about to be flipped: enough to show it and ask before doing it.
    package struct Pending: Sendable {
        package var header: ChangesetHeader
        /// The changeset's edits as its report recorded them (as applied, not inverted).
        package var edits: [PlanEdit]
        /// The focus minutes the changeset adds (an import's focus sessions), 0 for none.
        package var focusMinutes = 0
        /// The student as the changeset leaves them (an import's `user` edit), nil when it does
        /// not record them: a redo of the import that created a student who was removed by its
        /// undo reads the student from here.
        package var profile: User?
    }

    /// What a flip did.
    package struct Done: Sendable {
        package var id: ChangesetID
        /// The changeset's state afterwards (`undone` after an undo, `applied` after a redo).
        package var state: ChangesetState
        package var editCount: Int
        /// The focus minutes the flip took back (undo) or brought again (redo).
        package var focusMinutes: Int
        /// Rows changed since the changeset that `force` overwrote.
        package var overwritten: [ConflictRow]
        /// The undo removed the student (the import created them, and nothing of their own was
        /// left); its redo creates them again.
        package var removedStudent = false
        /// Why the statistics could not be recounted; nil when they were. The flip itself is
        /// committed either way.
        package var statisticsFailure: UseCaseError?
    }

    package enum Outcome: Sendable {
        case done(Done)
        /// Refused without `force`: these rows changed since the changeset was applied (undo) or
        /// undone (redo). Nothing was written.
        case refused([ConflictRow])
    }

    let database: ReplanDatabase
    package let direction: Direction
    /// Days of history kept (`retention_days`; nil: forever). Beyond them a changeset's
    /// history may be partly pruned, so `perform` refuses it whoever calls it.
    package let retentionDays: Int?

    package init(database: ReplanDatabase, direction: Direction, retentionDays: Int?) {
        self.database = database
        self.direction = direction
        self.retentionDays = retentionDays
    }

    /// The student's most recent applied changeset (`undo --last`).
    package func lastApplied(userID: String) throws(UseCaseError) -> ChangesetID {
        let store = ChangesetStore(database.connection)
        guard let last = try storeCall({ () throws(StoreError) in try store.lastApplied(userID: userID) }) else {
            throw .badInput("\(userID) has no applied changeset to undo")
        }
        return last.id
    }

    /// The changeset `id`, to confirm and flip. With `owner`, a changeset of another student
    /// is refused (the caller named the student it meant to change; nothing is done).
    package func load(_ id: ChangesetID, owner: String? = nil) throws(UseCaseError) -> Pending {
        let record: ChangesetRecord
        do { record = try ChangesetStore(database.connection).changeset(id) } catch .unknownChangeset {
            throw .badInput(
                "no changeset \(id) (changesets older than retention_days are pruned; replan log lists the recent ones)"
            )
        } catch { throw UseCaseError(store: error) }
        if let owner, owner != record.header.userID {
            throw .badInput("changeset \(id) belongs to \(record.header.userID), not to --user \(owner); nothing done")
        }
        let focus = record.edits.filter { $0.entity == .focus }.map { edit in
            let image = edit.after ?? edit.before
            return (image?["minutes"]?.intValue ?? 0) * FocusRowKey.count(of: image)
        }
        var profile: User?
        if let image = record.edits.first(where: { $0.entity == .user })?.after {
            profile = try storeCall { () throws(StoreError) in
                try ProfileImage.user(from: image, key: record.header.userID)
            }
        }
        return Pending(
            header: record.header,
            edits: (record.report["edits"]?.arrayValue ?? []).compactMap(EditReport.edit(from:)),
            focusMinutes: focus.reduce(0, +), profile: profile)
    }

    /// Beyond the retention the changeset's history may be partly pruned: refuse, clearly.
    /// `perform` checks it itself; a caller that asks the operator first checks it before asking.
    package func refuseBeyondRetention(_ pending: Pending, now: Date) throws(UseCaseError) {
        guard let days = retentionDays, pending.header.createdAt < now.addingTimeInterval(-Double(days) * 86_400)
        else { return }
        throw .badInput(
            "changeset \(pending.header.id) is older than the retention of \(days) days (retention_days); it can no longer be \(direction == .undo ? "undone" : "redone")"
        )
    }

    /// Flips the changeset (`force` overwrites rows changed since), with its notification rows,
    /// then recounts the student's statistics.
    package func perform(_ pending: Pending, force: Bool, now: Date) throws(UseCaseError) -> Outcome {
        try refuseBeyondRetention(pending, now: now)
        let db = database.connection
        let id = pending.header.id
        // The undo of the import that created the student removed them: its redo creates them
        // again, as the changeset recorded them.
        let stored = try storeCall { () throws(StoreError) in try UserRepository(db).find(pending.header.userID) }
        guard let user = stored ?? pending.profile else {
            throw UseCaseError(store: .unknownUser(pending.header.userID))
        }
        let reverted = pending.edits.map { e -> PlanEdit in
            guard direction == .undo else { return e }
            var r = e
            r.before = e.after
            r.after = e.before
            return r
        }
        var outbox = PlanCommitter.outbox(for: reverted, plan: UserPlan(user: user, tasks: []), now: now)
        // A night's student was told about it in the morning; they are told it was taken back
        // (or brought back) too, at once.
        if pending.header.origin == .nightly, user.settings.notificationsEnabled {
            let text = MorningNote.reversal(
                undo: direction == .undo,
                planDate: pending.header.planDate ?? user.zone.civil(pending.header.createdAt).date,
                changesetID: id.description, language: user.language)
            outbox.append(OutboxEntry(note: OutboxEntry.Note(title: text.title, body: text.body), fireAt: now))
        }
        let store = ChangesetStore(db)
        let outcome: ChangesetOutcome
        do {
            outcome =
                try direction == .undo
                ? store.undo(changesetID: id, force: force, now: now, outbox: outbox)
                : store.redo(changesetID: id, force: force, now: now, outbox: outbox)
        } catch .conflict(let conflict) {
            return .refused(conflict.rows)
        } catch { throw UseCaseError(store: error) }
        // Statistics are derived from the plan: recount them for what the plan is now.
        let remains = try storeCall { () throws(StoreError) in try UserRepository(db).exists(user.id) }
        var statisticsFailure: UseCaseError?
        do throws(StoreError) {
            // A student the undo removed has no statistics left to count.
            if remains { try StatisticsRefresh.recount(userID: user.id, today: user.zone.civil(now).date, db: db) }
        } catch {
            statisticsFailure = UseCaseError(store: error)
        }
        return .done(
            Done(
                id: id, state: outcome.changeset.state, editCount: pending.edits.count,
                focusMinutes: pending.focusMinutes,
                overwritten: outcome.overwritten, removedStudent: !remains, statisticsFailure: statisticsFailure))
    }
}
