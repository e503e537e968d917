import Foundation
import Planning
import ReplanTestSupport
import Store
import Testing

@testable import Nightly

/// A student's night opens with one read transaction (`NightRead`). On PostgreSQL each query
/// that waits for its answer is a round trip over the network, so the read sends what needs no
/// other answer together: the memory and the statistics base, then the plan's queries.
@Suite struct NightReadTests {
    static let now = TestClock.tuesdayNightTaipei

    func student(_ db: any SQLExecutor, _ temporary: TemporaryDatabase) throws -> User {
        let user = try User(id: "mei", zone: UserZone(identifier: "Asia/Taipei"))
        let course = StudyTask(
            id: "algebra", userID: "mei", title: "Algebra", category: "Math",
            start: CivilDateTime("2024-12-02T09:00")!, end: CivilDateTime("2024-12-02T10:00")!,
            repeatRule: RepeatRule(every: .daily))
        let essay = StudyTask(
            id: "essay", userID: "mei", title: "Essay", category: "English",
            start: CivilDateTime("2025-01-08T10:00")!, end: CivilDateTime("2025-01-08T11:00")!)
        try temporary.add(
            UserPlan(
                user: user, tasks: [course, essay],
                overrides: [
                    OccurrenceOverride(taskID: "algebra", originalDate: CivilDate("2025-01-02")!, state: .completed)
                ]),
            to: db)
        return try UserRepository(db).get("mei")
    }

    /// The read gives what each repository reads on its own, on both engines.
    @Test(arguments: EngineUnderTest.engines) func theBatchedReadGivesWhatEachReadGives(_ engine: DatabaseEngine) throws
    {
        let temporary = try TemporaryDatabase(now: Self.now, engine: engine)
        let db = try temporary.connect()
        let user = try student(db, temporary)
        let window = UserPipeline.window(of: user, now: Self.now)
        let first = try NightRead.read(user: user, window: window, db: db)
        #expect(first.memory == nil)
        // The import raised the serial; no base was stored yet.
        #expect(first.statistics.stored == StatisticsBase(serial: 1, through: nil, counts: [:]))
        #expect(first.plan == (try PlanRepository(db).wholePlanAsTheRulesSeeIt(of: user)))

        let settled = window.lowerBound.adding(days: -1)
        try StatisticsBaseRepository(db).store(
            userID: user.id, through: settled, counts: ["Math": CategoryCount(tasks: 3, completed: 1)])
        let memory = ModelMemory(
            instructionDigest: "i", settingsDigest: "s", reviewedOn: settled, planFrom: window.lowerBound,
            planThrough: window.upperBound, planDigest: "p", reviewedFlags: ["a|b"])
        try ModelMemoryRepository(db).store(userID: user.id, memory)
        let later = try NightRead.read(user: user, window: window, db: db)
        #expect(later.memory == memory)
        #expect(later.statistics.stored == (try StatisticsBaseRepository(db).base(userID: user.id)))
        #expect(later.statistics.stored.through == settled)
        #expect(later.plan == (try PlanRepository(db).loadPlan(user: user, window: window)))
    }

    @Test(.enabled(if: EngineUnderTest.engines.contains(.postgresql)))
    func theReadWaitsOnTheServerOncePerBatch() throws {
        let temporary = try TemporaryDatabase(now: Self.now, engine: .postgresql)
        let executor = try temporary.connect()
        let db = try #require(executor as? PostgresConnection)
        let user = try student(db, temporary)
        let window = UserPipeline.window(of: user, now: Self.now)
        _ = try NightRead.read(user: user, window: window, db: db) // prepares the statements
        var before = db.roundTrips
        _ = try NightRead.read(user: user, window: window, db: db)
        // BEGIN with the memory and the base; the whole plan; COMMIT.
        #expect(db.roundTrips - before == 3)

        try StatisticsBaseRepository(db).store(
            userID: user.id, through: window.lowerBound.adding(days: -1), counts: [:])
        _ = try NightRead.read(user: user, window: window, db: db)
        before = db.roundTrips
        _ = try NightRead.read(user: user, window: window, db: db)
        // BEGIN with the memory and the base; the series, slides and one-off tasks; the
        // overrides; COMMIT.
        #expect(db.roundTrips - before == 4)
    }
}
