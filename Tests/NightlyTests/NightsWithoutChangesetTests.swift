import Foundation
import JSON
import Nightly
import Planning
import ReplanTestSupport
import Store
import Testing

/// A night that changed nothing but needs the student (docs/planning.md §12): a session that
/// could not be placed, or the model's question, still makes a morning note, in the outbox
/// with no changeset and kept on the night's run for `replan note`, without offering to take
/// back a night that wrote nothing. A quiet night still writes no note.
@Suite struct NightsWithoutChangesetTests {
    /// "Physics reading" Mon 6 Jan 14:00–16:00, missed; the only window (Mon 09:00–10:00) is
    /// too short for it, so Tuesday's night moves nothing and flags it (could-not-fit).
    static func unplaceable(
        instruction: String = "", notifications: Bool = true, also: [StudyTask] = []
    ) -> UserPlan {
        var settings = UserSettings()
        settings.windows = try! WeeklyWindows(text: [.mon: ["09:00-10:00"]])
        settings.notificationsEnabled = notifications
        settings.instruction = instruction
        return Fx.plan(
            [Fx.task("phy", "Physics reading", "2025-01-06T14:00", "2025-01-06T16:00", category: "Physics")] + also,
            settings: settings)
    }

    /// A student whose plan lies ahead: nothing missed, nothing to decide.
    static func quiet() -> UserPlan {
        var settings = UserSettings()
        settings.notificationsEnabled = true
        return Fx.plan(
            [Fx.task("chem", "Chemistry", "2025-01-08T10:00", "2025-01-08T11:00", category: "Chemistry")],
            settings: settings)
    }

    /// A model that changes nothing and ends with `needs-student` and a question.
    struct AskingReviewer: ModelReviewer {
        func review(_ working: UserPlan, local: PostponementResult, now: Date) -> ModelReview {
            var r = ModelReview(
                plan: working, ending: .endConversation, requests: 1, turns: 1,
                usage: TokenCounts(prompt: 100, completion: 10),
                summary: "I left your week as it was; Physics reading needs more time than your windows have.")
            r.endStatus = "needs-student"
            r.question = "Shall I put Physics reading on Saturday morning?"
            return r
        }
    }

    func night(_ f: NightlyFixture, reviewer: (any ModelReviewer)? = nil) throws {
        _ = try NightlyRunner(
            databasePath: f.path, pipeline: UserPipeline(reviewer: reviewer),
            options: RunOptions(now: NightlyFixture.now)
        ).run()
    }

    func nightlyChangesets(_ db: any SQLExecutor) throws -> [ChangesetHeader] {
        try ChangesetStore(db).changesets(userID: "mei").filter { $0.origin == .nightly }
    }

    @Test(
        "a flag alone: the note is in the outbox with no changeset, on the run for replan note, and offers no undo",
        arguments: EngineUnderTest.engines)
    func aFlagAloneMakesANote(_ engine: DatabaseEngine) throws {
        let f = try NightlyFixture(engine: engine)
        let db = try f.connect()
        try f.add(Self.unplaceable(), to: db)
        try night(f)
        #expect(try nightlyChangesets(db).isEmpty)
        let runs = try RunStore(db).userRuns(userID: "mei")
        #expect(runs.map(\.userRun.status) == [.unchanged])
        #expect(runs[0].userRun.report?["flags"]?.arrayValue?.count == 1)

        let rows = try OutboxRepository(db).entries(userID: "mei")
        #expect(rows.count == 1)
        let row = try #require(rows.first)
        #expect(row.entry.kind == .note && row.changesetID == nil)
        let expected = """
            For you to decide
            - No time found for Physics reading, missed Mon 6 Jan: please pick a time, or let it go.
            """
        #expect(row.entry.note?.title == "Your plan for Tue 7 Jan: something for you to decide")
        #expect(row.entry.note?.body == expected)
        // 07:30 in Taipei on the plan date.
        #expect(row.entry.fireAt == Date(timeIntervalSince1970: 1_736_206_200))

        let database = try f.database()
        guard case .withoutChangeset(let run) = try NightNote.latest(userID: "mei", database: database) else {
            Issue.record("replan note should tell of the night without a changeset")
            return
        }
        let user = try UserRepository(db).get("mei")
        let note = try #require(NightNote.note(of: run, user: user))
        #expect(note.title == row.entry.note?.title && note.body == expected)
    }

