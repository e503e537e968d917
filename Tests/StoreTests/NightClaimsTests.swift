import Foundation
import Planning
import ReplanTestSupport
import Synchronization
import Testing

@testable import Store

/// Issue 22: claims shared by several workers on one PostgreSQL database.
@Suite(.enabled(if: EngineUnderTest.engines.contains(.postgresql)))
struct NightClaimsTests {
    static let night = CivilDate("2025-01-07")!
    static let from = CivilDate("2025-01-06")!

    /// A database with `count` students, each seeded as due tonight.
    static func seeded(_ count: Int) throws -> Fixture {
        let f = try Fixture(.postgresql)
        for i in 0..<count { try f.addUser(String(format: "u%04d", i), zone: "UTC") }
        // The run the workers register with: run 1 of the fixture.
        _ = try RunStore(f.db).startRun(startedAt: Fixture.now)
        try NightClaims(f.db).seed(
            (0..<count).map { (String(format: "u%04d", $0), night) }, force: false, worker: "seed")
        return f
    }

    @Test func retentionTakesFinishedClaimsAndTheWorkersOfPrunedRuns() throws {
        let f = try Self.seeded(3)
        let claims = NightClaims(f.db)
        try claims.register(worker: "a", runID: 1, lease: 60)
        let taken = try claims.claim(worker: "a", limit: 2, from: Self.from)
        try claims.finish(taken[0], worker: "a", failed: false)
        try claims.finish(taken[1], worker: "a", failed: true)
        try claims.release(worker: "a")
        let early = try RetentionPruner(f.db).prune(olderThan: Timestamp.date("2025-01-07T00:00:00Z")!)
        #expect(early.nightClaims == 0 && early.nightWorkers == 0, "the night's own date is not before the cutoff")
        let late = try RetentionPruner(f.db).prune(olderThan: Timestamp.date("2025-03-01T00:00:00Z")!)
        #expect(late.nightClaims == 2, "the done and the failed claim go; the pending one stays: \(late)")
        #expect(late.runs == 1 && late.nightWorkers == 1, "the run went, and its worker's row with it: \(late)")
        #expect(try f.db.queryFirst("SELECT count(*) FROM night_claims", []) { $0.int(0) } == 1)
    }

    @Test func twoWorkersTakingClaimsAtOnceNeverHoldTheSameStudent() throws {
        let f = try Self.seeded(300)
        let location = try StoreLocation(f.path)
        let taken = Mutex<[String: [String]]>([:])
        let group = DispatchGroup()
        for worker in ["a", "b", "c"] {
            group.enter()
            Thread {
                defer { group.leave() }
                guard let db = try? location.open() else { return }
                let claims = NightClaims(db)
                do { try claims.register(worker: worker, runID: 1, lease: 60) } catch { return }
                while let batch = try? claims.claim(worker: worker, limit: 7, from: Self.from), !batch.isEmpty {
                    taken.withLock { $0[worker, default: []] += batch.map(\.userID) }
                }
            }.start()
        }
        group.wait()
        let all = taken.withLock { $0 }
        let ids = all.values.flatMap { $0 }
        #expect(ids.count == 300)
        #expect(Set(ids).count == 300, "a student was claimed twice")
    }

    @Test func aLeaseThatRunsOutIsTakenOverWithAHigherAttemptAndTheStaleCommitIsFenced() throws {
        let f = try Self.seeded(3)
        let a = NightClaims(f.db)
        let b = NightClaims(try f.connectAgain())
        try a.register(worker: "a", runID: 1, lease: 1)
        try b.register(worker: "b", runID: 1, lease: 60)
        let mine = try a.claim(worker: "a", limit: 10, from: Self.from)
        #expect(mine.map(\.attempt) == [1, 1, 1] && mine.allSatisfy { !$0.rescued })
        // While a's lease holds, b finds nothing to take but knows a holds three.
        #expect(try b.claim(worker: "b", limit: 10, from: Self.from).isEmpty)
        #expect(try b.outstanding(from: Self.from, excluding: "b").held == 3)
        // a stops beating; its lease runs out on the server's clock.
        try f.db.execute("UPDATE night_workers SET lease_until = now() - interval '1 second' WHERE worker = 'a'", [])
        #expect(try b.outstanding(from: Self.from, excluding: "b").abandoned == 3)
        let rescued = try b.claim(worker: "b", limit: 10, from: Self.from)
        #expect(rescued.map(\.userID) == mine.map(\.userID))
        #expect(rescued.allSatisfy { $0.attempt == 2 && $0.rescued })
        // a wakes up and tries to commit its first student: refused, nothing changes.
        let fenced = storeError { () throws(StoreError) in
            try f.db.write { (db) throws(StoreError) in try NightClaims(db).finish(mine[0], worker: "a", failed: false)
            }
        }
        guard case .fenced(let user, let attempt)? = fenced else {
            Issue.record("a stale attempt committed: \(String(describing: fenced))")
            return
        }
        #expect(user == mine[0].userID && attempt == 1)
        try b.finish(rescued[0], worker: "b", failed: false)
        let states = try f.db.query("SELECT state, worker, attempt FROM night_claims ORDER BY user_id", []) {
            "\($0.text(0)) \($0.text(1)) \($0.int(2))"
        }
        #expect(states == ["done b 2", "claimed b 2", "claimed b 2"])
    }

    @Test func aStoppingWorkerHandsItsClaimsBackAtOnce() throws {
        let f = try Self.seeded(4)
        let a = NightClaims(f.db)
        try a.register(worker: "a", runID: 1, lease: 3_600)
        let mine = try a.claim(worker: "a", limit: 10, from: Self.from)
        try a.finish(mine[0], worker: "a", failed: false)
        #expect(try a.release(worker: "a") == 3)
        let b = NightClaims(try f.connectAgain())
        try b.register(worker: "b", runID: 1, lease: 60)
        let taken = try b.claim(worker: "b", limit: 10, from: Self.from)
        #expect(taken.count == 3 && taken.allSatisfy { !$0.rescued && $0.attempt == 2 })
    }

    /// Issue 24: the workers that share the provider's limit are the live ones.
    @Test func liveWorkersAreThoseWithALeaseThatHaveNotStopped() throws {
        let f = try Self.seeded(1)
        let claims = NightClaims(f.db)
        for worker in ["a", "b", "c"] { try claims.register(worker: worker, runID: 1, lease: 3_600) }
        #expect(try claims.liveWorkers() == 3)
        _ = try claims.release(worker: "b")
        #expect(try claims.liveWorkers() == 2)
        try f.db.execute("UPDATE night_workers SET lease_until = now() - interval '1 second' WHERE worker = 'c'", [])
        #expect(try claims.liveWorkers() == 1)
    }

    @Test func aSecondSeedLeavesClaimedAndDoneStudentsAloneAndRetriesFailedOnes() throws {
        let f = try Self.seeded(3)
        let a = NightClaims(f.db)
        try a.register(worker: "a", runID: 1, lease: 60)
        let mine = try a.claim(worker: "a", limit: 2, from: Self.from)
        try a.finish(mine[0], worker: "a", failed: false)
        try a.finish(mine[1], worker: "a", failed: true)
        try a.seed(["u0000", "u0001", "u0002"].map { ($0, Self.night) }, force: false, worker: "seed")
        let states = try f.db.query("SELECT user_id, state FROM night_claims ORDER BY user_id", []) {
            "\($0.text(0)) \($0.text(1))"
        }
        #expect(states == ["u0000 done", "u0001 pending", "u0002 pending"])
    }
}
