import Foundation
import JSON
import Planning
import Store

/// Turns an edited working copy into the changeset that records it: the row changes, the
/// occurrence-level edits with reasons, and the notification outbox rows. Every write of
/// calendar data — nightly, manual command or import — goes through here, so all of it is
/// reviewable and undoable the same way.
package struct PlanCommitter: Sendable {
    /// A changeset ready to commit, and what it means for the student.
    package struct Prepared: Sendable {
        package var changeset: NewChangeset
        package var edits: [PlanEdit]
    }

    package init() {}

    /// - Parameters:
    ///   - reasons: reasons known for particular occurrences (from the local rules or the
    ///     model); others get `defaultReason`.
    ///   - through: last date whose slid occurrences are listed as edits.
    ///   - summary: the changeset's summary; nil counts the listed edits (docs/planning.md §8, G5:
    ///     the summary of a night counts exactly the edits it lists) and puts the counts in the
    ///     report's "summary" too.
    ///   - report: extra report keys (flags, model) stored with the changeset.
    /// - Returns: nil when the working copy equals the original (nothing to commit).
    package func prepare(
        original: UserPlan, working: UserPlan, origin: ChangesetOrigin, planDate: CivilDate?, now: Date,
        reasons: [OccurrenceID: PlanEdit.Reason], details: [OccurrenceID: String] = [:],
        defaultReason: PlanEdit.Reason, through: CivilDate, summary: JSONValue? = [:],
        report: [String: JSONValue] = [:]
    ) -> Prepared? {
        let changes = PlanDiff.changes(from: original, to: working, now: now) { entity, key in
            switch entity {
            case .slide: return PlanEdit.Reason.chainShift.rawValue
            case .task, .override:
                return (OccurrenceID(key).flatMap { reasons[$0] } ?? defaultReason).rawValue
            }
        }
        guard !changes.isEmpty else { return nil }
        var edits = OccurrenceDiff.edits(from: original, to: working, changes: changes, through: through) {
            reasons[$0] ?? defaultReason
        }
        for i in edits.indices { if let d = details[edits[i].id] { edits[i].detail = d } }
        let outbox = PlanCommitter.outbox(for: edits, plan: working, now: now)
        var report = report
        let counted = summary ?? EditReport.summary(PlanSummary(edits: edits))
        if summary == nil { report["summary"] = counted }
        var changeset = NewChangeset(
            userID: working.user.id, origin: origin, planDate: planDate, createdAt: now, changes: changes,
            summary: counted, report: .object(report), outbox: outbox)
        // The report's "edits" (docs/commands.md §4.1's edit objects), written as text directly.
        changeset.reportMember = ("edits", EditReport.editsText(edits))
        changeset.renderText()
        return Prepared(changeset: changeset, edits: edits)
    }

    /// Reminder bookkeeping for users with notifications on: every edited occurrence's old
    /// reminder is cancelled and, if it still takes place in the future, a new one scheduled
    /// at start − reminderMinutes.
    package static func outbox(for edits: [PlanEdit], plan: UserPlan, now: Date) -> [OutboxEntry] {
        guard plan.settings.notificationsEnabled else { return [] }
        var entries: [OutboxEntry] = []
        for e in edits {
            // A reminder already past has fired or never will: nothing to withdraw.
            if let before = e.before {
                let fire = fireTime(before.start, plan)
                if fire > now { entries.append(OutboxEntry(occurrenceID: e.id, fireAt: fire, action: .cancel)) }
            }
            if let after = e.after, e.op != .skip, e.op != .delete {
                let fire = fireTime(after.start, plan)
                if fire > now { entries.append(OutboxEntry(occurrenceID: e.id, fireAt: fire, action: .schedule)) }
            }
        }
        return entries
    }

    static func fireTime(_ start: CivilDateTime, _ plan: UserPlan) -> Date {
        plan.zone.instant(start).addingTimeInterval(-Double(plan.settings.reminderMinutes * 60))
    }
}