    @Test(
        "the model asked, changed nothing and ended with needs-student: its summary and question reach the student",
        arguments: EngineUnderTest.engines)
    func theModelsQuestionMakesANote(_ engine: DatabaseEngine) throws {
        let f = try NightlyFixture(engine: engine)
        let db = try f.connect()
        try f.add(Self.unplaceable(instruction: "Keep my weekends free"), to: db)
        try night(f, reviewer: AskingReviewer())
        #expect(try nightlyChangesets(db).isEmpty)
        let body = try #require(try OutboxRepository(db).entries(userID: "mei").first?.entry.note?.body)
        #expect(
            body == """
                For you to decide
                - No time found for Physics reading, missed Mon 6 Jan: please pick a time, or let it go.

                From your assistant
                - I left your week as it was; Physics reading needs more time than your windows have.
                - A question for you: Shall I put Physics reading on Saturday morning?
                """)
        #expect(!body.contains("takes this night back"))
    }

    @Test(
        "a quiet night writes no note, keeps no report, and replan note keeps telling of the last night with one",
        arguments: EngineUnderTest.engines)
    func aQuietNightWritesNothing(_ engine: DatabaseEngine) throws {
        let f = try NightlyFixture(engine: engine)
        let db = try f.connect()
        try f.add(Self.quiet(), to: db)
        try night(f)
        #expect(try OutboxRepository(db).entries(userID: "mei").isEmpty)
        #expect(try RunStore(db).userRuns(userID: "mei").map(\.userRun.report) == [nil])
        #expect(try NightNote.latest(userID: "mei", database: try f.database()) == nil)
    }

    @Test(
        "without notifications the note is not delivered, and replan note still shows it",
        arguments: EngineUnderTest.engines)
    func withoutNotificationsReplanNoteStillShowsIt(_ engine: DatabaseEngine) throws {
        let f = try NightlyFixture(engine: engine)
        let db = try f.connect()
        try f.add(Self.unplaceable(notifications: false), to: db)
        try night(f)
        #expect(try OutboxRepository(db).entries(userID: "mei").isEmpty)
        guard case .withoutChangeset(let run) = try NightNote.latest(userID: "mei", database: try f.database()) else {
            Issue.record("replan note should tell of the night without a changeset")
            return
        }
        #expect(
            NightNote.note(of: run, user: try UserRepository(db).get("mei"))?.body.contains("Physics reading") == true)
    }

    @Test("a later night with a changeset is the one replan note tells of", arguments: EngineUnderTest.engines)
    func aLaterChangedNightWins(_ engine: DatabaseEngine) throws {
        let f = try NightlyFixture(engine: engine)
        let db = try f.connect()
        // Biology is still ahead on Tuesday night and missed by Wednesday's, which makes it up.
        let biology = Fx.task("bio", "Biology", "2025-01-07T09:00", "2025-01-07T10:00", category: "Biology")
        try f.add(Self.unplaceable(also: [biology]), to: db)
        try night(f)
        #expect(try nightlyChangesets(db).isEmpty)
        var options = RunOptions(now: NightlyFixture.now.addingTimeInterval(86_400))
        options.concurrency = 1
        _ = try NightlyRunner(databasePath: f.path, pipeline: UserPipeline(reviewer: nil), options: options).run()
        let changed = try #require(try nightlyChangesets(db).first)
        guard case .changeset(let id) = try NightNote.latest(userID: "mei", database: try f.database()) else {
            Issue.record("replan note should tell of Wednesday's changeset")
            return
        }
        #expect(id == changed.id)
    }
}
