import Assistant
import Foundation
import Nightly
import Planning
import ReplanTestSupport
import Store
import Testing

/// The night fits (issue 24): when the rate limit cannot reach every student before the model
/// stage's deadline, new or changed instructions and imminent flags go first.
@Suite("Priority admission under the model stage's deadline")
struct ModelAdmissionTests {
    /// A gate that saw 1,000 tokens a second in the headers and ten requests of 5,000 tokens.
    static func gate(clock: TestClock) -> RateLimitGate {
        let gate = RateLimitGate(maxInFlight: 64, initialInFlight: 8, clock: clock.now)
        gate.observe(headers: [
            "x-ratelimit-limit-tokens": "600000", "x-ratelimit-remaining-tokens": "599000",
            "x-ratelimit-reset-tokens": "1s",
        ])
        for _ in 0..<10 {
            _ = gate.enter(estimatedTokens: 5000, cancellation: nil)
            gate.leave(rateLimitedFor: nil)
        }
        return gate
    }

    /// An admission for 1,000 due students of whom the first ten were asked (5,000 tokens
    /// each), `secondsLeft` before the deadline.
    static func admission(secondsLeft: Double, clock: TestClock) -> ModelAdmission {
        let admission = ModelAdmission(
            deadline: ModelDeadline(perRun: secondsLeft, startedAt: clock.now()), gate: gate(clock: clock),
            clock: clock.now)
        admission.expect(due: 1000)
        for _ in 0..<10 {
            admission.saw(wants: true)
            #expect(admission.admit(urgent: false))
        }
        return admission
    }

    @Test("a budget that cannot reach everyone admits only the urgent; one that can admits all")
    func budgetDecides() {
        let clock = TestClock()
        // 990 students left × 5,000 tokens = 4.95M against 1,000 a second: 82.5 min needed.
        let short = Self.admission(secondsLeft: 3600, clock: clock)
        #expect(short.admit(urgent: false) == false)
        #expect(short.admit(urgent: true))
        #expect(short.refused == 1)
        let enough = Self.admission(secondsLeft: 7200, clock: clock)
        #expect(enough.admit(urgent: false))
        // Workers sharing the night have reached more of the due students together.
        let shared = Self.admission(secondsLeft: 3600, clock: clock)
        shared.setWorkers(100)
        #expect(shared.admit(urgent: false))
    }

    @Test("nothing is refused before ten students were asked, nor without rate-limit headers")
    func noRefusalWithoutAMeasure() {
        let clock = TestClock()
        let early = ModelAdmission(
            deadline: ModelDeadline(perRun: 1, startedAt: clock.now()), gate: Self.gate(clock: clock), clock: clock.now)
        early.expect(due: 1_000_000)
        early.saw(wants: true)
        #expect(early.admit(urgent: false))
        let unpaced = ModelAdmission(
            deadline: ModelDeadline(perRun: 1, startedAt: clock.now()), gate: RateLimitGate(maxInFlight: 8),
            clock: clock.now)
        unpaced.expect(due: 1_000_000)
        for _ in 0..<20 {
            unpaced.saw(wants: true)
            #expect(unpaced.admit(urgent: false))
        }
    }

    @Test(
        "under a short budget a changed setting waits for the next night while a new instruction is asked",
        arguments: EngineUnderTest.engines)
    func urgentFirst(_ engine: DatabaseEngine) throws {
        let f = try NightlyFixture(engine: engine)
        try f.addStudents(1, instruction: "one grammar session on Wednesday")
        // A week before the fixture's night nothing is overdue: no flag.
        let early = NightlyFixture.now.addingTimeInterval(-7 * 86_400)
        let calls = Counter()
        let clock = TestClock()
        var pipeline = UserPipeline(reviewer: FakeReviewer(behaviour: .endAtOnce, calls: calls))
        pipeline.admission = Self.admission(secondsLeft: 60, clock: clock)
        // The first night: a new instruction, urgent, asked.
        let (first, _) = try pipeline.prepare(userID: "s0", db: f.connect(), now: early)
        #expect(calls.count == 1)
        #expect(first.model.decision?.reason == "new-instruction")
        guard case .store(let memory) = try #require(first.memoryUpdate) else {
            Issue.record("no memory after the first night")
            return
        }
        // The next: the session length changed, a reason to ask but not an urgent one.
        var plan = try #require(first.plans?.original)
        plan.user.settings.sessionMinutes = 45
        let (second, _) = pipeline.prepare(original: plan, now: early, memory: memory)
        #expect(second.model.decision?.reason == "settings-changed")
        #expect(calls.count == 1)
        #expect(second.model.called == false)
        #expect(second.model.error == ModelAdmission.notReached)
        #expect(second.status != .failed)
        // Nothing was reviewed: the memory keeps the old settings, so the next night asks again.
        if case .store(let next) = second.memoryUpdate {
            #expect(next.settingsDigest == memory.settingsDigest)
        }
    }
}
