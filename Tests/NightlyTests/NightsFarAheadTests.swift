import Foundation
import Nightly
import Planning
import ReplanTestSupport
import Store
import Testing

/// Nights see what lies beyond the days they load (docs/planning.md G1 and §2): a course
/// appends a missed session after an end weeks away, an appointment out there blocks it, and a
/// night after downtime finds every stale session, however old.
@Suite("Nights and what lies far from their window")
struct NightsFarAheadTests {
    /// A student in UTC, windows off, with a daily course (policy shift) from 2025-01-06 to
    /// 2025-03-31 at 09:00, done Mon–Wed, and what `extra` adds.
    func addStudent(
        at path: String, extra: [StudyTask] = [], done: [String] = ["2025-01-06", "2025-01-07", "2025-01-08"],
        seriesEnd: String? = "2025-03-31"
    ) throws {
        let db = try StoreLocation(path).open()
        var settings = UserSettings()
        settings.windowsEnabled = false
        let user = try User(id: "mei", zone: UserZone(identifier: "UTC"), settings: settings)
        try UserRepository(db).add(user, now: NightsFarAheadTests.night("2025-01-09"))
        _ = try UserRepository(db).saveSettings(settings, for: user.id)
        let course = StudyTask(
            id: "algebra", userID: "mei", title: "Algebra", category: "Math",
            start: CivilDateTime("2025-01-06T09:00")!, end: CivilDateTime("2025-01-06T10:00")!,
            repeatRule: RepeatRule(every: .daily, until: seriesEnd.flatMap { CivilDate($0) }))
        let marks = done.map { OccurrenceOverride(taskID: "algebra", originalDate: CivilDate($0)!, state: .completed) }
        let plan = UserPlan(user: user, tasks: [course] + extra, overrides: marks)
        let changes = PlanDiff.changes(
            from: UserPlan(user: user, tasks: []), to: plan,
            now: NightsFarAheadTests.night("2025-01-09")
        ) { _, _ in "import" }
        _ = try ChangesetStore(db).commit(
            NewChangeset(
                userID: "mei", origin: .import, planDate: nil,
                createdAt: NightsFarAheadTests.night("2025-01-09"), changes: changes))
    }

    /// 03:00 UTC on a date: the student's night.
    static func night(_ day: String) -> Date { Timestamp.date("\(day)T03:00:00Z")! }

    func run(_ path: String, on day: String) throws -> NightlyRunner.Report {
        try NightlyRunner(
            databasePath: path, pipeline: UserPipeline(reviewer: nil),
            options: RunOptions(now: NightsFarAheadTests.night(day))
        ).run()
    }

    func place(_ db: any SQLExecutor, _ date: String) throws -> String? {
        try db.queryFirst(
            "SELECT start FROM occurrence_overrides WHERE task_id = 'algebra' AND original_date = ?", [.text(date)]
        ) {
            $0.optionalText(0)
        } ?? nil
    }

    @Test(
        "a later night sees the session an earlier night appended after a far end, and appends after it",
        arguments: EngineUnderTest.engines)
    func appendedSessionsFollowEachOther(_ engine: DatabaseEngine) throws {
        let f = try NightlyFixture(engine: engine)
        try addStudent(at: f.path)
        let first = try run(f.path, on: "2025-01-10") // Thursday 01-09 missed
        #expect(first.changed == 1 && first.failed == 0)
        let db = try f.connect()
        #expect(try place(db, "2025-01-09") == "2025-04-01T09:00")
        let second = try run(f.path, on: "2025-01-11") // Friday 01-10 missed too
        #expect(second.changed == 1 && second.failed == 0)
        #expect(try place(db, "2025-01-09") == "2025-04-01T09:00")
        #expect(try place(db, "2025-01-10") == "2025-04-02T09:00")
        #expect(try SQL.count(db, "series_slides") == 0, "the version-2 rules write no slides")
    }

    @Test("an appointment weeks away blocks the date a course would be appended to", arguments: EngineUnderTest.engines)
    func farAppointmentBlocks(_ engine: DatabaseEngine) throws {
        let f = try NightlyFixture(engine: engine)
        let dentist = StudyTask(
            id: "dentist", userID: "mei", title: "Dentist", category: "Life",
            start: CivilDateTime("2025-04-01T08:30")!, end: CivilDateTime("2025-04-01T09:30")!)
        try addStudent(at: f.path, extra: [dentist])
        let report = try run(f.path, on: "2025-01-10")
        #expect(report.changed == 1 && report.failed == 0)
        #expect(try place(try f.connect(), "2025-01-09") == "2025-04-02T09:00")
    }

