import Foundation
import JSON
import Planning
import ReplanTestSupport
import Testing

@testable import Store

@Suite struct RunStoreTests {
    @Test(arguments: EngineUnderTest.engines) func userIsDoneOnlyAfterAChangedOrUnchangedRunForThatPlanDate(
        _ engine: DatabaseEngine
    ) throws {
        let f = try Fixture(engine)
        try f.addUser()
        let runs = RunStore(f.db)
        let run = try runs.startRun(startedAt: Fixture.now, options: ["noModel": true])
        let day = date("2025-01-07")
        #expect(try !runs.isDone(userID: "mei", planDate: day))
        try runs.record(
            UserRun(
                runID: run, userID: "mei", planDate: day, status: .failed, error: "model unavailable",
                finishedAt: Fixture.now))
        try runs.record(UserRun(runID: run, userID: "mei", planDate: day, status: .skipped, finishedAt: Fixture.now))
        #expect(try !runs.isDone(userID: "mei", planDate: day))
        try runs.record(UserRun(runID: run, userID: "mei", planDate: day, status: .unchanged, finishedAt: Fixture.now))
        #expect(try runs.isDone(userID: "mei", planDate: day))
        #expect(try !runs.isDone(userID: "mei", planDate: date("2025-01-08")))
    }

    @Test(arguments: EngineUnderTest.engines) func runsAndUserRunsRoundTripNewestFirst(_ engine: DatabaseEngine) throws
    {
        let f = try Fixture(engine)
        let mei = try f.addUser()
        try f.addUser("zoe")
        let runs = RunStore(f.db)
        let first = try runs.startRun(startedAt: Fixture.now, options: ["force": false])
        let cs = try f.seed(UserPlan(user: mei, tasks: [oneOff("m1", "2025-01-07T14:00", "2025-01-07T15:00")]))
        let full = UserRun(
            runID: first, userID: "mei", planDate: date("2025-01-07"), status: .changed, changesetID: cs,
            modelCalls: 3, turns: 4, promptTokens: 1200, completionTokens: 300, reasoningTokens: 150,
            cachedTokens: 800, durationMilliseconds: 5123, error: nil, finishedAt: Fixture.now)
        let fullID = try runs.record(full)
        try runs.record(
            UserRun(
                runID: first, userID: "zoe", planDate: date("2025-01-07"), status: .failed,
                error: "HTTP 503 from the model", finishedAt: Fixture.now))
        try runs.finishRun(id: first, finishedAt: Fixture.now.addingTimeInterval(60))
        let second = try runs.startRun(startedAt: Fixture.later)
        try runs.record(
            UserRun(
                runID: second, userID: "zoe", planDate: date("2025-01-08"), status: .unchanged,
                finishedAt: Fixture.later))

        let all = try runs.runs(limit: 10)
        #expect(all.map(\.run.id) == [second, first])
        #expect(all[0].run.finishedAt == nil)
        #expect(all[1].run.finishedAt == Fixture.now.addingTimeInterval(60))
        #expect(all[1].run.options == ["force": false])
        #expect(all[1].userRuns.map(\.userRun.userID) == ["mei", "zoe"])
        #expect(all[1].userRuns[0] == UserRunRecord(id: fullID, userRun: full))
        #expect(try runs.runs(limit: 1).map(\.run.id) == [second])

        let meiOnly = try runs.runs(limit: 10, userID: "mei")
        #expect(meiOnly.map(\.run.id) == [first])
        #expect(meiOnly[0].userRuns.map(\.userRun.userID) == ["mei"])
        #expect(try runs.userRuns(userID: "zoe").map(\.userRun.status) == [.unchanged, .failed])
        #expect(try runs.userRun(changesetID: cs)?.id == fullID)
    }

    @Test(arguments: EngineUnderTest.engines) func transcriptIsStoredPerUserRun(_ engine: DatabaseEngine) throws {
        let f = try Fixture(engine)
        try f.addUser()
        let runs = RunStore(f.db)
        let run = try runs.startRun(startedAt: Fixture.now)
        let userRun = try runs.record(
            UserRun(
                runID: run, userID: "mei", planDate: date("2025-01-07"), status: .unchanged, finishedAt: Fixture.now))
        #expect(try runs.transcript(userRunID: userRun) == nil)
        let messages: JSONValue = [
            ["role": "system", "content": "You are a calm tutor."], ["role": "assistant", "content": "Done."],
        ]
        try runs.storeTranscript(userRunID: userRun, messages: messages)
        #expect(try runs.transcript(userRunID: userRun) == messages)
    }

