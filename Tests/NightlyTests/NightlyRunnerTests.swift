import Foundation
import Nightly
import Planning
import ReplanTestSupport
import Store
import Synchronization
import Testing

@Suite("The nightly runner (issue: changesets and the nightly job; issue: nightly runs at scale)")
struct NightlyRunnerTests {
    func run(
        _ f: NightlyFixture, concurrency: Int = 4, force: Bool = false, reviewer: ModelReviewer? = nil,
        onModelError: UserPipeline.ModelErrorPolicy = .local, disabled: (@Sendable () -> String?)? = nil,
        now: Date = NightlyFixture.now
    ) throws -> NightlyRunner.Report {
        var options = RunOptions(now: now)
        options.concurrency = concurrency
        options.force = force
        let pipeline = UserPipeline(
            reviewer: reviewer, onModelError: onModelError, modelDisabledReason: disabled ?? { nil })
        return try NightlyRunner(databasePath: f.path, pipeline: pipeline, options: options).run()
    }

    @Test(
        "every due user gets one changeset and one user run; a second run does nothing",
        arguments: EngineUnderTest.engines)
    func oncePerPlanDate(_ engine: DatabaseEngine) throws {
        let f = try NightlyFixture(engine: engine)
        try f.addStudents(12)
        let first = try run(f)
        #expect(first.due == 12 && first.changed == 12 && first.failed == 0)
        let second = try run(f)
        #expect(second.due == 0 && second.done == 0)
        let db = try f.connect()
        #expect(try db.queryFirst("SELECT count(*) FROM changesets WHERE origin = 'nightly'", []) { $0.int(0) } == 12)
        #expect(try db.queryFirst("SELECT count(*) FROM user_runs WHERE status = 'changed'", []) { $0.int(0) } == 12)
    }

    @Test(
        "the nightly job recounts each student's statistics as they stand after the night",
        arguments: EngineUnderTest.engines)
    func statisticsAreRecounted(_ engine: DatabaseEngine) throws {
        let f = try NightlyFixture(engine: engine)
        try f.addStudents(1)
        let db = try f.connect()
        // Monday's session is done, so nothing is overdue; by Tuesday 03:00 the days of
        // Monday's and Tuesday's sessions have come: two sessions, one completed.
        try db.execute("UPDATE tasks SET completed = 1, version = version + 1 WHERE id = 's0-eng-0'", [])
        _ = try run(f)
        let rows = try StatisticsRepository(db).statistics(userID: "s0")
        #expect(rows.map(\.category) == ["English"])
        #expect(rows.first?.taskCount == 2 && rows.first?.completedCount == 1)
        #expect(rows.first?.completionRate == 0.5)
    }

    @Test(
        "--force re-plans users already done; the rules then find nothing more to do",
        arguments: EngineUnderTest.engines)
    func forceReplans(_ engine: DatabaseEngine) throws {
        let f = try NightlyFixture(engine: engine)
        try f.addStudents(3)
        _ = try run(f)
        let again = try run(f, force: true)
        #expect(again.due == 3 && again.unchanged == 3)
    }

    @Test(
        "a run's start, finish and every student's finish are on the run's clock: --now plus the time taken",
        arguments: EngineUnderTest.engines)
    func timesFollowTheRunsClock(_ engine: DatabaseEngine) throws {
        let f = try NightlyFixture(engine: engine)
        try f.addStudents(3)
        let report = try run(f)
        let now = NightlyFixture.now
        // A run of three students takes seconds, not the months between `now` and today.
        let bound = now.addingTimeInterval(600)
        #expect(report.startedAt == now)
        #expect(report.finishedAt >= now && report.finishedAt < bound)
        let db = try f.connect()
        let log = try RunStore(db).runs(limit: 1).map(\.run)
        #expect(log.first?.startedAt == now)
        let finished = try #require(log.first?.finishedAt)
        #expect(finished >= now && finished < bound)
        for userID in ["s0", "s1", "s2"] {
            let runs = try RunStore(db).userRuns(userID: userID)
            #expect(runs.count == 1)
            for r in runs.map(\.userRun) {
                #expect(r.finishedAt >= now && r.finishedAt < bound, "\(userID): \(r.finishedAt)")
            }
        }
    }

