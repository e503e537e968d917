import Foundation
import Planning

/// What happened to one user in one nightly run.
public enum UserRunStatus: String, Hashable, Sendable, CaseIterable {
    /// A changeset was committed.
    case changed
    /// Planned, nothing to change.
    case unchanged
    /// Not planned (auto-update off, not yet past the run time, …).
    case skipped
    /// Something went wrong; the user is tried again on the next run.
    case failed

    /// Whether the user counts as done for the plan date (not re-planned unless forced).
    public var isFinished: Bool { self == .changed || self == .unchanged }
}

/// One user's outcome inside a run (a row of `user_runs`).
public struct UserRun: Hashable, Sendable {
    public var runID: Int
    public var userID: String
    public var planDate: CivilDate
    public var status: UserRunStatus
    public var changesetID: ChangesetID?
    public var modelCalls: Int
    public var turns: Int
    public var promptTokens: Int
    public var completionTokens: Int
    public var reasoningTokens: Int
    public var cachedTokens: Int
    public var durationMilliseconds: Int
    /// What went wrong, for `failed` (never an API key or request body).
    public var error: String?
    public var finishedAt: Date
    /// Why the model was or was not asked (`flags`, `new-instruction`, `unchanged`, …).
    package var modelDecision: String?
    /// The `finish_reason` of each model request, comma-separated.
    package var finishReasons: String?
    /// Estimated cost of the student's model requests, in US dollars.
    package var costUSD: Double = 0

    public init(runID: Int, userID: String, planDate: CivilDate, status: UserRunStatus, changesetID: ChangesetID? = nil,
                modelCalls: Int = 0, turns: Int = 0, promptTokens: Int = 0, completionTokens: Int = 0,
                reasoningTokens: Int = 0, cachedTokens: Int = 0, durationMilliseconds: Int = 0,
                error: String? = nil, finishedAt: Date) {
        self.runID = runID; self.userID = userID; self.planDate = planDate; self.status = status
        self.changesetID = changesetID; self.modelCalls = modelCalls; self.turns = turns
        self.promptTokens = promptTokens; self.completionTokens = completionTokens
        self.reasoningTokens = reasoningTokens; self.cachedTokens = cachedTokens
        self.durationMilliseconds = durationMilliseconds; self.error = error; self.finishedAt = finishedAt
    }
}

/// A stored user run with its row id (the key of its transcript).
public struct UserRunRecord: Hashable, Sendable {
    public var id: Int
    public var userRun: UserRun

    public init(id: Int, userRun: UserRun) { self.id = id; self.userRun = userRun }
}

/// One invocation of the nightly job (a row of `runs`).
public struct RunRecord: Hashable, Sendable {
    public var id: Int
    public var startedAt: Date
    /// Nil while running, or when the process died before finishing.
    public var finishedAt: Date?
    /// The options the run was started with (no secrets).
    public var options: JSONValue

    public init(id: Int, startedAt: Date, finishedAt: Date?, options: JSONValue) {
        self.id = id; self.startedAt = startedAt; self.finishedAt = finishedAt; self.options = options
    }
}

/// A run with its user runs, as `log` shows it.
public struct RunLog: Hashable, Sendable {
    public var run: RunRecord
    public var userRuns: [UserRunRecord]

    public init(run: RunRecord, userRuns: [UserRunRecord]) { self.run = run; self.userRuns = userRuns }
}
