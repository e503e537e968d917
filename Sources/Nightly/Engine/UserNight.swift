import Foundation
import JSON
import Planning
import Store

/// One user's night, prepared but not yet committed: what `preview` prints and `run` commits.
package struct UserNight: Sendable {
    package enum Status: String, Sendable {
        case changed, unchanged, skipped, failed
    }

    package var userID: String
    package var planDate: CivilDate
    package var localNow: CivilDateTime
    package var status: Status
    /// The changeset to commit (nil when nothing changes or the user is skipped).
    package var prepared: PlanCommitter.Prepared?
    package var flags: [PlanFlag]
    package var summary: PlanSummary
    package var model: ModelSummary
    package var transcript: JSONValue
    package var error: String?
    /// Filled once committed.
    package var changesetID: ChangesetID?
    package var durationMilliseconds: Int = 0
    /// Per-category counts to store with the night (nil: leave the statistics as they are).
    package var statistics: StatisticsRefresh.Night?
    /// The plan as loaded and as it stands after the night.
    package var plans: (original: UserPlan, after: UserPlan)?
    /// The first date of the window the plan was loaded for (nil when the caller loaded it).
    package var windowStart: CivilDate?
    /// What the call policy remembers once this night commits (nil: nothing changes).
    package var memoryUpdate: MemoryUpdate?
    /// Stale sessions the rules left for the next nights (over `StaleLimits.dropsPerNight`).
    /// While any are left no statistics base is settled, so the next night reads the whole
    /// history again and goes on dropping them.
    package var staleLeft = 0
    /// The student's language when their morning note had to be in English (no texts for it).
    package var noteFellBack: String?
    /// A night without a changeset that needs the student: what its note is rendered from,
    /// kept on its user run (`UserRun.report`), and the note's outbox row when the student has
    /// notifications on. Both nil for a night with a changeset (which carries them) and for a
    /// quiet night.
    package var noteReport: JSONValue?
    package var noteWithoutChangeset: OutboxEntry?

    package enum MemoryUpdate: Sendable, Hashable {
        case store(ModelMemory)
        case delete
    }

    package var edits: [PlanEdit] { prepared?.edits ?? [] }
}

/// What the model stage did, as `run`, `preview`, `log` and `show` report it.
package struct ModelSummary: Sendable {
    package var called: Bool
    package var requests: Int
    package var turns: Int
    package var tokens: TokenCounts
    package var ending: String?
    package var error: String?
    /// The model's closing words to the student, if it gave any.
    package var summary: String?
    /// Why the model was or was not asked (nil when the call policy did not run).
    package var decision: ModelCallPolicy.Decision?
    /// `finish_reason` of each answered request.
    package var finishReasons: [String] = []
    /// The structured end of `end_conversation`.
    package var endStatus: String?
    package var question: String?
    /// Estimated cost of this student's requests, US dollars.
    package var costUSD: Double = 0

    package init(
        called: Bool = false, requests: Int = 0, turns: Int = 0, tokens: TokenCounts = TokenCounts(),
        ending: String? = nil, error: String? = nil, summary: String? = nil
    ) {
        self.called = called
        self.requests = requests
        self.turns = turns
        self.tokens = tokens
        self.ending = ending
        self.error = error
        self.summary = summary
    }

    /// Whether the model was asked and why, in the words `preview`, `run` and `log` all use:
    /// `asked: new-instruction`, `not asked: unchanged`, and for a student the rules wanted
    /// to ask while the model was off or stopped, `not asked: new-instruction (the model is off)`.
    package var decisionText: String? {
        guard let decision else { return nil }
        if called { return "asked: \(decision.reason)" }
        return "not asked: \(decision.reason)" + (decision.ask ? " (the model is off)" : "")
    }

    package var json: JSONValue {
        [
            "called": .bool(called), "requests": .int(requests), "turns": .int(turns), "tokens": tokens.json,
            "ending": ending.map { .string($0) } ?? .null, "error": error.map { .string($0) } ?? .null,
            "summary": summary.map { .string($0) } ?? .null,
            "reason": decision.map { .string($0.reason) } ?? .null,
            "finishReasons": .array(finishReasons.map { .string($0) }),
            "endStatus": endStatus.map { .string($0) } ?? .null, "question": question.map { .string($0) } ?? .null,
            "costUSD": .number((costUSD * 1_000_000).rounded() / 1_000_000),
        ]
    }
}