    @Test(arguments: EngineUnderTest.engines) func changesetAndUserRunCommitTogetherOrNotAtAll(_ engine: DatabaseEngine)
        throws
    {
        let f = try Fixture(engine)
        let mei = try f.addUser()
        let runs = RunStore(f.db)
        let run = try runs.startRun(startedAt: Fixture.now)
        let plan = UserPlan(user: mei, tasks: [oneOff("m1", "2025-01-07T14:00", "2025-01-07T15:00")])
        let changeset = NewChangeset(
            userID: "mei", origin: .nightly, planDate: date("2025-01-07"), createdAt: Fixture.now,
            changes: PlanDiff.changes(from: UserPlan(user: mei, tasks: []), to: plan, now: Fixture.now) { _, _ in "" })
        // A crash after the commit but before the user run is recorded must leave no changeset.
        let error = storeError { () throws(StoreError) in
            try f.db.write { (db) throws(StoreError) in
                let id = try ChangesetStore(db).commit(
                    changeset)
                _ = id
                throw StoreError.unknownUser("simulated crash")
            }
        }
        #expect(error == .unknownUser("simulated crash"))
        #expect(try f.changesets.changesets().isEmpty)
        #expect(try f.plans.task(id: "m1") == nil)

        try f.db.write { (db) throws(StoreError) in
            let id = try ChangesetStore(db).commit(
                changeset)
            try RunStore(db).record(
                UserRun(
                    runID: run, userID: "mei", planDate: date("2025-01-07"), status: .changed, changesetID: id,
                    finishedAt: Fixture.now))
        }
        #expect(try runs.isDone(userID: "mei", planDate: date("2025-01-07")))
        #expect(try f.plans.task(id: "m1") != nil)
    }
}

@Suite struct StatisticsTests {
    @Test(arguments: EngineUnderTest.engines) func focusSessionsRoundTripAndSumPerCategory(_ engine: DatabaseEngine)
        throws
    {
        let f = try Fixture(engine)
        try f.addUser()
        let focus = FocusSessionRepository(f.db)
        let a = try focus.add(userID: "mei", category: "English", start: at("2025-01-06T10:00"), minutes: 55)
        try focus.add(userID: "mei", category: "English", start: at("2025-01-08T10:00"), minutes: 20)
        try focus.add(userID: "mei", category: "Math", start: at("2025-01-07T14:00"), minutes: 30)
        #expect(try focus.sessions(userID: "mei").first == a)
        #expect(
            try focus.sessions(userID: "mei", dates: date("2025-01-07")...date("2025-01-07")).map(\.category) == [
                "Math"
            ])
        #expect(try focus.minutesByCategory(userID: "mei") == ["English": 75, "Math": 30])
        #expect(
            storeError { () throws(StoreError) in
                _ = try focus.add(userID: "nobody", category: "x", start: at("2025-01-06T10:00"), minutes: 5)
            }
                == .unknownUser("nobody"))
    }

    @Test(arguments: EngineUnderTest.engines) func recomputeReplacesRowsFromCountsAndFocusMinutes(
        _ engine: DatabaseEngine
    ) throws {
        let f = try Fixture(engine)
        try f.addUser()
        try FocusSessionRepository(f.db).add(
            userID: "mei", category: "English", start: at("2025-01-06T10:00"), minutes: 55)
        try FocusSessionRepository(f.db).add(
            userID: "mei", category: "Piano", start: at("2025-01-06T18:00"), minutes: 15)
        let stats = StatisticsRepository(f.db)
        try stats.recompute(userID: "mei", counts: ["Old": CategoryCount(tasks: 1, completed: 0)])
        let rows = try stats.recompute(
            userID: "mei",
            counts: [
                "English": CategoryCount(tasks: 4, completed: 3),
                "Math": CategoryCount(tasks: 2, completed: 0),
            ])
        #expect(try stats.statistics(userID: "mei") == rows)
        #expect(
            rows == [
                CategoryStatistic(
                    category: "English", taskCount: 4, completedCount: 3, completionRate: 0.75, focusMinutes: 55),
                CategoryStatistic(
                    category: "Math", taskCount: 2, completedCount: 0, completionRate: 0, focusMinutes: 0),
                CategoryStatistic(
                    category: "Piano", taskCount: 0, completedCount: 0, completionRate: 0, focusMinutes: 15),
            ])
    }

    /// Rows whose numbers stay are not written again; the rows left are those a fresh
    /// recompute writes.
    @Test func recomputeWritesOnlyTheRowsThatChange() throws {
        let f = try Fixture()
        try f.addUser()
        try f.addUser("zoe")
        try FocusSessionRepository(f.db).add(
            userID: "mei", category: "Piano", start: at("2025-01-06T18:00"), minutes: 15)
        let stats = StatisticsRepository(f.db)
        func rowsWritten(_ counts: [String: CategoryCount]) throws -> Int {
            let before = try f.count("SELECT total_changes()")
            try stats.recompute(userID: "mei", counts: counts)
            return try f.count("SELECT total_changes()") - before
        }
        let night1 = [
            "English": CategoryCount(tasks: 4, completed: 3), "Math": CategoryCount(tasks: 2, completed: 0),
            "Old": CategoryCount(tasks: 1, completed: 1),
        ]
        #expect(try rowsWritten(night1) == 4) // and Piano, for its focus minutes
        #expect(try rowsWritten(night1) == 0)
        var night2 = night1
        night2["Math"] = CategoryCount(tasks: 3, completed: 1)
        night2["Old"] = nil
        night2["Chemistry"] = CategoryCount(tasks: 1, completed: 0)
        #expect(try rowsWritten(night2) == 3) // Math updated, Chemistry inserted, Old deleted

        try stats.recompute(userID: "zoe", counts: night2)
        let fresh = try stats.statistics(userID: "zoe").map {
            [$0.category, "\($0.taskCount)", "\($0.completedCount)", "\($0.completionRate)"]
        }
        #expect(
            try stats.statistics(userID: "mei").filter { $0.category != "Piano" }
                .map { [$0.category, "\($0.taskCount)", "\($0.completedCount)", "\($0.completionRate)"] } == fresh)
        #expect(try stats.statistics(userID: "mei").map(\.category) == ["Chemistry", "English", "Math", "Piano"])
    }
}

