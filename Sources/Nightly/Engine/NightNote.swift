import Foundation
import JSON
import Planning
import Store

/// The morning note (docs/planning.md §12) of a stored changeset or of a night being
/// prepared: what `replan note`, `show`, `week` and the outbox's `note` rows tell the student.
package enum NightNote {
    /// What the note of changeset `record` is rendered from: its report's edits, flags (with the
    /// dates they were stored with), summary and the model's summary and question.
    package static func night(of record: ChangesetRecord, user: User) -> MorningNote.Night {
        night(
            report: record.report, edits: RunLog.edits(of: record),
            planDate: record.header.planDate ?? user.zone.civil(record.header.createdAt).date,
            changesetID: record.header.id.description, user: user)
    }

    /// What the note of a night without a changeset is rendered from: the report its run kept
    /// (its flags and the model's words; no edits, and no changeset to take back).
    package static func night(of run: UserRun, user: User) -> MorningNote.Night {
        night(report: run.report ?? [:], edits: [], planDate: run.planDate, changesetID: nil, user: user)
    }

    private static func night(
        report: JSONValue, edits: [PlanEdit], planDate: CivilDate, changesetID: String?, user: User
    ) -> MorningNote.Night {
        var flags: [PlanFlag] = []
        var starts: [OccurrenceID: CivilDateTime] = [:]
        for f in report["flags"]?.arrayValue ?? [] {
            guard let id = f["id"]?.stringValue.flatMap(OccurrenceID.init),
                let kind = f["flag"]?.stringValue.flatMap(PlanFlag.Kind.init(rawValue:))
            else { continue }
            flags.append(
                PlanFlag(id: id, kind: kind, count: f["count"]?.intValue ?? 1, title: f["title"]?.stringValue ?? ""))
            if let start = f["start"]?.stringValue.flatMap({ CivilDateTime($0) }) { starts[id] = start }
        }
        let s = report["summary"]
        let summary =
            s.map {
                PlanSummary(
                    dropped: $0["dropped"]?.intValue ?? 0, skipped: $0["skipped"]?.intValue ?? 0,
                    rescheduled: $0["rescheduled"]?.intValue ?? 0, chained: $0["chained"]?.intValue ?? 0)
            } ?? PlanSummary(edits: edits)
        let model = report["model"]
        return MorningNote.Night(
            edits: edits, flags: flags, summary: summary, planDate: planDate,
            deleteAfterDays: user.settings.deleteAfterDays, changesetID: changesetID,
            flagStarts: starts, modelSummary: model?["summary"]?.stringValue,
            modelQuestion: model?["question"]?.stringValue)
    }

    /// The night `replan note --user ID` tells of: the student's latest applied nightly
    /// changeset, or a later night that needed them without one.
    package enum Latest: Sendable {
        case changeset(ChangesetID)
        case withoutChangeset(UserRun)
    }

    /// The student's latest night with a note; nil before their first.
    package static func latest(userID: String, database: ReplanDatabase) throws(UseCaseError) -> Latest? {
        let night = try PlanReader(database: database).latestNight(userID: userID)?.0
        let runs = RunStore(database.connection)
        let reported = try storeCall { () throws(StoreError) in try runs.latestReported(userID: userID) }
        guard let reported else { return night.map { .changeset($0.id) } }
        guard let night else { return .withoutChangeset(reported.userRun) }
        // Run ids only grow: the later of the two nights is the one whose run came last.
        let changed = try storeCall { () throws(StoreError) in try runs.userRun(changesetID: night.id) }
        return (changed?.id ?? 0) > reported.id ? .changeset(night.id) : .withoutChangeset(reported.userRun)
    }

    /// The note of a stored changeset in the student's language; nil when it has nothing to say.
    package static func note(of record: ChangesetRecord, user: User) -> MorningNote? {
        MorningNote.render(night(of: record, user: user), language: user.language)
    }

    /// The note of a stored night without a changeset; nil when it has nothing to say.
    package static func note(of run: UserRun, user: User) -> MorningNote? {
        MorningNote.render(night(of: run, user: user), language: user.language)
    }

    /// The note of a night as prepared (before commit, so without a changeset id unless given).
    package static func note(of night: UserNight, user: User, changesetID: ChangesetID? = nil) -> MorningNote? {
        var starts: [OccurrenceID: CivilDateTime] = [:]
        if let plan = night.plans?.original {
            for f in night.flags { starts[f.id] = plan.occurrence(f.id)?.start }
        }
        let n = MorningNote.Night(
            edits: night.edits, flags: night.flags, summary: night.summary, planDate: night.planDate,
            deleteAfterDays: user.settings.deleteAfterDays,
            changesetID: (changesetID ?? night.changesetID)?.description,
            flagStarts: starts, modelSummary: night.model.summary, modelQuestion: night.model.question)
        return MorningNote.render(n, language: user.language)
    }

    /// When a night's note is delivered: the student's morning time on the plan date, or the
    /// commit itself when that has passed (a late run, a student far west of the server).
    package static func deliveryTime(planDate: CivilDate, settings: UserSettings, zone: UserZone, now: Date) -> Date {
        max(zone.instant(CivilDateTime(date: planDate, time: settings.morningTime)), now)
    }

    /// A note as JSON (`show --json`, `note --json`): title, body, the language used and whether
    /// it stood in for the student's.
    package static func json(_ note: MorningNote?) -> JSONValue {
        guard let note else { return .null }
        return [
            "title": .string(note.title), "body": .string(note.body), "language": .string(note.language),
            "fellBack": .bool(note.fellBack),
        ]
    }
}
