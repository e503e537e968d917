import Foundation
import Planning
import ReplanTestSupport
import Testing

@testable import Store

@Suite struct UserRepositoryTests {
    static func customSettings() throws -> UserSettings {
        var s = UserSettings()
        s.windows = try WeeklyWindows(text: [
            .mon: ["09:00-12:00", "14:00-17:00"], .tue: ["09:00-17:00"], .sun: ["20:00-24:00"],
        ])
        s.windowsEnabled = false
        s.sessionMinutes = 45
        s.sessionMinutesEnabled = false
        s.tone = "沉著穩重的專家 \"quoted\""
        s.instruction = "每天安排兩小時英文"
        s.autoUpdate = false
        s.notificationsEnabled = true
        s.reminderMinutes = 30
        s.deleteAfterDays = 3
        s.horizonDays = 21
        s.keepCategories = ["English", "數學"]
        s.splitSessions = true
        return s
    }

    @Test(arguments: EngineUnderTest.engines) func userAndEverySettingRoundTrip(_ engine: DatabaseEngine) throws {
        let f = try Fixture(engine)
        let user = try User(
            id: "mei.lin@school", zone: UserZone(identifier: "Asia/Taipei"), language: "zh-TW",
            displayName: "林美", settings: UserRepositoryTests.customSettings())
        try f.users.add(user, now: Fixture.now)
        #expect(try f.users.get(user.id) == user)
        #expect(try f.users.settings(for: user.id) == user.settings)
    }