    @Test(
        "a worker thread that cannot open the database fails the run with the reason; what was done stays done",
        arguments: EngineUnderTest.engines)
    func workerThatCannotOpenFailsTheRun(_ engine: DatabaseEngine) throws {
        let f = try NightlyFixture(engine: engine)
        try f.addStudents(6)
        var options = RunOptions(now: NightlyFixture.now)
        options.concurrency = 3
        let opened = Mutex(0)
        let runner = NightlyRunner(
            databasePath: f.path, pipeline: UserPipeline(reviewer: nil), options: options,
            openWorkerConnection: { (location) throws(StoreError) -> any SQLExecutor in
                let n = opened.withLock { (n: inout Int) -> Int in
                    n += 1
                    return n
                }
                if n == 2 { throw StoreError.cannotOpen(path: "worker 2", reason: "too many connections") }
                return try location.open()
            })
        #expect {
            _ = try runner.run()
        } throws: { error in
            guard let e = error as? NightlyRunner.RunError, case .store(.cannotOpen(_, let reason)) = e else {
                return false
            }
            return reason == "too many connections"
        }
        // Whatever the other workers finished is committed whole; the next run plans the rest.
        let db = try f.connect()
        let done = try db.queryFirst("SELECT count(*) FROM user_runs", []) { $0.int(0) } ?? -1
        let changesets = try db.queryFirst("SELECT count(*) FROM changesets WHERE origin = 'nightly'", []) {
            $0.int(0)
        }
        #expect(done == changesets)
        let rest = try run(f)
        #expect(rest.due == 6 - done && rest.failed == 0)
    }

    @Test("users whose local time is before 03:00 are not due yet", arguments: EngineUnderTest.engines)
    func runAfterIsLocal(_ engine: DatabaseEngine) throws {
        let f = try NightlyFixture(engine: engine)
        try f.addStudents(2, zone: "America/New_York") // 2025-01-06 14:00 there: past 03:00, plan date Monday
        try f.addStudentsInZone("late", "Pacific/Kiritimati") // UTC+14: 2025-01-07 09:00, due
        let early = NightlyFixture.now.addingTimeInterval(-8 * 3600) // 2025-01-06T11:00Z
        // In Taipei it is 19:00 on Monday, New York 06:00 Monday, Kiritimati 01:00 Tuesday (not yet 03:00).
        let report = try run(f, now: early)
        #expect(report.due == 2)
    }

    @Test(
        "the same database and now give the same changesets whatever the concurrency",
        arguments: EngineUnderTest.engines)
    func deterministicAcrossConcurrency(_ engine: DatabaseEngine) throws {
        let a = try NightlyFixture(engine: engine)
        let b = try NightlyFixture(engine: engine)
        try a.addStudents(40, instruction: "one grammar session on Wednesday")
        switch engine {
        case .sqlite: try FileManager.default.copyItem(atPath: a.path, toPath: b.path)
        case .postgresql: try b.addStudents(40, instruction: "one grammar session on Wednesday")
        }
        let withoutVersion =
            engine == .sqlite ? "json_remove(e.after, '$.version')" : "(e.after::jsonb - 'version')::text"
        // A scripted model that adds one session per student, as a real one would per turn.
        _ = try run(a, concurrency: 1, reviewer: FakeReviewer(behaviour: .createSession, calls: Counter()))
        _ = try run(b, concurrency: 8, reviewer: FakeReviewer(behaviour: .createSession, calls: Counter()))
        // Versions come from one database-wide counter, so they follow the order in which the
        // students committed, which concurrency changes; everything else is the same.
        let withoutVersions = { (rows: [String]) in
            rows.map { $0.split(separator: " ").dropLast().joined(separator: " ") }
        }
        #expect(try withoutVersions(a.taskRows()) == withoutVersions(b.taskRows()))
        let edits = { (f: NightlyFixture) in
            try f.connect().query(
                """
                SELECT c.user_id, e.seq, e.entity, e.entity_key, e.before,
                       CASE WHEN e.after IS NULL OR e.entity = 'statistic' THEN e.after ELSE \(withoutVersion) END, e.reason
                FROM changeset_edits e JOIN changesets c ON c.id = e.changeset_id WHERE c.origin = 'nightly'
                ORDER BY c.user_id, e.seq
                """, []
            ) { s in (0..<7).map { s.optionalText($0) ?? "null" }.joined(separator: "|") }
        }
        let ea = try edits(a)
        let eb = try edits(b)
        #expect(ea.count == 40 * 6)
        // Row images carry updatedAt = now, the same in both runs.
        #expect(ea == eb)
    }

    @Test(
        "quota exhaustion stops model calls for the remaining users, and local edits still land",
        arguments: EngineUnderTest.engines)
    func quotaStopsTheModel(_ engine: DatabaseEngine) throws {
        let f = try NightlyFixture(engine: engine)
        try f.addStudents(6, instruction: "one grammar session on Wednesday")
        let calls = Counter()
        let exhausted = Flag()
        let reviewer = QuotaOnce(calls: calls, exhausted: exhausted)
        let report = try run(
            f, concurrency: 1, reviewer: reviewer, disabled: { exhausted.isSet ? "quota exhausted" : nil })
        #expect(calls.count == 1)
        #expect(report.changed == 6)
        #expect(report.modelUnavailableForAll)
    }

    @Test(
        "a user whose rows changed between load and commit fails cleanly and the others are unaffected",
        arguments: EngineUnderTest.engines)
    func concurrentEditFailsOneUser(_ engine: DatabaseEngine) throws {
        let f = try NightlyFixture(engine: engine)
        try f.addStudents(3, instruction: "one grammar session on Wednesday")
        let reviewer = EditBehindTheBack(path: f.path, victim: "s1")
        let report = try run(f, concurrency: 1, reviewer: reviewer)
        #expect(report.failed == 1 && report.changed == 2)
        let db = try f.connect()
        let error = try db.queryFirst("SELECT error FROM user_runs WHERE user_id = 's1'", []) { $0.optionalText(0) }
        #expect(error??.contains("changed while it was being planned") == true)
        // Nothing of the failed night was written: s1's tasks are as the student left them.
        #expect(
            try db.queryFirst("SELECT count(*) FROM changesets WHERE user_id = 's1' AND origin = 'nightly'", []) {
                $0.int(0)
            } == 0)
        // The next run retries the failed user.
        let retry = try run(f, concurrency: 1)
        #expect(retry.due == 1 && retry.changed == 1)
    }

    @Test(
        "a commit that fails after writing the changeset and statistics leaves nothing of that student",
        arguments: EngineUnderTest.engines)
    func lateCommitFailureLeavesNothing(_ engine: DatabaseEngine) throws {
        let f = try NightlyFixture(engine: engine)
        try f.addStudents(3)
        func rows(of user: String) throws -> [String] {
            let db = try f.connect()
            var all = try f.taskRows().filter { $0.hasPrefix("\(user)-") }
            for table in ["changesets", "statistics", "statistics_base", "user_runs", "notification_outbox"] {
                all += try db.query("SELECT * FROM \(table) WHERE user_id = ?", [.text(user)]) { s in
                    table + ": " + (0..<s.columnCount).map { s.optionalText($0) ?? "null" }.joined(separator: "|")
                }
            }
            return all
        }
        let s0 = try rows(of: "s0")
        let s1 = try rows(of: "s1")
        // The user run is the last row a night writes; refusing it for s1 fails s1's commit
        // after its changeset, statistics and statistics base are written.
        switch engine {
        case .sqlite:
            try f.connect().execute(
                """
                CREATE TRIGGER refuse_s1 BEFORE INSERT ON user_runs WHEN NEW.user_id = 's1'
                BEGIN SELECT RAISE(ABORT, 'refused'); END
                """)
        case .postgresql:
            try f.connect().executeScript(
                """
                CREATE FUNCTION refuse_s1() RETURNS trigger LANGUAGE plpgsql AS $$
                BEGIN RAISE EXCEPTION 'refused'; END $$;
                CREATE TRIGGER refuse_s1 BEFORE INSERT ON user_runs FOR EACH ROW WHEN (NEW.user_id = 's1')
                    EXECUTE FUNCTION refuse_s1();
                """)
        }
        let report = try run(f, concurrency: 1)
        #expect(report.failed == 1 && report.changed == 2)
        #expect(try rows(of: "s1") == s1)
        #expect(try rows(of: "s0") != s0)
    }

    @Test("a second runner on the same database is refused while the first holds the lock")
    func oneRunAtATime() throws {
        let f = try NightlyFixture()
        try f.addStudents(1)
        let held = try #require(try RunLock.tryAcquire(databasePath: f.path))
        #expect(throws: NightlyRunner.RunError.self) { try run(f) }
        withExtendedLifetime(held) {}
    }
}

