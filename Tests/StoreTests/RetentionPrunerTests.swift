import Foundation
import Planning
import ReplanTestSupport
import Testing

@testable import Store

/// Retention: history older than the cutoff goes, in batches; newer history stays.
@Suite struct RetentionPrunerTests {
    /// Nights on `days` days from 2025-01-07 on, each with a changeset, a run, a user run and a
    /// transcript for mei.
    static func history(days: Int) throws -> Fixture {
        let f = try Fixture()
        let mei = try f.addUser()
        let runs = RunStore(f.db)
        var plan = UserPlan(user: mei, tasks: [])
        for d in 0..<days {
            let at = Fixture.now.addingTimeInterval(Double(d) * 86_400)
            let day = date("2025-01-07").adding(days: d)
            var next = plan
            next.put(oneOff("t\(d)", "\(day)T14:00", "\(day)T15:00"))
            let cs = try f.commit(from: plan, to: next, at: at)
            plan = next
            let run = try runs.startRun(startedAt: at)
            let userRun = try runs.record(
                UserRun(runID: run, userID: "mei", planDate: day, status: .changed, changesetID: cs, finishedAt: at))
            try runs.storeTranscript(
                userRunID: userRun, messages: [["role": "system", "content": .string("night \(d)")]])
            try runs.finishRun(id: run, finishedAt: at)
        }
        return f
    }

    @Test func everythingOlderThanTheCutoffGoesInBatchesAndNewerHistoryStays() throws {
        let f = try Self.history(days: 10)
        let cutoff = Fixture.now.addingTimeInterval(6 * 86_400) // nights 0-5 are older
        let pruner = RetentionPruner(f.db)
        let counted = try pruner.count(olderThan: cutoff)
        #expect(
            counted.changesets == 6 && counted.userRuns == 6 && counted.transcripts == 6 && counted.runs == 6,
            "\(counted)")
        let report = try pruner.prune(olderThan: cutoff, batchSize: 2)
        #expect(
            report.changesets == 6 && report.userRuns == 6 && report.transcripts == 6 && report.runs == 6, "\(report)")
        #expect(report.batches >= 3 * 3 + 3, "batches of two, then an empty one per table: \(report.batches)")
        #expect(!report.stopped)
        #expect(try f.count("SELECT count(*) FROM changesets") == 4)
        #expect(
            try f.count("SELECT count(*) FROM changeset_edits WHERE changeset_id NOT IN (SELECT id FROM changesets)")
                == 0)
        #expect(try f.count("SELECT count(*) FROM user_runs") == 4)
        #expect(try f.count("SELECT count(*) FROM transcripts") == 4)
        #expect(try f.count("SELECT count(*) FROM runs") == 4)
        #expect(try f.count("SELECT count(*) FROM tasks") == 10, "the plan itself is never pruned")
        #expect(try pruner.prune(olderThan: cutoff).changesets == 0, "a second prune finds nothing")
    }

    @Test func aPruneStopsBetweenBatchesWhenAskedAndTheNextOneFinishes() throws {
        let f = try Self.history(days: 6)
        let cutoff = Fixture.now.addingTimeInterval(10 * 86_400)
        var asked = 0
        let first = try RetentionPruner(f.db).prune(
            olderThan: cutoff, batchSize: 2,
            shouldStop: {
                asked += 1
                return asked > 2
            })
        #expect(first.stopped && first.changesets == 4, "\(first)")
        let rest = try RetentionPruner(f.db).prune(olderThan: cutoff, batchSize: 2)
        #expect(!rest.stopped && rest.changesets == 2 && rest.userRuns == 6 && rest.runs == 6, "\(rest)")
    }
}
