import Foundation
import Planning
import ReplanTestSupport
import Testing

@testable import Store

@Suite struct PlanRepositoryTests {
    @Test(arguments: EngineUnderTest.engines) func taskRoundTripsEveryField(_ engine: DatabaseEngine) throws {
        let f = try Fixture(engine)
        let mei = try f.addUser()
        let full = StudyTask(
            id: "eng-1", userID: "mei", title: "English \"reading\" 📖", note: "Unit 3\nline two",
            category: "English", color: .yellow, start: at("2025-01-06T10:00"), end: at("2025-01-06T11:30"),
            subtasks: [Subtask(title: "vocabulary list", done: true), Subtask(title: "summary")],
            repeatRule: RepeatRule(every: .weekly, until: date("2025-03-31")))
        let allDay = StudyTask(
            id: "trip", userID: "mei", title: "Field trip", category: "Biology", color: .red,
            start: at("2025-01-10T00:00"), end: at("2025-01-11T00:00"), allDay: true, completed: true)
        let monthly = StudyTask(
            id: "review", userID: "mei", title: "Monthly review", category: "Planning", color: .blue,
            start: at("2025-01-31T18:00"), end: at("2025-01-31T19:00"), repeatRule: RepeatRule(every: .monthly))
        let habit = StudyTask(
            id: "stretch", userID: "mei", title: "Stretch", category: "Health", color: .blue,
            start: at("2025-01-01T07:00"), end: at("2025-01-01T07:15"),
            repeatRule: RepeatRule(every: .daily, missed: .makeUp))
        try f.seed(UserPlan(user: mei, tasks: [full, allDay, monthly, habit]))

        for original in [full, allDay, monthly, habit] {
            var expected = original
            expected.version = 1
            expected.createdAt = Fixture.now
            expected.updatedAt = Fixture.now
            #expect(try f.plans.task(id: original.id) == expected)
            #expect(try f.plans.taskOwner(taskID: original.id) == "mei")
        }
        #expect(try f.plans.task(id: "nope") == nil)
        #expect(try f.plans.taskOwner(taskID: "nope") == nil)
        // Migration 4's CHECK refuses what is not a policy.
        #expect(throws: StoreError.self) {
            try f.db.execute("UPDATE tasks SET repeat_missed = 'later' WHERE id = 'stretch'")
        }
    }

    @Test(arguments: EngineUnderTest.engines) func overridesAndSlidesRoundTrip(_ engine: DatabaseEngine) throws {
        let f = try Fixture(engine)
        let mei = try f.addUser()
        let overrides = [
            OccurrenceOverride(taskID: "eng", originalDate: date("2025-01-06"), state: .completed),
            OccurrenceOverride(taskID: "eng", originalDate: date("2025-01-07"), state: .skipped),
            OccurrenceOverride(
                taskID: "eng", originalDate: date("2025-01-08"), state: .open,
                start: at("2025-01-08T15:00"), end: at("2025-01-08T16:00")),
            OccurrenceOverride(
                taskID: "eng", originalDate: date("2025-01-09"), state: .completed,
                start: at("2025-01-09T08:00"), end: at("2025-01-09T09:00")),
        ]
        let slides = [
            SeriesSlide(taskID: "eng", from: date("2025-01-10"), days: 1),
            SeriesSlide(taskID: "eng", from: date("2025-01-20"), days: -2),
        ]
        let plan = UserPlan(
            user: mei, tasks: [series("eng", "2025-01-06T10:00", "2025-01-06T11:00", until: "2025-01-31")],
            overrides: overrides, slides: slides)
        try f.seed(plan)
        let loaded = try f.plans.loadPlan(userID: "mei", window: nil)
        #expect(loaded.allOverrides == overrides)
        #expect(loaded.allSlides == slides)
        #expect(try f.plans.overrides(taskID: "eng") == overrides)
        #expect(try f.plans.slides(taskID: "eng") == slides)
        #expect(content(loaded) == content(plan))
    }

    /// Open one-off tasks before the window are loaded too: the nightly rules drop them however
    /// old they are. Completed ones before the window and any after it are not.
    @Test(arguments: EngineUnderTest.engines) func windowLoadsEverySeriesEveryOneOffFromItOnAndOpenOnesBefore(
        _ engine: DatabaseEngine
    ) throws {
        let f = try Fixture(engine)
        let mei = try f.addUser()
        try f.addUser("other")
        let tasks = [
            series("daily", "2024-12-01T20:00", "2024-12-01T20:30"),
            series("weekly", "2024-06-03T09:00", "2024-06-03T10:00", every: .weekly, until: "2024-09-30"),
            oneOff("inside", "2025-01-08T10:00", "2025-01-08T11:00"),
            oneOff("before", "2025-01-02T10:00", "2025-01-02T11:00"),
            oneOff("doneBefore", "2025-01-02T12:00", "2025-01-02T13:00", completed: true),
            oneOff("after", "2025-01-14T10:00", "2025-01-14T11:00"),
            oneOff("endsAtMidnight", "2025-01-05T23:00", "2025-01-06T00:00"),
            oneOff("overnightIntoWindow", "2025-01-05T23:00", "2025-01-06T01:00"),
            oneOff("lastDay", "2025-01-12T23:00", "2025-01-13T00:30"),
            oneOff("longTrip", "2024-12-20T00:00", "2025-01-07T00:00", allDay: true),
        ]
        let overrides = [
            OccurrenceOverride(taskID: "daily", originalDate: date("2024-12-02"), state: .completed),
            OccurrenceOverride(taskID: "daily", originalDate: date("2025-01-07"), state: .skipped),
            OccurrenceOverride(
                taskID: "daily", originalDate: date("2024-12-05"), state: .open,
                start: at("2025-01-09T18:00"), end: at("2025-01-09T18:30")),
            OccurrenceOverride(taskID: "daily", originalDate: date("2025-03-01"), state: .completed),
        ]
        try f.seed(UserPlan(user: mei, tasks: tasks, overrides: overrides))
        try f.seed(
            UserPlan(
                user: try f.users.get("other"),
                tasks: [oneOff("theirs", user: "other", "2025-01-08T10:00", "2025-01-08T11:00")]))

        let plan = try f.plans.loadPlan(userID: "mei", window: date("2025-01-06")...date("2025-01-12"))
        // Every one-off task ahead is loaded too, however far (docs/planning.md G1: a placement is
        // checked against whatever is busy on its day).
        #expect(
            Set(plan.tasks.keys) == [
                "daily", "weekly", "inside", "overnightIntoWindow", "lastDay", "longTrip",
                "before", "endsAtMidnight", "after",
            ])
        #expect(plan.historyFrom != nil)
        // The series' overrides after the window are loaded too (see windowLoadsEveryLaterOverrideOfASeries).
        #expect(
            plan.allOverrides.map(\.occurrenceID.description) == [
                "daily@2024-12-05", "daily@2025-01-07", "daily@2025-03-01",
            ])
        #expect(plan.user.id == "mei")
    }

    /// A slide moves the whole tail of a series and its re-placements reach as far as the
    /// night's rules look, past any window: every override of a series from the window on is
    /// loaded, however far ahead (a completed one must stay pinned, a moved one stays busy and
    /// is not created a second time), and none from long before it.
    @Test(arguments: EngineUnderTest.engines) func windowLoadsEveryLaterOverrideOfASeries(_ engine: DatabaseEngine)
        throws
    {
        let f = try Fixture(engine)
        let mei = try f.addUser()
        let overrides = [
            OccurrenceOverride(taskID: "daily", originalDate: date("2024-06-03"), state: .completed),
            OccurrenceOverride(
                taskID: "daily", originalDate: date("2024-06-04"), state: .open,
                start: at("2025-09-01T20:00"), end: at("2025-09-01T20:30")),
            OccurrenceOverride(
                taskID: "daily", originalDate: date("2025-03-14"), state: .open,
                start: at("2025-04-04T15:00"), end: at("2025-04-04T15:30")),
            OccurrenceOverride(taskID: "daily", originalDate: date("2026-06-01"), state: .completed),
            OccurrenceOverride(taskID: "daily", originalDate: date("2026-06-02"), state: .skipped),
        ]
        try f.seed(
            UserPlan(user: mei, tasks: [series("daily", "2024-06-01T20:00", "2024-06-01T20:30")], overrides: overrides))

        let plan = try f.plans.loadPlan(userID: "mei", window: date("2025-01-06")...date("2025-02-03"))
        #expect(
            plan.allOverrides.map(\.occurrenceID.description)
                == ["daily@2024-06-04", "daily@2025-03-14", "daily@2026-06-01", "daily@2026-06-02"])
    }

    @Test(arguments: EngineUnderTest.engines) func windowWidensOverridesBySlides(_ engine: DatabaseEngine) throws {
        let f = try Fixture(engine)
        let mei = try f.addUser()
        // Slid 30 days: the occurrence originally on 12-08 now sits on 01-07, in the window.
        let plan = UserPlan(
            user: mei, tasks: [series("daily", "2024-12-01T20:00", "2024-12-01T20:30")],
            overrides: [OccurrenceOverride(taskID: "daily", originalDate: date("2024-12-08"), state: .completed)],
            slides: [SeriesSlide(taskID: "daily", from: date("2024-12-03"), days: 30)])
        try f.seed(plan)
        let loaded = try f.plans.loadPlan(userID: "mei", window: date("2025-01-06")...date("2025-01-12"))
        #expect(loaded.allOverrides.count == 1)
        #expect(loaded.occurrences(from: date("2025-01-07"), through: date("2025-01-07")).first?.state == .completed)
    }

    /// The nightly job reads a student's whole plan once when it settles their statistics, and
    /// cuts the window out of it instead of reading it again: the cut must hold exactly the rows
    /// the window query reads, for windows before, over and after every kind of row.
    @Test(arguments: EngineUnderTest.engines) func windowCutFromTheWholePlanEqualsTheWindowRead(
        _ engine: DatabaseEngine
    ) throws {
        let f = try Fixture(engine)
        let mei = try f.addUser()
        try f.addUser("other")
        let tasks = [
            series("daily", "2024-12-01T20:00", "2024-12-01T20:30"),
            series("weekly", "2024-06-03T09:00", "2024-06-03T10:00", every: .weekly, until: "2024-09-30"),
            series("twoDays", "2024-11-04T00:00", "2024-11-06T00:00", every: .weekly),
            oneOff("inside", "2025-01-08T10:00", "2025-01-08T11:00"),
            oneOff("before", "2025-01-02T10:00", "2025-01-02T11:00"),
            oneOff("doneBefore", "2025-01-02T12:00", "2025-01-02T13:00", completed: true),
            oneOff("after", "2025-01-14T10:00", "2025-01-14T11:00"),
            oneOff("endsAtMidnight", "2025-01-05T23:00", "2025-01-06T00:00", completed: true),
            oneOff("overnightIntoWindow", "2025-01-05T23:00", "2025-01-06T01:00", completed: true),
            oneOff("lastDay", "2025-01-12T23:00", "2025-01-13T00:30"),
            oneOff("longTrip", "2024-12-20T00:00", "2025-01-07T00:00", allDay: true, completed: true),
        ]
        let overrides = [
            OccurrenceOverride(taskID: "daily", originalDate: date("2024-12-02"), state: .completed),
            OccurrenceOverride(taskID: "daily", originalDate: date("2024-12-20"), state: .completed),
            OccurrenceOverride(taskID: "daily", originalDate: date("2025-01-07"), state: .skipped),
            OccurrenceOverride(
                taskID: "daily", originalDate: date("2024-12-05"), state: .open,
                start: at("2025-01-09T18:00"), end: at("2025-01-09T18:30")),
            OccurrenceOverride(
                taskID: "daily", originalDate: date("2024-12-06"), state: .open,
                start: at("2024-12-30T18:00"), end: at("2024-12-30T18:30")),
            OccurrenceOverride(taskID: "daily", originalDate: date("2025-03-01"), state: .completed),
            OccurrenceOverride(taskID: "weekly", originalDate: date("2024-06-10"), state: .completed),
            OccurrenceOverride(taskID: "twoDays", originalDate: date("2024-12-23"), state: .completed),
            // Rows no rule reads: an occurrence of a one-off task is the task itself.
            OccurrenceOverride(taskID: "before", originalDate: date("2025-01-02"), state: .completed),
        ]
        try f.seed(
            UserPlan(
                user: mei, tasks: tasks, overrides: overrides,
                slides: [
                    SeriesSlide(taskID: "daily", from: date("2024-12-10"), days: 3),
                    SeriesSlide(taskID: "twoDays", from: date("2024-12-01"), days: -2),
                ]))
        try f.seed(
            UserPlan(
                user: try f.users.get("other"),
                tasks: [oneOff("theirs", user: "other", "2025-01-08T10:00", "2025-01-08T11:00")]))

        let whole = try f.plans.wholePlanAsTheRulesSeeIt(of: mei)
        let everything = try f.plans.loadPlan(user: mei, window: nil)
        #expect(everything.overrides.count == whole.overrides.count + 1)
        #expect(
            whole
                == UserPlan(
                    user: mei, tasks: Array(everything.tasks.values),
                    overrides: everything.allOverrides.filter { $0.taskID != "before" }, slides: everything.allSlides))
        for (from, through) in [
            ("2024-06-01", "2024-06-30"), ("2024-12-28", "2025-01-10"), ("2025-01-06", "2025-01-12"),
            ("2025-01-07", "2025-02-20"), ("2025-02-01", "2025-03-31"), ("2026-01-01", "2026-01-31"),
        ] {
            let window = date(from)...date(through)
            let read = try f.plans.loadPlan(user: mei, window: window)
            #expect(PlanRepository.window(window, of: whole) == read, "\(from)…\(through)")
            #expect(PlanRepository.window(window, of: everything) == read, "\(from)…\(through)")
        }
        // Not everything: the cut drops rows, as the read does.
        #expect(
            PlanRepository.window(date("2025-01-06")...date("2025-01-12"), of: whole).tasks.count < whole.tasks.count)
    }

    /// A read waits on the server once per batch of queries that need no answer of another:
    /// the whole plan is one batch, a window read two (its overrides depend on the series and
    /// slides), each with its transaction's BEGIN, and the COMMIT one more.
    @Test(.enabled(if: EngineUnderTest.engines.contains(.postgresql)))
    func planReadsAreOneBatchEach() throws {
        let f = try Fixture(.postgresql)
        let mei = try f.addUser()
        try f.seed(
            UserPlan(
                user: mei,
                tasks: [
                    series("daily", "2024-12-01T20:00", "2024-12-01T20:30"),
                    oneOff("inside", "2025-01-08T10:00", "2025-01-08T11:00"),
                ],
                overrides: [OccurrenceOverride(taskID: "daily", originalDate: date("2025-01-07"), state: .skipped)],
                slides: [SeriesSlide(taskID: "daily", from: date("2024-12-10"), days: 3)]))
        let db = try #require(f.db as? PostgresConnection)
        let window = date("2025-01-06")...date("2025-01-12")
        // The first reads prepare their statements, once per connection.
        _ = try f.plans.wholePlanAsTheRulesSeeIt(of: mei)
        _ = try f.plans.loadPlan(user: mei, window: window)
        var before = db.roundTrips
        let whole = try f.plans.wholePlanAsTheRulesSeeIt(of: mei)
        #expect(db.roundTrips - before == 2)
        #expect(whole.tasks.count == 2 && whole.allOverrides.count == 1 && whole.allSlides.count == 1)
        before = db.roundTrips
        let read = try f.plans.loadPlan(user: mei, window: window)
        #expect(db.roundTrips - before == 3)
        #expect(read == PlanRepository.window(window, of: whole))
    }

    /// The statistics of the days between a stored base and the window take their one-off
    /// tasks from this read (the window's series rows cover the rest).
    @Test(arguments: EngineUnderTest.engines) func oneOffTasksStartingInDays(_ engine: DatabaseEngine) throws {
        let (f, _) = try Fixture.seeded(
            engine,
            tasks: [
                series("daily", "2024-12-01T20:00", "2024-12-01T20:30"),
                oneOff("dayBefore", "2025-01-04T23:00", "2025-01-05T01:00"),
                oneOff("first", "2025-01-05T00:00", "2025-01-05T01:00", completed: true),
                oneOff("last", "2025-01-06T23:30", "2025-01-07T00:30"),
                oneOff("dayAfter", "2025-01-07T00:00", "2025-01-07T01:00"),
            ])
        let found = try f.plans.oneOffTasks(userID: "mei", startingIn: date("2025-01-05")...date("2025-01-06")).map(
            \.id)
        #expect(Set(found) == ["first", "last"])
    }

    @Test func windowQueriesUseTheirIndexes() throws {
        let f = try Fixture()
        func plan(_ sql: String) throws -> String {
            try f.db.query(
                "EXPLAIN QUERY PLAN " + sql, ["u", "d", "e"].prefix(sql.filter { $0 == "?" }.count).map { .text($0) }
            ) {
                $0.text(3)
            }.joined(separator: " | ")
        }
        #expect(
            try plan(#"SELECT id FROM tasks WHERE user_id = ? AND repeat_every IS NULL AND "end" >= ? AND start < ?"#)
                .contains("USING INDEX tasks_by_user_kind_end (user_id=? AND repeat_every=? AND end>?)"))
        #expect(
            try plan("SELECT id FROM tasks WHERE user_id = ? AND \(PlanRepository.seriesCondition)")
                .contains("tasks_by_user_kind_end (user_id=? AND repeat_every>?)"))
        #expect(
            try plan("SELECT status FROM user_runs WHERE user_id = ? AND plan_date = ?")
                .contains("USING COVERING INDEX user_runs_by_user_date (user_id=? AND plan_date=?)"))
    }

    /// SQLite opens a temporary b-tree for every execution of an `IN (…)` list, a `UNION` or
    /// an `ORDER BY` no index provides; the nightly load runs these queries for every student.
    @Test func windowQueriesNeedNoTemporaryBTrees() throws {
        let (f, mei) = try Fixture.seeded(
            tasks: [
                oneOff("m1", "2025-01-07T14:00", "2025-01-07T15:00"),
                series("daily", "2024-12-01T20:00", "2024-12-01T20:30"),
            ],
            overrides: [OccurrenceOverride(taskID: "daily", originalDate: date("2025-01-02"), state: .completed)],
            slides: [SeriesSlide(taskID: "daily", from: date("2024-12-03"), days: 1)])
        let reader = try f.openAgain()
        let opened = Set(reader.cachedSQL)
        _ = try PlanRepository(reader).loadPlan(user: mei, window: date("2025-01-01")...date("2025-01-20"))
        _ = try RunStore(reader).isDone(userID: "mei", planDate: date("2025-01-07"))
        let queries = reader.cachedSQL.filter { !opened.contains($0) && $0.hasPrefix("SELECT") }
        #expect(queries.count == 5) // series, slides, overrides, one-off tasks, the done check
        for sql in queries {
            let ops = try reader.query("EXPLAIN " + sql) { $0.text(1) }
            #expect(!ops.contains("OpenEphemeral") && !ops.contains("SorterOpen"), "\(sql)")
        }
    }

    /// Colours and frequencies are matched on the stored bytes: a value that only starts like
    /// one is refused, naming the row, as the string parser refused it.
    @Test func aStoredColourOrFrequencyMustMatchExactly() throws {
        let (f, _) = try Fixture.seeded(tasks: [
            series("daily", "2024-12-01T20:00", "2024-12-01T20:30"),
            oneOff("m1", "2025-01-07T14:00", "2025-01-07T15:00"),
        ])
        #expect(try f.plans.loadPlan(userID: "mei", window: nil).tasks.count == 2)
        try f.db.execute("PRAGMA ignore_check_constraints = ON")
        try f.db.execute("UPDATE tasks SET color = 'reds' WHERE id = 'm1'")
        #expect(
            storeError { () throws(StoreError) in _ = try f.plans.loadPlan(userID: "mei", window: nil) }
                == .malformedRow(entity: "task", key: "m1", problem: "unknown color"))
        try f.db.execute("UPDATE tasks SET color = 'blue' WHERE id = 'm1'")
        try f.db.execute("UPDATE tasks SET repeat_every = 'dail' WHERE id = 'daily'")
        #expect(
            storeError { () throws(StoreError) in _ = try f.plans.loadPlan(userID: "mei", window: nil) }
                == .malformedRow(entity: "task", key: "daily", problem: "unknown repeat"))
    }

    @Test(arguments: EngineUnderTest.engines) func unknownUserPlanIsATypedError(_ engine: DatabaseEngine) throws {
        let f = try Fixture(engine)
        #expect(
            storeError { () throws(StoreError) in _ = try f.plans.loadPlan(userID: "nobody", window: nil) }
                == .unknownUser("nobody"))
    }
}
