import Foundation
import Nightly
import Planning
import ReplanTestSupport
import Store
import Testing

@Suite("Nightly statistics: a stored base plus the recent days gives the same counts as recounting all history")
struct StatisticsRefreshTests {
    /// A student since December: a daily series (mostly done), a weekly one, one-off sessions
    /// over the weeks before and after 2025-01-07, some completed, and a slide.
    static func addHistoryStudent(_ f: NightlyFixture) throws -> User {
        let db = try f.connect()
        let user = try User(id: "h", zone: UserZone(identifier: "Asia/Taipei"))
        let daily = StudyTask(
            id: "h-vocab", userID: "h", title: "Vocabulary", category: "English",
            start: CivilDateTime("2024-12-01T07:00")!, end: CivilDateTime("2024-12-01T07:30")!,
            repeatRule: RepeatRule(every: .daily))
        let weekly = StudyTask(
            id: "h-lab", userID: "h", title: "Lab report", category: "Physics",
            start: CivilDateTime("2024-12-03T15:00")!, end: CivilDateTime("2024-12-03T17:00")!,
            repeatRule: RepeatRule(every: .weekly, until: CivilDate("2025-02-28")))
        var tasks = [daily, weekly]
        var overrides: [OccurrenceOverride] = []
        let first = CivilDate("2024-12-01")!
        for d in 0..<37 where d % 5 != 3 {
            overrides.append(
                OccurrenceOverride(taskID: "h-vocab", originalDate: first.adding(days: d), state: .completed))
        }
        for d in stride(from: 2, to: 60, by: 3) {
            let day = first.adding(days: d)
            tasks.append(
                StudyTask(
                    id: "h-math-\(d)", userID: "h", title: "Math \(d)", category: d % 2 == 0 ? "Math" : "Chemistry",
                    start: CivilDateTime(date: day, time: TimeOfDay(hour: 18, minute: 0)),
                    end: CivilDateTime(date: day, time: TimeOfDay(hour: 19, minute: 0)), completed: d < 30 && d % 4 != 0
                ))
        }
        let plan = UserPlan(
            user: user, tasks: tasks, overrides: overrides,
            slides: [SeriesSlide(taskID: "h-lab", from: CivilDate("2024-12-17")!, days: 1)])
        try f.add(plan, to: db)
        return user
    }

    /// Runs the night `day` days after NightlyFixture.now and returns whether its statistics
    /// were counted from scratch.
    func night(_ f: NightlyFixture, day: Int) throws -> Bool? {
        let fromScratch = Box()
        let options = RunOptions(now: NightlyFixture.now.addingTimeInterval(Double(day) * 86_400))
        let report = try NightlyRunner(
            databasePath: f.path, pipeline: UserPipeline(reviewer: nil), options: options,
            onUser: { fromScratch.set($0.statistics?.fromScratch) }
        ).run()
        #expect(report.failed == 0)
        return fromScratch.value
    }

    /// The stored statistics, and the same after recounting the whole history.
    func storedAndRecounted(_ f: NightlyFixture, day: Int) throws -> ([CategoryStatistic], [CategoryStatistic]) {
        let db = try f.connect()
        let stored = try StatisticsRepository(db).statistics(userID: "h")
        let today = CivilDate("2025-01-07")!.adding(days: day)
        try StatisticsRefresh.recount(userID: "h", today: today, db: db)
        return (stored, try StatisticsRepository(db).statistics(userID: "h"))
    }

    @Test(
        "night after night, with a skipped night and an edit of December in between, the counts equal a full recount",
        arguments: EngineUnderTest.engines)
    func incrementalEqualsFullRecount(_ engine: DatabaseEngine) throws {
        let f = try NightlyFixture(engine: engine)
        _ = try StatisticsRefreshTests.addHistoryStudent(f)
        var scratch: [Int: Bool] = [:]
        // Day 6 follows two skipped nights (the window's own series rows cover the gap); day 24
        // follows ten, and drops sessions left open in them.
        for day in [0, 1, 2, 3, 6, 7, 8, 9, 10, 11, 12, 13, 24, 25] {
            if day == 9 {
                // The student files a December session under another course: that reaches back
                // into the base.
                let db = try f.connect()
                let before = try PlanRepository(db).loadPlan(userID: "h", window: nil)
                var after = before
                var december = try #require(before.tasks["h-math-5"])
                december.category = "Biology"
                after.put(december)
                let changes = PlanDiff.changes(from: before, to: after, now: NightlyFixture.now) { _, _ in "manual" }
                _ = try ChangesetStore(db).commit(
                    NewChangeset(
                        userID: "h", origin: .manual, planDate: nil,
                        createdAt: NightlyFixture.now, changes: changes))
            }
            scratch[day] = try night(f, day: day)
            let (stored, recounted) = try storedAndRecounted(f, day: day)
            #expect(stored == recounted, "night \(day)")
            #expect(!stored.isEmpty)
        }
        // The first night has no base; the nights after it read only the recent days, except
        // the one after the December edit.
        #expect(scratch[0] == true)
        #expect(scratch[9] == true)
        #expect(scratch[13] == false)
        #expect(scratch[25] == false)
        #expect(scratch.values.filter { $0 == false }.count >= 6, "\(scratch.sorted { $0.key < $1.key })")
    }

