import Foundation
import Nightly
import Planning
import ReplanTestSupport
import Store
import Testing

@Suite("log and show as a use case: runs, students, changesets, and what each changeset holds")
struct RunLogTests {
    func night(_ f: NightlyFixture) throws {
        let pipeline = UserPipeline(reviewer: nil)
        var options = RunOptions(now: NightlyFixture.now)
        options.concurrency = 2
        _ = try NightlyRunner(databasePath: f.path, pipeline: pipeline, options: options).run()
    }

    @Test("the overview lists the run and the changesets; students only when asked", arguments: EngineUnderTest.engines)
    func overview(_ engine: DatabaseEngine) throws {
        let f = try NightlyFixture(engine: engine)
        try f.addStudents(3)
        try night(f)
        let log = RunLog(database: try f.database())
        let plain = try log.entries(RunLog.Query())
        #expect(plain.totals.count == 1 && plain.totals[0].users == 3 && plain.totals[0].changed == 3)
        #expect(plain.students.isEmpty)
        // Three imports and three nights.
        #expect(plain.changesets.count == 6)
        var query = RunLog.Query()
        query.students = true
        query.userID = "s1"
        let one = try log.entries(query)
        #expect(one.students[one.totals[0].run.id]?.map(\.userRun.userID) == ["s1"])
        #expect(Set(one.changesets.map(\.userID)) == ["s1"])
    }

    @Test("a question about runs (--run, --status) gets no changesets")
    func runsOnly() throws {
        let f = try NightlyFixture()
        try f.addStudents(2)
        try night(f)
        let log = RunLog(database: try f.database())
        var query = RunLog.Query()
        query.filter = .status(.changed)
        query.students = true
        let changed = try log.entries(query)
        #expect(changed.changesets.isEmpty)
        #expect(changed.students.values.joined().count == 2)
        query.runID = changed.totals[0].run.id
        #expect(try log.entries(query).totals.count == 1)
    }

    @Test("an unknown run or student is bad input", arguments: EngineUnderTest.engines)
    func unknowns(_ engine: DatabaseEngine) throws {
        let f = try NightlyFixture(engine: engine)
        try f.addStudents(1)
        let log = RunLog(database: try f.database())
        var query = RunLog.Query()
        query.runID = 7
        #expect(throws: UseCaseError.badInput("no run 7 (replan log lists the runs)")) { try log.entries(query) }
        query = RunLog.Query()
        query.userID = "nobody"
        #expect(throws: UseCaseError.badInput("no user 'nobody'")) { try log.entries(query) }
    }

    @Test(
        "show: a night's changeset has its edits and report; a night without the model has no transcript",
        arguments: EngineUnderTest.engines)
    func showOneChangeset(_ engine: DatabaseEngine) throws {
        let f = try NightlyFixture(engine: engine)
        try f.addStudents(1)
        try night(f)
        let db = try f.database()
        let header = try #require(try PlanReader(database: db).latestNight(userID: "s0")).0
        let log = RunLog(database: db)
        let record = try log.changeset(header.id)
        #expect(record.header.origin == .nightly && !record.edits.isEmpty)
        #expect(!RunLog.edits(of: record).isEmpty)
        #expect(try log.transcript(of: header.id) == nil)
        #expect(throws: UseCaseError.badInput("no changeset 'c-nope'")) { try log.changeset("c-nope") }
    }
}
