import Foundation
import Nightly
import Planning
import ReplanTestSupport
import Store
import Testing

/// Instructions compile into goals (docs/model.md §17), night after night, on both engines:
/// the model states the goal, replan keeps it, checks it every night and asks only when the
/// plan falls short where it has room, never twice for the same shortfall left as it was.
@Suite("Goals across nights")
struct GoalNightTests {
    static let instruction = "30 minutes of English every weekday"
    static let goal = "at-least 30m English on mon-fri"
    static let day = 86_400.0

    /// The student did every session before `day` (so the rules move nothing), then the night runs.
    func night(_ f: NightlyFixture, _ model: SensibleModel, now: Date) throws -> String? {
        let day = Fx.taipei.civil(now).date
        try f.connect().execute("UPDATE tasks SET completed = 1 WHERE start < ?", [.text(day.description)])
        var pipeline = UserPipeline(reviewer: model)
        pipeline.policy = ModelCallPolicy(reviewEveryDays: 0)
        var options = RunOptions(now: now)
        options.force = true
        _ = try NightlyRunner(databasePath: f.path, pipeline: pipeline, options: options).run()
        return try f.connect().queryFirst(
            "SELECT model_decision FROM user_runs WHERE run_id = (SELECT max(id) FROM runs) AND user_id = 's0'", []
        ) { $0.optionalText(0) } ?? nil
    }

    @Test("the model's goal is kept, holds, and a shortfall asks once", arguments: EngineUnderTest.engines)
    func aGoalAsksOnlyOnANewShortfall(_ engine: DatabaseEngine) throws {
        let f = try NightlyFixture(engine: engine)
        try f.addStudents(1, instruction: Self.instruction)
        let calls = Counter()
        let diligent = SensibleModel(goals: [Self.instruction: Self.goal], calls: calls)
        #expect(try night(f, diligent, now: NightlyFixture.now) == "asked: new-instruction")
        let memory = try #require(try ModelMemoryRepository(f.connect()).memory(userID: "s0"))
        #expect(memory.goal?.goal.description == Self.goal)
        #expect(memory.goal?.setBy == .model)
        #expect(memory.goal?.belongs(to: memory.instructionDigest) == true)
        #expect(memory.goalUnmended.isEmpty)

        // The model mended every weekday of the week: the next night holds, nobody is asked,
        // and no periodic review comes for a goal that holds.
        var when = NightlyFixture.now.addingTimeInterval(Self.day)
        #expect(try night(f, diligent, now: when) == "not asked: goal-holds")
        #expect(calls.count == 1)

        when = when.addingTimeInterval(Self.day)
        #expect(try night(f, diligent, now: when) == "not asked: goal-holds")

        // A lazy-then-idle model leaves a shortfall: asked once, then not again while it stays.
        let idle = SensibleModel(goals: [Self.instruction: Self.goal], calls: calls, mood: { _, _ in .idle })
        try f.connect().execute("DELETE FROM tasks WHERE id LIKE 'm-%' AND start LIKE ?", [.text("2025-01-13%")])
        try f.connect().execute("DELETE FROM tasks WHERE id LIKE 'm-%' AND start LIKE ?", [.text("2025-01-10%")])
        when = when.addingTimeInterval(Self.day)
        #expect(try night(f, idle, now: when) == "asked: goal-shortfall")
        let left = try #require(try ModelMemoryRepository(f.connect()).memory(userID: "s0"))
        #expect(!left.goalUnmended.isEmpty)
        let asked = calls.count
        when = when.addingTimeInterval(Self.day)
        let again = try night(f, idle, now: when)
        // Monday's shortfall stays as it was (Friday's has passed), and the days entering the
        // week were planned ahead: nothing new.
        #expect(again == "not asked: goal-unmended")
        #expect(calls.count == asked)
    }

    @Test("a changed instruction makes the goal stale until a new one is stated", arguments: EngineUnderTest.engines)
    func aChangedInstructionStalesTheGoal(_ engine: DatabaseEngine) throws {
        let f = try NightlyFixture(engine: engine)
        try f.addStudents(1, instruction: Self.instruction)
        let db = try f.database()
        let goals = InstructionGoals(database: db)
        try goals.save(
            nil, goal: .some(try Goal(parsing: "none-after 21:00")), by: .student, of: "s0", now: NightlyFixture.now)
        var shown = try goals.goal(of: "s0")
        #expect(shown.stated?.goal.description == "none-after 21:00")
        #expect(shown.stated?.setBy == .student)
        #expect(shown.current)

        var settings = try Roster(database: db).settings(of: "s0")
        settings.instruction = "no English at all"
        try Roster(database: db).save(settings, of: "s0")
        shown = try goals.goal(of: "s0")
        #expect(!shown.current)

        // The model states a new one for the new instruction on the next night.
        let model = SensibleModel(goals: ["no English at all": "not-checkable: nothing to measure"])
        #expect(try night(f, model, now: NightlyFixture.now) == "asked: new-instruction")
        shown = try goals.goal(of: "s0")
        #expect(shown.current)
        #expect(shown.stated?.goal == .notCheckable(reason: "nothing to measure"))

        try goals.save(nil, goal: .some(nil), by: .operator, of: "s0", now: NightlyFixture.now)
        #expect(try goals.goal(of: "s0").stated == nil)
    }

    @Test(
        "a goal for a student without an instruction is refused and writes nothing", arguments: EngineUnderTest.engines)
    func noInstructionNoGoal(_ engine: DatabaseEngine) throws {
        let f = try NightlyFixture(engine: engine)
        try f.addStudents(1)
        let goals = InstructionGoals(database: try f.database())
        var settings = try Roster(database: try f.database()).settings(of: "s0")
        settings.tone = "cheerful"
        #expect(throws: UseCaseError.self) {
            try goals.save(
                settings, goal: .some(try Goal(parsing: "none-on sun")), by: .student, of: "s0", now: NightlyFixture.now
            )
        }
        #expect(try Roster(database: try f.database()).settings(of: "s0").tone != "cheerful")
        #expect(try goals.goal(of: "s0").stated == nil)
    }
}