extension NightlyFixture {
    func addStudentsInZone(_ id: String, _ zone: String) throws {
        let db = try connect()
        let user = try User(id: id, zone: UserZone(identifier: zone))
        try UserRepository(db).add(user, now: NightlyFixture.now)
    }
}

/// Set once from another thread.
typealias Flag = Shared<Bool>

/// The first call runs out of quota.
struct QuotaOnce: ModelReviewer {
    let calls: Counter
    let exhausted: Flag
    func review(_ working: UserPlan, local: PostponementResult, now: Date) -> ModelReview {
        calls.increment()
        exhausted.set()
        return ModelReview(
            plan: working, ending: .failed, requests: 1, error: "insufficient_quota", quotaExhausted: true)
    }
}

/// Plays "the student edits a task in the app while the job plans them": edits the victim's
/// first task through a separate connection during the model stage.
struct EditBehindTheBack: ModelReviewer {
    let path: String
    let victim: String
    func review(_ working: UserPlan, local: PostponementResult, now: Date) -> ModelReview {
        if working.user.id == victim, let db = try? StoreLocation(path).open() {
            _ = try? db.execute(
                "UPDATE tasks SET title = 'edited in the app', version = version + 1 WHERE id = ?",
                [.text("\(victim)-eng-0")])
        }
        return ModelReview(plan: working, ending: .endConversation, requests: 1, turns: 1)
    }
}