    @Test(
        "after more skipped nights than the window's rows cover, the days in between are read on their own",
        arguments: EngineUnderTest.engines)
    func longGapIsReadOnItsOwn(_ engine: DatabaseEngine) throws {
        let f = try NightlyFixture(engine: engine)
        let db = try f.connect()
        let user = try User(id: "h", zone: UserZone(identifier: "Asia/Taipei"))
        // Nothing for the rules to do: every session up to March is done.
        let daily = StudyTask(
            id: "h-vocab", userID: "h", title: "Vocabulary", category: "English",
            start: CivilDateTime("2024-12-01T07:00")!, end: CivilDateTime("2024-12-01T07:30")!,
            repeatRule: RepeatRule(every: .daily, until: CivilDate("2025-03-01")))
        var tasks = [daily]
        let first = CivilDate("2024-12-01")!
        let overrides = (0..<91).map {
            OccurrenceOverride(taskID: "h-vocab", originalDate: first.adding(days: $0), state: .completed)
        }
        for d in stride(from: 1, to: 80, by: 2) {
            let day = first.adding(days: d)
            tasks.append(
                StudyTask(
                    id: "h-read-\(d)", userID: "h", title: "Reading \(d)", category: d % 3 == 0 ? "History" : "Art",
                    start: CivilDateTime(date: day, time: TimeOfDay(hour: 18, minute: 0)),
                    end: CivilDateTime(date: day, time: TimeOfDay(hour: 19, minute: 0)), completed: true))
        }
        let plan = UserPlan(user: user, tasks: tasks, overrides: overrides)
        try f.add(plan, to: db)
        var scratch: [Bool?] = []
        for day in [0, 1, 13, 14] {
            scratch.append(try night(f, day: day))
            let (stored, recounted) = try storedAndRecounted(f, day: day)
            #expect(stored == recounted, "night \(day)")
            #expect(stored.map(\.category) == ["Art", "English", "History"])
        }
        #expect(scratch == [true, false, false, false])
    }

    @Test(
        "a base counted before a student's edit that commits just ahead of the night is not kept",
        arguments: EngineUnderTest.engines)
    func editBetweenReadAndCommit(_ engine: DatabaseEngine) throws {
        let f = try NightlyFixture(engine: engine)
        _ = try StatisticsRefreshTests.addHistoryStudent(f)
        // The student's December edit lands after the night has read the plan and counted.
        let path = f.path
        let edit: @Sendable (String) -> Void = { _ in
            guard let editor = try? StoreLocation(path).open(),
                let before = try? PlanRepository(editor).loadPlan(userID: "h", window: nil),
                var december = before.tasks["h-math-5"]
            else { return }
            var after = before
            december.category = december.category == "Biology" ? "Chemistry" : "Biology"
            after.put(december)
            let changes = PlanDiff.changes(from: before, to: after, now: NightlyFixture.now) { _, _ in "manual" }
            _ = try? ChangesetStore(editor).commit(
                NewChangeset(
                    userID: "h", origin: .manual, planDate: nil,
                    createdAt: NightlyFixture.now, changes: changes))
        }
        var kept: [Bool] = []
        for day in 0..<6 {
            let options = RunOptions(now: NightlyFixture.now.addingTimeInterval(Double(day) * 86_400))
            // Every other night the edit lands between the night's read and its commit.
            let landsEdit = day % 2 == 0
            let hook: @Sendable (String) -> Void = { id in if landsEdit { edit(id) } }
            _ = try NightlyRunner(
                databasePath: f.path, pipeline: UserPipeline(reviewer: nil), options: options,
                beforeCommit: hook
            ).run()
            // Whatever base is kept must be the truth through its date.
            let db = try f.connect()
            let base = try StatisticsBaseRepository(db).base(userID: "h")
            if let through = base.through {
                let full = try PlanRepository(db).loadPlan(userID: "h", window: nil)
                var truth: [String: CategoryCount] = [:]
                for s in CategoryStatistics.compute(
                    plan: full, focusSessions: [], from: CivilDate("2024-01-01")!, through: through)
                where s.taskCount > 0 {
                    truth[s.category] = CategoryCount(tasks: s.taskCount, completed: s.completedCount)
                }
                #expect(base.counts == truth, "night \(day)")
            }
            kept.append(base.through != nil)
        }
        // Kept on the quiet nights (the base is not dropped for nothing), never after an edit.
        #expect(kept == [false, true, false, true, false, true])
    }
}

/// One optional value set from another thread.
typealias Box = Shared<Bool?>
