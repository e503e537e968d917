import Foundation
import JSON
import Planning

/// What happened to one user in one nightly run.
package enum UserRunStatus: String, Hashable, Sendable, CaseIterable {
    /// A changeset was committed.
    case changed
    /// Planned, nothing to change.
    case unchanged
    /// Not planned (auto-update off, not yet past the run time, …).
    case skipped
    /// Something went wrong; the user is tried again on the next run.
    case failed

    /// Whether the user counts as done for the plan date (not re-planned unless forced).
    package var isFinished: Bool { self == .changed || self == .unchanged }
}

/// One user's outcome inside a run (a row of `user_runs`).
package struct UserRun: Hashable, Sendable {
    package var runID: Int
    package var userID: String
    package var planDate: CivilDate
    package var status: UserRunStatus
    package var changesetID: ChangesetID?
    package var modelCalls: Int
    package var turns: Int
    package var promptTokens: Int
    package var completionTokens: Int
    package var reasoningTokens: Int
    package var cachedTokens: Int
    package var durationMilliseconds: Int
    /// What went wrong, for `failed` (never an API key or request body).
    package var error: String?
    package var finishedAt: Date
    /// Why the model was or was not asked (`flags`, `new-instruction`, `unchanged`, …).
    package var modelDecision: String?
    /// The `finish_reason` of each model request, comma-separated.
    package var finishReasons: String?
    /// Estimated cost of the student's model requests, in US dollars.
    package var costUSD: Double = 0
    /// What the morning note of a night without a changeset is rendered from (its flags with
    /// their starts, the model's summary and question, as a changeset's report holds them);
    /// nil for a night with a changeset, which keeps it there, and for a quiet night.
    package var report: JSONValue?

    package init(
        runID: Int, userID: String, planDate: CivilDate, status: UserRunStatus, changesetID: ChangesetID? = nil,
        modelCalls: Int = 0, turns: Int = 0, promptTokens: Int = 0, completionTokens: Int = 0,
        reasoningTokens: Int = 0, cachedTokens: Int = 0, durationMilliseconds: Int = 0,
        error: String? = nil, finishedAt: Date
    ) {
        self.runID = runID
        self.userID = userID
        self.planDate = planDate
        self.status = status
        self.changesetID = changesetID
        self.modelCalls = modelCalls
        self.turns = turns
        self.promptTokens = promptTokens
        self.completionTokens = completionTokens
        self.reasoningTokens = reasoningTokens
        self.cachedTokens = cachedTokens
        self.durationMilliseconds = durationMilliseconds
        self.error = error
        self.finishedAt = finishedAt
    }
}

/// A stored user run with its row id (the key of its transcript).
package struct UserRunRecord: Hashable, Sendable {
    package var id: Int
    package var userRun: UserRun

    package init(id: Int, userRun: UserRun) {
        self.id = id
        self.userRun = userRun
    }
}

/// One invocation of the nightly job (a row of `runs`).
package struct RunRecord: Hashable, Sendable {
    package var id: Int
    package var startedAt: Date
    /// Nil while running, or when the process died before finishing.
    package var finishedAt: Date?
    /// The options the run was started with (no secrets).
    package var options: JSONValue

    package init(id: Int, startedAt: Date, finishedAt: Date?, options: JSONValue) {
        self.id = id
        self.startedAt = startedAt
        self.finishedAt = finishedAt
        self.options = options
    }
}

/// A run with its user runs, as `log` shows it.
package struct RunWithStudents: Hashable, Sendable {
    package var run: RunRecord
    package var userRuns: [UserRunRecord]

    package init(run: RunRecord, userRuns: [UserRunRecord]) {
        self.run = run
        self.userRuns = userRuns
    }
}