    @Test(
        "after downtime, every stale session of a series is dropped, however old; the next night has nothing left",
        arguments: EngineUnderTest.engines)
    func everyStaleSessionIsDroppedAfterDowntime(_ engine: DatabaseEngine) throws {
        let f = try NightlyFixture(engine: engine)
        try addStudent(at: f.path, done: ["2025-01-06"], seriesEnd: nil) // a habit: policy skip
        // Two months without a run: everything from 01-07 to 02-28 was missed.
        let report = try run(f.path, on: "2025-03-10")
        #expect(report.changed == 1 && report.failed == 0)
        let db = try f.connect()
        let skipped =
            try db.queryFirst(
                "SELECT count(*) FROM occurrence_overrides WHERE task_id = 'algebra' AND state = 'skipped'", []
            ) {
                $0.int(0)
            } ?? 0
        // 01-07 … 03-09: 62 days, every one skipped (stale ones dropped, the last week's missed).
        #expect(skipped == 62)
        let reasons = try db.query(
            "SELECT reason, count(*) FROM changeset_edits e JOIN changesets c ON c.id = e.changeset_id "
                + "WHERE c.origin = 'nightly' GROUP BY reason ORDER BY reason", []
        ) { "\($0.text(0)) \($0.int(1))" }
        #expect(reasons == ["dropped-stale 55", "missed 7"])
        let next = try run(f.path, on: "2025-03-11")
        #expect(next.failed == 0)
        #expect(
            try db.queryFirst(
                "SELECT count(*) FROM occurrence_overrides WHERE task_id = 'algebra' AND state = 'skipped'", []
            ) {
                $0.int(0)
            } == 63)
    }

    @Test(
        "a shorter deleteAfterDays makes the next night drop every session that is now stale",
        arguments: EngineUnderTest.engines)
    func shorterDeleteAfterDaysDropsEverythingNowStale(_ engine: DatabaseEngine) throws {
        let f = try NightlyFixture(engine: engine)
        let db = try f.connect()
        var settings = UserSettings()
        settings.deleteAfterDays = 30
        settings.windows = try WeeklyWindows([:]) // no study window on any day: nothing can be made up
        let user = try User(id: "mei", zone: UserZone(identifier: "UTC"), settings: settings)
        try UserRepository(db).add(user, now: NightsFarAheadTests.night("2025-01-01"))
        _ = try UserRepository(db).saveSettings(settings, for: "mei")
        let lesson = StudyTask(
            id: "piano", userID: "mei", title: "Piano", category: "Music",
            start: CivilDateTime("2024-12-10T18:00")!, end: CivilDateTime("2024-12-10T19:00")!,
            repeatRule: RepeatRule(every: .weekly))
        let changes = PlanDiff.changes(
            from: UserPlan(user: user, tasks: []), to: UserPlan(user: user, tasks: [lesson]),
            now: NightsFarAheadTests.night("2025-01-01")
        ) { _, _ in "import" }
        _ = try ChangesetStore(db).commit(
            NewChangeset(
                userID: "mei", origin: .import, planDate: nil,
                createdAt: NightsFarAheadTests.night("2025-01-01"), changes: changes))
        // 12-10, 12-17, 12-24 and 12-31 missed; within 30 days, and nowhere to make them up.
        #expect(try run(f.path, on: "2025-01-01").failed == 0)
        #expect(try run(f.path, on: "2025-01-02").failed == 0)
        let skippedBefore = try db.queryFirst("SELECT count(*) FROM occurrence_overrides WHERE state = 'skipped'", []) {
            $0.int(0)
        }
        #expect(skippedBefore == 0)
        settings.deleteAfterDays = 3
        _ = try UserRepository(db).saveSettings(settings, for: "mei")
        #expect(try run(f.path, on: "2025-01-03").failed == 0)
        let skipped = try db.query(
            "SELECT original_date FROM occurrence_overrides WHERE state = 'skipped' ORDER BY 1", []
        ) { $0.text(0) }
        #expect(skipped == ["2024-12-10", "2024-12-17", "2024-12-24"])
    }

    @Test(
        "a needs-decision flag counts every stale session of a kept series on every night, not only those in the window"
    )
    func keptFlagKeepsItsCount() throws {
        // A daily "Mock exam" (kept category) open since 2024-12-01: the first night reads the
        // whole history and finds the 33 days through 2025-01-02 stale; each later night skips the
        // day that turned overdue (a habit) and must still count the same 33, although it reads
        // only a window of about two weeks. The count used to fade night by night.
        let f = try NightlyFixture()
        let db = try Database.open(path: f.path)
        var settings = UserSettings()
        settings.windowsEnabled = false
        settings.keepCategories = ["Exam"]
        let user = try User(id: "mei", zone: UserZone(identifier: "UTC"), settings: settings)
        try UserRepository(db).add(user, now: NightsFarAheadTests.night("2025-01-09"))
        _ = try UserRepository(db).saveSettings(settings, for: user.id)
        let exam = StudyTask(
            id: "mock", userID: "mei", title: "Mock exam", category: "Exam",
            start: CivilDateTime("2024-12-01T09:00")!, end: CivilDateTime("2024-12-01T10:00")!,
            repeatRule: RepeatRule(every: .daily))
        let changes = PlanDiff.changes(
            from: UserPlan(user: user, tasks: []), to: UserPlan(user: user, tasks: [exam]),
            now: NightsFarAheadTests.night("2025-01-09")
        ) { _, _ in "import" }
        _ = try ChangesetStore(db).commit(
            NewChangeset(
                userID: "mei", origin: .import, planDate: nil, createdAt: NightsFarAheadTests.night("2025-01-09"),
                changes: changes))
        var counts: [Int] = []
        for day in ["2025-01-10", "2025-01-11", "2025-01-12", "2025-01-13", "2025-01-14"] {
            let (night, _) = try UserPipeline(reviewer: nil).prepare(
                userID: "mei", db: try f.open(), now: NightsFarAheadTests.night(day))
            counts.append(night.flags.first { $0.kind == .needsDecision }?.count ?? 0)
            #expect(try run(f.path, on: day).failed == 0)
        }
        #expect(counts == [33, 33, 33, 33, 33])
    }
}

enum SQL {
    static func count(_ db: any SQLExecutor, _ table: String) throws -> Int {
        try db.queryFirst("SELECT count(*) FROM \(table)", []) { $0.int(0) } ?? 0
    }
}
