import Foundation
import Nightly
import Planning
import ReplanTestSupport
import Store
import Testing

@Suite("The per-user pipeline (docs/model.md §1: when the model is asked; docs/commands.md: preview)")
struct UserPipelineTests {
    @Test(
        "local rules alone: worked example 2's five moves, and preview writes nothing",
        arguments: EngineUnderTest.engines)
    func localRulesOnly(_ engine: DatabaseEngine) throws {
        let f = try NightlyFixture(engine: engine)
        try f.addStudents(1)
        let before = try f.taskRows()
        let (night, review) = try UserPipeline(reviewer: nil).prepare(
            userID: "s0", db: f.connect(), now: NightlyFixture.now)
        #expect(review == nil)
        #expect(night.status == .changed)
        #expect(night.planDate == CivilDate("2025-01-07"))
        #expect(night.edits.map(\.reason) == [.makeUp, .chainShift, .chainShift, .chainShift, .chainShift])
        #expect(night.edits.last?.after?.start == CivilDateTime("2025-01-13T10:00"))
        #expect(night.summary == PlanSummary(dropped: 0, rescheduled: 5, chained: 5))
        #expect(night.model.called == false)
        #expect(try f.taskRows() == before)
    }

    @Test(
        "the rules' moves alone do not ask the model: it is asked for what only it can do",
        arguments: EngineUnderTest.engines)
    func localMovesAloneDoNotAskTheModel(_ engine: DatabaseEngine) throws {
        let f = try NightlyFixture(engine: engine)
        try f.addStudents(1)
        let calls = Counter()
        let (night, _) = try UserPipeline(reviewer: FakeReviewer(behaviour: .endAtOnce, calls: calls))
            .prepare(userID: "s0", db: f.connect(), now: NightlyFixture.now)
        #expect(calls.count == 0)
        #expect(night.edits.count == 5)
        #expect(night.model.decision == ModelCallPolicy.Decision(ask: false, reason: "no-instruction"))
        #expect(night.model.json["reason"] == "no-instruction")
    }

    @Test(
        "a new instruction asks the model; its tokens and estimated cost are reported",
        arguments: EngineUnderTest.engines)
    func newInstructionAsksTheModel(_ engine: DatabaseEngine) throws {
        let f = try NightlyFixture(engine: engine)
        try f.addStudents(1, instruction: "one grammar session on Wednesday")
        let calls = Counter()
        let (night, _) = try UserPipeline(reviewer: FakeReviewer(behaviour: .endAtOnce, calls: calls))
            .prepare(userID: "s0", db: f.connect(), now: NightlyFixture.now)
        #expect(calls.count == 1)
        #expect(night.model.called && night.model.turns == 1 && night.model.tokens.total == 110)
        #expect(night.model.decision?.reason == "new-instruction")
        // 100 input tokens at $1.25 per million and 10 output tokens at $10 per million.
        #expect(abs(night.model.costUSD - 0.000225) < 1e-12)
    }

    @Test("no change, no flag and no instruction: no request is made", arguments: EngineUnderTest.engines)
    func quietNightCostsNothing(_ engine: DatabaseEngine) throws {
        let f = try NightlyFixture(engine: engine)
        try f.addStudents(1)
        let calls = Counter()
        // A week earlier nothing is overdue yet.
        let early = NightlyFixture.now.addingTimeInterval(-7 * 86_400)
        let (night, _) = try UserPipeline(reviewer: FakeReviewer(behaviour: .endAtOnce, calls: calls))
            .prepare(userID: "s0", db: f.connect(), now: early)
        #expect(calls.count == 0)
        #expect(night.status == .unchanged)
    }

    @Test("an instruction alone is enough to ask the model", arguments: EngineUnderTest.engines)
    func instructionAsksTheModel(_ engine: DatabaseEngine) throws {
        let f = try NightlyFixture(engine: engine)
        try f.addStudents(1, instruction: "one grammar session on Wednesday")
        let calls = Counter()
        let early = NightlyFixture.now.addingTimeInterval(-7 * 86_400)
        _ = try UserPipeline(reviewer: FakeReviewer(behaviour: .endAtOnce, calls: calls)).prepare(
            userID: "s0", db: f.connect(), now: early)
        #expect(calls.count == 1)
    }

    @Test("the model's edits join the changeset with reason model", arguments: EngineUnderTest.engines)
    func modelEditsAreReported(_ engine: DatabaseEngine) throws {
        let f = try NightlyFixture(engine: engine)
        try f.addStudents(1, instruction: "one grammar session on Wednesday")
        let (night, _) = try UserPipeline(reviewer: FakeReviewer(behaviour: .createSession, calls: Counter()))
            .prepare(userID: "s0", db: f.connect(), now: NightlyFixture.now)
        let created = try #require(night.edits.first { $0.op == .create })
        #expect(created.reason == .model && created.detail == "as asked" && created.title == "Grammar")
        #expect(night.edits.count == 6)
    }

    @Test(
        "a failing model with --on-model-error=local still commits the local edits", arguments: EngineUnderTest.engines)
    func modelFailureKeepsLocalEdits(_ engine: DatabaseEngine) throws {
        let f = try NightlyFixture(engine: engine)
        try f.addStudents(1, instruction: "one grammar session on Wednesday")
        let (night, _) = try UserPipeline(
            reviewer: FakeReviewer(behaviour: .fail, calls: Counter()), onModelError: .local
        )
        .prepare(userID: "s0", db: f.connect(), now: NightlyFixture.now)
        #expect(night.status == .changed && night.edits.count == 5)
        #expect(night.model.error == "HTTP 503 after 4 retries")
    }

    @Test("a failing model with --on-model-error=skip commits nothing for the user", arguments: EngineUnderTest.engines)
    func modelFailureSkipsUser(_ engine: DatabaseEngine) throws {
        let f = try NightlyFixture(engine: engine)
        try f.addStudents(1, instruction: "one grammar session on Wednesday")
        let (night, _) = try UserPipeline(
            reviewer: FakeReviewer(behaviour: .fail, calls: Counter()), onModelError: .skip
        )
        .prepare(userID: "s0", db: f.connect(), now: NightlyFixture.now)
        #expect(night.status == .skipped && night.prepared == nil)
        #expect(night.error?.contains("HTTP 503") == true)
    }

    @Test("an unknown user is a typed error", arguments: EngineUnderTest.engines)
    func unknownUser(_ engine: DatabaseEngine) throws {
        let f = try NightlyFixture(engine: engine)
        try f.addStudents(1)
        #expect(throws: StoreError.unknownUser("nobody")) {
            try UserPipeline(reviewer: nil).prepare(userID: "nobody", db: f.connect(), now: NightlyFixture.now)
        }
    }
}
