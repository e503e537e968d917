import Foundation
import ReplanTestSupport
import Testing

@testable import Planning

extension Fx {
    /// The changeset id the notes of the examples name.
    static let noteChangeset = "cs-20250107-030000-abc123"

    /// The night of `plan` at `now` (guarantees checked) and its note in `language`.
    static func note(
        _ plan: UserPlan, at now: String, language: String, changeset: String? = Fx.noteChangeset,
        modelSummary: String? = nil, modelQuestion: String? = nil
    ) -> (PostponementResult, MorningNote?) {
        let result = checkedNight(plan, at: now)
        return (
            result,
            MorningNote.render(
                night(plan, result, changeset: changeset, modelSummary: modelSummary, modelQuestion: modelQuestion),
                language: language)
        )
    }

    /// What a note is rendered from, for a night of the rules.
    static func night(
        _ plan: UserPlan, _ result: PostponementResult, changeset: String? = Fx.noteChangeset,
        modelSummary: String? = nil, modelQuestion: String? = nil
    ) -> MorningNote.Night {
        var starts: [OccurrenceID: CivilDateTime] = [:]
        for f in result.flags { starts[f.id] = plan.occurrence(f.id)?.start }
        return MorningNote.Night(
            edits: result.edits, flags: result.flags, summary: result.summary, planDate: result.now.date,
            deleteAfterDays: plan.settings.deleteAfterDays, changesetID: changeset, flagStarts: starts,
            modelSummary: modelSummary, modelQuestion: modelQuestion)
    }
}
