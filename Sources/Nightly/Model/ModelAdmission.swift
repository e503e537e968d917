import Assistant
import Foundation
import Synchronization

/// Who is asked first when the night cannot ask everyone before the model stage's deadline
/// (docs/model.md §8).
///
/// The students stream through the pipelines in the order the database gives them; a budget
/// that runs out before the deadline then cut off whoever came last, a new instruction as
/// readily as a weekly review. Each time a student wants the model, the admission compares
/// what the rest of the night still needs with what the rate limit can still give before the
/// deadline:
///
/// - the budget: the token limit's refill rate (from the headers, via the gate) × the seconds
///   left before `ModelDeadline.runEnd`;
/// - the need: the students not yet reached (`expect(due:)` minus those seen here, × the
///   workers sharing the night) × the share of the seen ones that wanted the model × the tokens
///   the gate reserved per student asked so far.
///
/// When the need exceeds the budget, only `urgent` students are admitted (a new or changed
/// instruction, a flag on a session of today or tomorrow); the others are not reached tonight,
/// with their local edits and a reason that says so, and the call policy asks for them again the
/// next night (nothing was reviewed). Once the refusals bring the need under the budget again,
/// everyone is admitted again. Nothing is refused before `minimumAsked` students were asked
/// (no measure yet), nor against a server that sends no rate-limit headers (no budget known).
package final class ModelAdmission: Sendable {
    private let deadline: ModelDeadline
    private let gate: RateLimitGate
    private let clock: @Sendable () -> Date
    private let state = Mutex(State())

    private struct State {
        var due: Int?
        var workers = 1
        var seen = 0
        var wanted = 0
        var asked = 0
        var refused = 0
    }

    /// Students asked before the measured cost per student is trusted.
    static let minimumAsked = 10

    package static let notReached =
        "not reached before the model stage's deadline: tonight's rate limit went first to new or changed instructions and imminent flags; local edits only, asked again next night"

    package init(deadline: ModelDeadline, gate: RateLimitGate, clock: @escaping @Sendable () -> Date = { Date() }) {
        self.deadline = deadline
        self.gate = gate
        self.clock = clock
    }

    /// The students due tonight, over all workers.
    package func expect(due: Int) { state.withLock { $0.due = max(0, due) } }

    /// The workers sharing the night (this one included); also divides the gate's pacing.
    package func setWorkers(_ count: Int) {
        state.withLock { $0.workers = max(1, count) }
        gate.setWorkers(count)
    }

    /// A student's call policy ran; `wants` whether it asks the model.
    package func saw(wants: Bool) {
        state.withLock {
            $0.seen += 1
            if wants { $0.wanted += 1 }
        }
    }

    /// Students refused so far.
    package var refused: Int { state.withLock { $0.refused } }

    /// Whether a student who wants the model is asked now; `urgent` ones always are.
    package func admit(urgent: Bool) -> Bool {
        let now = clock()
        let reserved = Double(gate.counters.reservedTokens)
        let rate = gate.tokenRate
        return state.withLock { s in
            if urgent
                || !Self.short(s, reserved: reserved, rate: rate, secondsLeft: deadline.runEnd.timeIntervalSince(now))
            {
                s.asked += 1
                return true
            }
            s.refused += 1
            return false
        }
    }

    private static func short(_ s: State, reserved: Double, rate: Double?, secondsLeft: Double) -> Bool {
        guard let due = s.due, let rate, rate > 0, s.asked >= minimumAsked, s.seen > 0 else { return false }
        let perStudent = reserved / Double(s.asked)
        let left = max(0, Double(due) - Double(s.seen * s.workers))
        let need = left * Double(s.wanted) / Double(s.seen) * perStudent
        return need > rate * max(0, secondsLeft)
    }
}
