import Foundation
import Nightly
import Planning
import ReplanTestSupport
import Store
import Testing

@Suite("Retention and the outbox as use cases")
struct RetentionTests {
    @Test("a dry count and the prune agree; nothing younger than the cutoff goes", arguments: EngineUnderTest.engines)
    func countThenPrune(_ engine: DatabaseEngine) throws {
        let f = try NightlyFixture(engine: engine)
        try f.addStudents(2)
        let retention = Retention(database: try f.database())
        let young = try retention.count(olderThan: Retention.cutoff(days: 30, now: NightlyFixture.now))
        #expect(young.changesets == 0)
        let later = NightlyFixture.now.addingTimeInterval(40 * 86_400)
        let cutoff = Retention.cutoff(days: 30, now: later)
        let counted = try retention.count(olderThan: cutoff)
        #expect(counted.changesets == 2)
        let pruned = try #require(try retention.prune(olderThan: cutoff, shouldStop: { false }))
        #expect(pruned.changesets == 2 && !pruned.stopped)
        #expect(try retention.count(olderThan: cutoff).changesets == 0)
    }

    @Test(
        "a night is one use case: it runs, then prunes what is older than the retention; an interrupted night prunes nothing",
        arguments: EngineUnderTest.engines)
    func theNightPrunesAfterItself(_ engine: DatabaseEngine) throws {
        let f = try NightlyFixture(engine: engine)
        try f.addStudents(2)
        _ = try NightlyRunner(
            databasePath: f.path, pipeline: UserPipeline(reviewer: nil), options: RunOptions(now: NightlyFixture.now)
        ).run()
        let later = NightlyFixture.now.addingTimeInterval(40 * 86_400)
        func job(stop: Bool) throws -> NightlyJob {
            NightlyJob(
                database: try f.database(),
                runner: NightlyRunner(
                    databasePath: f.path, pipeline: UserPipeline(reviewer: nil), options: RunOptions(now: later),
                    shouldStop: { stop }),
                retentionDays: 30, shouldStop: { stop })
        }
        let interrupted = try job(stop: true).run()
        #expect(interrupted.report.interrupted && interrupted.pruned == nil)
        let outcome = try job(stop: false).run()
        #expect(outcome.report.due == 2 && outcome.pruneError == nil)
        // The first night's changesets (and whatever else the fixture wrote then) are 40 days
        // old: gone; tonight's two stay.
        #expect((outcome.pruned?.changesets ?? 0) >= 2)
        let left = try f.connect().query("SELECT origin FROM changesets", []) { $0.text(0) }
        #expect(left == ["nightly", "nightly"])
    }

    @Test("the pipelines of a night: 8 locally, the model's in flight with it, at most 64 a worker on PostgreSQL")
    func defaultConcurrency() {
        #expect(NightlyJob.defaultConcurrency(modelOn: false, modelConcurrency: 256, engine: .sqlite) == 8)
        #expect(NightlyJob.defaultConcurrency(modelOn: true, modelConcurrency: 256, engine: .sqlite) == 256)
        #expect(NightlyJob.defaultConcurrency(modelOn: true, modelConcurrency: 256, engine: .postgresql) == 64)
        #expect(NightlyJob.defaultConcurrency(modelOn: true, modelConcurrency: 16, engine: .postgresql) == 16)
    }

    @Test(
        "an undo writes the reminders it changes; rows come after the cursor and an ack removes them",
        arguments: EngineUnderTest.engines)
    func outbox(_ engine: DatabaseEngine) throws {
        let f = try NightlyFixture(engine: engine)
        try f.addStudents(1)
        let db = try f.database()
        var settings = try Roster(database: db).settings(of: "s0")
        settings.notificationsEnabled = true
        try Roster(database: db).save(settings, of: "s0")
        let change = try f.moveByHand("s0-eng-2", to: "2025-01-08T15:00", db: db)
        let undo = ChangesetReversal(database: db, direction: .undo, retentionDays: nil)
        _ = try undo.perform(undo.load(change.changesetID), force: false, now: NightlyFixture.now)
        let outbox = Outbox(database: db)
        let rows = try outbox.entries(after: 0, limit: 100)
        #expect(!rows.isEmpty)
        let last = try #require(rows.last?.id)
        #expect(try outbox.entries(after: last, limit: 100).isEmpty)
        #expect(try outbox.acknowledge(through: last) == rows.count)
        #expect(try outbox.entries(after: 0, limit: 100).isEmpty)
    }
}
