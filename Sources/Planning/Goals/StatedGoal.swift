import JSON

/// A goal as replan keeps it (docs/model.md §17): the goal, who stated it, the instruction it
/// was stated for, and the date the model asked to look again.
///
/// A goal belongs to its instruction: once the instruction changes, the goal is stale (not
/// checked, shown as such) until the model, the student or the operator states a new one.
package struct StatedGoal: Hashable, Sendable {
    /// Who stated the goal.
    package enum Source: String, Hashable, Sendable, CaseIterable {
        case model, student, `operator`
    }

    package var goal: Goal
    package var setBy: Source
    /// The digest of the instruction the goal was stated for (`ModelCallPolicy.instructionDigest`).
    package var instructionDigest: String
    /// The plan date the goal was stated on.
    package var setOn: CivilDate
    /// The model's own next review date (`reviewAgainOn` of `set_goal`), if it gave one.
    package var reviewAgainOn: CivilDate?

    /// How far ahead the model may set its next review.
    package static let maxReviewDays = 60

    package init(
        goal: Goal, setBy: Source, instructionDigest: String, setOn: CivilDate, reviewAgainOn: CivilDate? = nil
    ) {
        self.goal = goal
        self.setBy = setBy
        self.instructionDigest = instructionDigest
        self.setOn = setOn
        self.reviewAgainOn = reviewAgainOn
    }

    /// Whether the goal was stated for this instruction digest.
    package func belongs(to instructionDigest: String?) -> Bool { self.instructionDigest == instructionDigest }

    /// Checks a review date the model proposed: not before `today`, at most `maxReviewDays` on.
    package static func validateReviewDate(_ date: CivilDate, today: CivilDate) throws(GoalError) {
        guard date >= today else { throw GoalError("reviewAgainOn \(date) is in the past (today is \(today))") }
        guard today.days(until: date) <= maxReviewDays else {
            throw GoalError(
                "reviewAgainOn \(date) is more than \(maxReviewDays) days ahead (at most \(today.adding(days: maxReviewDays)))"
            )
        }
    }

    /// The form kept in `model_memory` and written by `settings show --json`.
    package var json: JSONValue {
        [
            "goal": .string(goal.description), "terms": goal.json, "setBy": .string(setBy.rawValue),
            "instructionDigest": .string(instructionDigest), "setOn": .string(setOn.description),
            "reviewAgainOn": reviewAgainOn.map { .string($0.description) } ?? .null,
        ]
    }

    /// Reads `json`; the goal itself from its JSON form (`terms`).
    package init(json: JSONValue) throws(GoalError) {
        guard case .object(let o) = json, let terms = o["terms"],
            let by = o["setBy"]?.stringValue.flatMap(Source.init(rawValue:)),
            let digest = o["instructionDigest"]?.stringValue,
            let setOn = o["setOn"]?.stringValue.flatMap({ CivilDate($0) })
        else { throw GoalError("a stored goal needs terms, setBy, instructionDigest and setOn") }
        var review: CivilDate?
        if let r = o["reviewAgainOn"], r != .null {
            guard let d = r.stringValue.flatMap({ CivilDate($0) }) else {
                throw GoalError("reviewAgainOn is YYYY-MM-DD")
            }
            review = d
        }
        self.init(
            goal: try Goal(json: terms), setBy: by, instructionDigest: digest, setOn: setOn, reviewAgainOn: review)
    }
}