@Suite struct RunLockTests {
    @Test func onlyOneHolderAtATime() throws {
        let f = try Fixture()
        var first = try RunLock.tryAcquire(databasePath: f.path)
        #expect(first != nil)
        #expect(first?.path == f.path)
        #expect(try RunLock.tryAcquire(for: f.sqlite) == nil)
        first = nil
        let second = try RunLock.tryAcquire(databasePath: f.path)
        #expect(second != nil)
        #expect(!FileManager.default.fileExists(atPath: f.path + ".lock"), "no lock file to go wrong")
        // The connection's own locks survived the refused attempt and the release: it still writes.
        try f.addUser()
    }

    @Test func lockHeldByAnotherProcessIsSeen() throws {
        let f = try Fixture()
        let flock = Process()
        flock.executableURL = URL(fileURLWithPath: "/usr/bin/flock")
        guard FileManager.default.isExecutableFile(atPath: flock.executableURL!.path) else { return }
        // flock(1) holds the lock while `cat` runs, until this test closes cat's input; then the
        // kernel drops it as they exit. Nothing here depends on how fast the machine is.
        let hold = Pipe()
        flock.arguments = ["--exclusive", f.path, "cat"]
        flock.standardInput = hold
        flock.standardOutput = FileHandle.nullDevice
        try flock.run()
        // Waits for the event, not for a time: the bound only keeps a broken lock from hanging the suite.
        var sawHeld = false
        let deadline = Date().addingTimeInterval(30)
        while !sawHeld && Date() < deadline {
            if try RunLock.tryAcquire(databasePath: f.path) == nil { sawHeld = true } else { usleep(5_000) }
        }
        #expect(sawHeld)
        try hold.fileHandleForWriting.close()
        flock.waitUntilExit()
        #expect(try RunLock.tryAcquire(databasePath: f.path) != nil)
    }

    /// Issue 13, item 9: the lock is what the file is, not how its path is spelled.
    @Test func aSymlinkOrAnotherSpellingOfThePathMeetsTheSameLock() throws {
        let f = try Fixture()
        let link = f.file("link.db")
        try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: f.path)
        let held = try #require(try RunLock.tryAcquire(databasePath: f.path))
        #expect(try RunLock.tryAcquire(databasePath: link) == nil)
        let dotted = f.directory.path + "/./" + "replan.db"
        #expect(try RunLock.tryAcquire(databasePath: dotted) == nil)
        withExtendedLifetime(held) {}
    }

    /// A lock file of an older replan, owned by someone this process cannot open it as, is
    /// no obstacle any more: nothing is opened but the database itself.
    @Test func anUnopenableLockFileBesideTheDatabaseDoesNotStopARun() throws {
        let f = try Fixture()
        #expect(
            FileManager.default.createFile(
                atPath: f.path + ".lock", contents: nil, attributes: [.posixPermissions: 0o000]))
        #expect(try RunLock.tryAcquire(databasePath: f.path) != nil)
    }
}
