import Foundation
import Nightly
import Planning
import ReplanTestSupport
import Store

/// The nightly tests' database: a `TemporaryDatabase` whose students (`addStudents`) missed
/// the first day of a five-day course, so each night plan is worked example 2 of docs/planning.md (§9.2).
typealias NightlyFixture = TemporaryDatabase

extension TemporaryDatabase {
    /// Tuesday 2025-01-07 03:00 in Taipei.
    static let now = TestClock.tuesdayNightTaipei

    /// Every task row of every student, as text: compares whole plans.
    func taskRows() throws -> [String] {
        try rows("SELECT id, start, \"end\", 'v' || version FROM tasks ORDER BY id")
    }
}

/// A scripted model stage: moves nothing, or fails, or runs out of quota, as told.
struct FakeReviewer: ModelReviewer {
    enum Behaviour: Sendable { case endAtOnce, fail, quota, createSession, textAnswer, turnLimit, cut }
    let behaviour: Behaviour
    let calls: Counter

    func review(_ working: UserPlan, local: PostponementResult, now: Date) -> ModelReview {
        calls.increment()
        switch behaviour {
        case .endAtOnce:
            return ModelReview(
                plan: working, ending: .endConversation, requests: 1, turns: 1,
                usage: TokenCounts(prompt: 100, completion: 10))
        case .fail:
            return ModelReview(plan: working, ending: .failed, requests: 5, turns: 0, error: "HTTP 503 after 4 retries")
        case .quota:
            return ModelReview(
                plan: working, ending: .failed, requests: 1, error: "insufficient_quota", quotaExhausted: true)
        case .textAnswer:
            return ModelReview(plan: working, ending: .textAnswer, requests: 1, turns: 1, summary: "All good.")
        case .turnLimit:
            return ModelReview(plan: working, ending: .turnLimit, requests: 15, turns: 15, error: "turn-limit")
        case .cut:
            return ModelReview(
                plan: working, ending: .truncated, requests: 3, turns: 3, error: "the conversation was cut")
        case .createSession:
            var plan = working
            let id = "m-\(working.user.id)"
            plan.put(
                StudyTask(
                    id: id, userID: working.user.id, title: "Grammar", category: "English",
                    start: CivilDateTime("2025-01-08T14:00")!, end: CivilDateTime("2025-01-08T15:00")!))
            return ModelReview(
                plan: plan, ending: .endConversation, touched: [OccurrenceID(taskID: id): "as asked"], requests: 2,
                turns: 2)
        }
    }
}

/// A thread-safe count.
typealias Counter = Shared<Int>