    @Test(arguments: EngineUnderTest.engines) func newUserGetsDefaultSettingsRow(_ engine: DatabaseEngine) throws {
        let f = try Fixture(engine)
        try f.addUser()
        #expect(try f.users.settings(for: "mei") == UserSettings())
        #expect(try f.count("SELECT count(*) FROM settings WHERE user_id = 'mei'") == 1)
        #expect(
            try f.db.queryFirst("SELECT windows FROM settings") { $0.text(0) }
                == #"{"fri":["09:00-17:00"],"mon":["09:00-17:00"],"thu":["09:00-17:00"],"tue":["09:00-17:00"],"wed":["09:00-17:00"]}"#
        )
    }

    @Test(arguments: EngineUnderTest.engines) func savingSettingsBumpsTheirVersion(_ engine: DatabaseEngine) throws {
        let f = try Fixture(engine)
        try f.addUser()
        #expect(try f.users.settingsVersion(for: "mei") == 1)
        let settings = try UserRepositoryTests.customSettings()
        #expect(try f.users.saveSettings(settings, for: "mei") == 2)
        #expect(try f.users.settings(for: "mei") == settings)
        #expect(
            storeError { () throws(StoreError) in try f.users.saveSettings(settings, for: "nobody") }
                == .unknownUser("nobody"))
    }

    @Test(arguments: EngineUnderTest.engines) func duplicateUserIsRefusedNamingTheID(_ engine: DatabaseEngine) throws {
        let f = try Fixture(engine)
        try f.addUser()
        let error = storeError { () throws(StoreError) in
            try f.users.add(try! User(id: "mei", zone: UserZone(identifier: "UTC")), now: Fixture.now)
        }
        #expect(error == .duplicateUser("mei"))
        #expect(error?.description.contains("mei") == true)
        #expect(try f.users.get("mei").zone.identifier == "Asia/Taipei")
    }

    @Test(arguments: EngineUnderTest.engines) func unknownUserIsATypedError(_ engine: DatabaseEngine) throws {
        let f = try Fixture(engine)
        #expect(storeError { () throws(StoreError) in _ = try f.users.get("nobody") } == .unknownUser("nobody"))
        #expect(storeError { () throws(StoreError) in try f.users.remove("nobody") } == .unknownUser("nobody"))
        #expect(try f.users.find("nobody") == nil)
    }

    @Test(arguments: EngineUnderTest.engines) func listIsSortedByID(_ engine: DatabaseEngine) throws {
        let f = try Fixture(engine)
        for id in ["zoe", "amy", "Mei", "bo"] { try f.addUser(id) }
        #expect(try f.users.list().map(\.id) == ["Mei", "amy", "bo", "zoe"])
    }

    @Test(arguments: EngineUnderTest.engines) func updateChangesZoneLanguageAndName(_ engine: DatabaseEngine) throws {
        let f = try Fixture(engine)
        var user = try f.addUser()
        user.zone = try UserZone(identifier: "Europe/Berlin")
        user.language = "de"
        user.displayName = "Mei"
        try f.users.update(user, now: Fixture.later)
        #expect(try f.users.get("mei") == user)
    }

    @Test(arguments: EngineUnderTest.engines) func cursorStreamsEveryUserInBatches(_ engine: DatabaseEngine) throws {
        let f = try Fixture(engine)
        let ids = (0..<23).map { "user-\(String(format: "%02d", $0))" }
        for id in ids.shuffled() { try f.addUser(id) }
        var cursor = f.users.cursor(batchSize: 5)
        var seen: [String] = []
        while let user = try cursor.next() { seen.append(user.id) }
        #expect(seen == ids)
        #expect(try cursor.next() == nil)
    }

    @Test(arguments: EngineUnderTest.engines) func cursorReportsABadUserAndGoesOn(_ engine: DatabaseEngine) throws {
        let f = try Fixture(engine)
        try f.addUser("a")
        try f.addUser("c")
        try f.db.execute(
            "INSERT INTO users (id, time_zone, language, created_at, updated_at) VALUES ('b', 'Mars/Olympus', 'en', '', '')"
        )
        var cursor = f.users.cursor(batchSize: 2)
        #expect(try cursor.next()?.id == "a")
        guard
            case .malformedRow(let entity, let key, _)? = storeError({ () throws(StoreError) in _ = try cursor.next() })
        else {
            Issue.record("expected a malformed row")
            return
        }
        #expect(entity == "user" && key == "b")
        #expect(try cursor.next()?.id == "c")
        #expect(try cursor.next() == nil)
    }

    @Test(arguments: EngineUnderTest.engines) func removingAUserCascadesToEverythingOfTheirs(_ engine: DatabaseEngine)
        throws
    {
        let f = try Fixture(engine)
        let mei = try f.addUser()
        try f.addUser("other")
        var eng = series("eng", "2025-01-06T10:00", "2025-01-06T11:00")
        eng.subtasks = [Subtask(title: "vocab")]
        let plan = UserPlan(
            user: mei, tasks: [eng, oneOff("m1", "2025-01-07T14:00", "2025-01-07T15:00")],
            overrides: [OccurrenceOverride(taskID: "eng", originalDate: date("2025-01-06"), state: .completed)],
            slides: [SeriesSlide(taskID: "eng", from: date("2025-01-08"), days: 1)])
        let id = try f.seed(plan)
        try f.seed(
            UserPlan(
                user: try f.users.get("other"),
                tasks: [oneOff("o1", user: "other", "2025-01-07T09:00", "2025-01-07T10:00")]))
        try FocusSessionRepository(f.db).add(
            userID: "mei", category: "English", start: at("2025-01-06T10:00"), minutes: 55)
        try StatisticsRepository(f.db).recompute(
            userID: "mei", counts: ["English": CategoryCount(tasks: 1, completed: 1)])
        try OutboxRepository(f.db).insert(
            [OutboxEntry(occurrenceID: OccurrenceID(taskID: "m1"), fireAt: Fixture.now, action: .schedule)],
            userID: "mei", changesetID: id, createdAt: Fixture.now)
        let runs = RunStore(f.db)
        let run = try runs.startRun(startedAt: Fixture.now)
        let userRun = try runs.record(
            UserRun(
                runID: run, userID: "mei", planDate: date("2025-01-07"), status: .changed,
                changesetID: id, finishedAt: Fixture.now))
        try runs.storeTranscript(userRunID: userRun, messages: ["hello"])

        try f.users.remove("mei")

        let leftovers = [
            "SELECT count(*) FROM users WHERE id = 'mei'", "SELECT count(*) FROM settings WHERE user_id = 'mei'",
            "SELECT count(*) FROM tasks WHERE user_id = 'mei'", "SELECT count(*) FROM occurrence_overrides",
            "SELECT count(*) FROM series_slides", "SELECT count(*) FROM statistics WHERE user_id = 'mei'",
            "SELECT count(*) FROM focus_sessions", "SELECT count(*) FROM changesets WHERE user_id = 'mei'",
            "SELECT count(*) FROM changeset_edits WHERE changeset_id LIKE '\(id)'", "SELECT count(*) FROM user_runs",
            "SELECT count(*) FROM transcripts", "SELECT count(*) FROM notification_outbox",
        ]
        for sql in leftovers { #expect(try f.count(sql) == 0, "\(sql)") }
        #expect(try f.plans.task(id: "o1") != nil)
        #expect(try f.count("SELECT count(*) FROM runs") == 1)
    }
}
