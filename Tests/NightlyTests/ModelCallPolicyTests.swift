import Foundation
import Nightly
import Planning
import ReplanTestSupport
import Store
import Testing

/// docs/model.md §1: who is asked and why, night after night.
@Suite("The model call policy")
struct ModelCallPolicyTests {
    static let instruction = "one grammar session on Wednesday"
    static let day = 86_400.0

    /// Runs the nightly job for the fixture's students at `now` with a reviewer that ends at
    /// once, and returns each student's (asked, reason) from the user runs.
    func night(
        _ f: NightlyFixture, now: Date, calls: Counter = Counter(), force: Bool = true,
        policy: ModelCallPolicy = ModelCallPolicy()
    ) throws -> [String: String] {
        var pipeline = UserPipeline(reviewer: FakeReviewer(behaviour: .endAtOnce, calls: calls))
        pipeline.policy = policy
        var options = RunOptions(now: now)
        options.force = force
        options.concurrency = 2
        _ = try NightlyRunner(databasePath: f.path, pipeline: pipeline, options: options).run()
        let rows = try f.connect().query(
            """
            SELECT user_id, model_decision FROM user_runs WHERE run_id = (SELECT max(id) FROM runs)
            """, []
        ) { ($0.text(0), $0.optionalText(1) ?? "-") }
        return Dictionary(uniqueKeysWithValues: rows)
    }

    @Test(
        "an unchanged student with a standing instruction is not asked again the next night",
        arguments: EngineUnderTest.engines)
    func unchangedStudentIsNotAskedAgain(_ engine: DatabaseEngine) throws {
        let f = try NightlyFixture(engine: engine)
        try f.addStudents(1, instruction: Self.instruction)
        let calls = Counter()
        #expect(try night(f, now: NightlyFixture.now, calls: calls)["s0"] == "asked: new-instruction")
        // The night after: the rules move more sessions (the course is still missed), the
        // student changed nothing, so the model is not asked, unless it is the review night.
        let next = try night(
            f, now: NightlyFixture.now.addingTimeInterval(Self.day), calls: calls,
            policy: ModelCallPolicy(reviewEveryDays: 0))
        #expect(next["s0"] == "not asked: unchanged")
        #expect(calls.count == 1)
    }

    @Test(
        "a changed instruction, changed settings or a plan the student edited ask again",
        arguments: EngineUnderTest.engines)
    func changesAskAgain(_ engine: DatabaseEngine) throws {
        let f = try NightlyFixture(engine: engine)
        try f.addStudents(1, instruction: Self.instruction)
        let noReviews = ModelCallPolicy(reviewEveryDays: 0)
        _ = try night(f, now: NightlyFixture.now)
        var when = NightlyFixture.now
        func nextNight() throws -> String? {
            when = when.addingTimeInterval(Self.day)
            return try night(f, now: when, policy: noReviews)["s0"]
        }
        let db = try f.connect()
        var settings = try UserRepository(db).get("s0").settings
        settings.instruction = "two grammar sessions on Wednesday"
        _ = try UserRepository(db).saveSettings(settings, for: "s0")
        #expect(try nextNight() == "asked: changed-instruction")
        #expect(try nextNight() == "not asked: unchanged")

        settings.sessionMinutes = 45
        _ = try UserRepository(db).saveSettings(settings, for: "s0")
        #expect(try nextNight() == "asked: settings-changed")
        #expect(try nextNight() == "not asked: unchanged")

        // The student moves a session of next week in the app: a course the instruction does
        // not cover and the model never touched is no reason (docs/model.md §15).
        try db.execute(
            "UPDATE tasks SET start = '2025-01-16T15:00', \"end\" = '2025-01-16T16:00', version = version + 1 WHERE id = 's0-eng-4'"
        )
        #expect(try nextNight() == "not asked: unchanged")
        // An instruction that names the course covers it: then a move is a reason.
        settings.instruction = "two English grammar sessions on Wednesday"
        _ = try UserRepository(db).saveSettings(settings, for: "s0")
        #expect(try nextNight() == "asked: changed-instruction")
        #expect(try nextNight() == "not asked: unchanged")
        try db.execute(
            "UPDATE tasks SET start = '2025-01-16T13:00', \"end\" = '2025-01-16T14:00', version = version + 1 WHERE id = 's0-eng-4'"
        )
        #expect(try nextNight() == "asked: plan-changed")
        #expect(try nextNight() == "not asked: unchanged")
    }

    @Test("a flag the rules could not resolve asks, instruction or not; the same flag again the next night does not")
    func newFlagsAsk() {
        let policy = ModelCallPolicy()
        let fit = PlanFlag(id: OccurrenceID("t1")!, kind: .couldNotFit)
        let decide = { (flags: [PlanFlag], memory: ModelMemory?) in
            policy.decide(
                userID: "s0", settings: UserSettings(), language: "en", zone: "UTC", flags: flags, memory: memory,
                planDate: CivilDate("2025-01-07")!, planChanged: false)
        }
        #expect(decide([fit], nil) == ModelCallPolicy.Decision(ask: true, reason: "flags"))
        let day = CivilDate("2025-01-06")!
        let reviewed = ModelMemory(
            instructionDigest: nil, settingsDigest: nil, reviewedOn: day, planFrom: day, planThrough: day,
            planDigest: "p", reviewedFlags: [ModelCallPolicy.flagKey(fit)])
        #expect(decide([fit], reviewed) == ModelCallPolicy.Decision(ask: false, reason: "no-instruction"))
        let another = PlanFlag(id: OccurrenceID("t2@2025-01-05")!, kind: .couldNotFit)
        #expect(decide([fit, another], reviewed) == ModelCallPolicy.Decision(ask: true, reason: "flags"))
    }

    @Test("a needs-decision flag raised night after night asks the model once", arguments: EngineUnderTest.engines)
    func aRecurringFlagAsksOnce(_ engine: DatabaseEngine) throws {
        let f = try NightlyFixture(engine: engine)
        let db = try f.connect()
        var settings = UserSettings()
        settings.keepCategories = ["Archive"]
        // A session of a kept category, stale for weeks: flagged needs-decision every night.
        let old = Fx.task(
            "k0-old", "Old notes", "2024-12-01T10:00", "2024-12-01T11:00", category: "Archive", user: "k0")
        try f.add(Fx.plan([old], settings: settings, user: "k0"), to: db)
        let calls = Counter()
        #expect(try night(f, now: NightlyFixture.now, calls: calls)["k0"] == "asked: flags")
        #expect(
            try night(f, now: NightlyFixture.now.addingTimeInterval(Self.day), calls: calls)["k0"]
                == "not asked: no-instruction")
        #expect(calls.count == 1)
    }

    @Test(
        "a could-not-fit flag asks only when a shorter gap before the course's next session gives the model an option")
    func aFlagWithoutAnOptionIsTheStudents() throws {
        func decision(saturday: [String]) throws -> ModelCallPolicy.Decision? {
            var settings = UserSettings()
            var windows: [Weekday: [String]] = [.mon: ["18:00-19:00"]]
            if !saturday.isEmpty { windows[.sat] = saturday }
            settings.windows = try WeeklyWindows(text: windows)
            // A weekly lesson missed on Mon 6 Jan; the next is Mon 13 Jan, and no Monday window holds it.
            let plan = Fx.plan(
                [Fx.series("piano", "Piano", "2025-01-06T18:00", "2025-01-06T19:00", .weekly, category: "Piano")],
                settings: settings)
            let pipeline = UserPipeline(reviewer: FakeReviewer(behaviour: .endAtOnce, calls: Counter()))
            let (night, _) = pipeline.prepare(original: plan, now: Fx.taipei.instant(at("2025-01-08T20:00")))
            return night.model.decision
        }
        #expect(try decision(saturday: ["10:00-10:45"]) == ModelCallPolicy.Decision(ask: true, reason: "flags"))
        #expect(try decision(saturday: [])?.ask == false)
    }

    @Test("a standing instruction is reviewed once a week, on a night spread by the student id")
    func periodicReviewsAreSpreadOverTheWeek() {
        let policy = ModelCallPolicy(reviewEveryDays: 7)
        var settings = UserSettings()
        settings.instruction = Self.instruction
        let start = CivilDate("2025-01-06")!
        var nightsPerStudent: [Int] = []
        var load = [Int](repeating: 0, count: 7)
        for n in 0..<700 {
            let id = "student-\(n)"
            var memory = ModelMemory(
                instructionDigest: ModelCallPolicy.instructionDigest(Self.instruction),
                settingsDigest: ModelCallPolicy.settingsDigest(settings, language: "en", zone: "UTC"),
                reviewedOn: start.adding(days: -1), planFrom: start, planThrough: start, planDigest: "p")
            var asked = 0
            for d in 0..<14 {
                let date = start.adding(days: d)
                let decision = policy.decide(
                    userID: id, settings: settings, language: "en", zone: "UTC", flags: [],
                    memory: memory, planDate: date, planChanged: false)
                if decision.ask {
                    #expect(decision.reason == "periodic-review")
                    asked += 1
                    load[d % 7] += 1
                    memory.reviewedOn = date
                }
            }
            nightsPerStudent.append(asked)
        }
        // Two reviews in two weeks per student, and every weekday carries a similar share.
        #expect(nightsPerStudent.allSatisfy { $0 == 2 })
        #expect(load.allSatisfy { $0 > 150 && $0 < 250 }, "\(load)")
    }

    @Test(
        "a failed review is retried the next night; no instruction, no memory kept", arguments: EngineUnderTest.engines)
    func failedReviewIsRetried(_ engine: DatabaseEngine) throws {
        let f = try NightlyFixture(engine: engine)
        try f.addStudents(1, instruction: Self.instruction)
        var pipeline = UserPipeline(reviewer: FakeReviewer(behaviour: .fail, calls: Counter()))
        pipeline.policy = ModelCallPolicy(reviewEveryDays: 0)
        var options = RunOptions(now: NightlyFixture.now)
        options.force = true
        _ = try NightlyRunner(databasePath: f.path, pipeline: pipeline, options: options).run()
        let next = try night(
            f, now: NightlyFixture.now.addingTimeInterval(Self.day), policy: ModelCallPolicy(reviewEveryDays: 0))
        #expect(next["s0"] == "asked: new-instruction")

        let db = try f.connect()
        var settings = try UserRepository(db).get("s0").settings
        settings.instruction = ""
        _ = try UserRepository(db).saveSettings(settings, for: "s0")
        let quiet = try night(f, now: NightlyFixture.now.addingTimeInterval(2 * Self.day))
        #expect(quiet["s0"] == "not asked: no-instruction")
        #expect(try db.queryFirst("SELECT count(*) FROM model_memory", []) { $0.int(0) } == 0)
    }

    @Test(
        "a text answer, a turn-limit stop or a cut conversation does not handle the instruction: the next night asks again",
        arguments: EngineUnderTest.engines)
    func unfinishedConversationsAreAskedAgain(_ engine: DatabaseEngine) throws {
        for behaviour in [FakeReviewer.Behaviour.textAnswer, .turnLimit, .cut] {
            let f = try NightlyFixture(engine: engine)
            try f.addStudents(1, instruction: Self.instruction)
            var pipeline = UserPipeline(reviewer: FakeReviewer(behaviour: behaviour, calls: Counter()))
            pipeline.policy = ModelCallPolicy(reviewEveryDays: 0)
            var options = RunOptions(now: NightlyFixture.now)
            options.force = true
            _ = try NightlyRunner(databasePath: f.path, pipeline: pipeline, options: options).run()
            let next = try night(
                f, now: NightlyFixture.now.addingTimeInterval(Self.day), policy: ModelCallPolicy(reviewEveryDays: 0))
            #expect(next["s0"] == "asked: new-instruction", "\(behaviour)")
            // Closed with end_conversation: handled, not asked the night after.
            let third = try night(
                f, now: NightlyFixture.now.addingTimeInterval(2 * Self.day), policy: ModelCallPolicy(reviewEveryDays: 0)
            )
            #expect(third["s0"] == "not asked: unchanged", "\(behaviour)")
        }
    }

    @Test("after downtime, a plan replan cannot compare is no reason: no false \"I changed my plan\"")
    func unknownPlanChangeIsNoReason() {
        var settings = UserSettings()
        settings.instruction = Self.instruction
        let day = CivilDate("2025-01-06")!
        let memory = ModelMemory(
            instructionDigest: ModelCallPolicy.instructionDigest(Self.instruction),
            settingsDigest: ModelCallPolicy.settingsDigest(settings, language: "en", zone: "UTC"), reviewedOn: day,
            planFrom: day, planThrough: day, planDigest: "p")
        let decide = { (changed: Bool?) in
            ModelCallPolicy(reviewEveryDays: 0).decide(
                userID: "s0", settings: settings, language: "en", zone: "UTC", flags: [], memory: memory,
                planDate: CivilDate("2025-01-20")!, planChanged: changed)
        }
        #expect(decide(nil) == ModelCallPolicy.Decision(ask: false, reason: "unchanged"))
        #expect(decide(false) == ModelCallPolicy.Decision(ask: false, reason: "unchanged"))
        #expect(decide(true) == ModelCallPolicy.Decision(ask: true, reason: "plan-changed"))
    }

    @Test(
        "a week and more of downtime: the first night back does not ask for a plan change",
        arguments: EngineUnderTest.engines)
    func downtimeIsNoPlanChange(_ engine: DatabaseEngine) throws {
        let f = try NightlyFixture(engine: engine)
        try f.addStudents(1, instruction: Self.instruction)
        let noReviews = ModelCallPolicy(reviewEveryDays: 0)
        #expect(try night(f, now: NightlyFixture.now, policy: noReviews)["s0"] == "asked: new-instruction")
        // Ten nights without a run: the remembered dates now lie before what a night loads.
        let back = try night(f, now: NightlyFixture.now.addingTimeInterval(10 * Self.day), policy: noReviews)
        #expect(back["s0"] == "not asked: unchanged")
    }

    @Test("only windows, session length and zone are settings the model is asked about again")
    func onlyPlacementSettingsAsk() {
        var settings = UserSettings()
        settings.instruction = Self.instruction
        let day = CivilDate("2025-01-06")!
        let handled = { (digest: String) in
            ModelMemory(
                instructionDigest: ModelCallPolicy.instructionDigest(Self.instruction), settingsDigest: digest,
                reviewedOn: day, planFrom: day, planThrough: day, planDigest: "p")
        }
        let memory = handled(ModelCallPolicy.settingsDigest(settings, language: "en", zone: "UTC"))
        let policy = ModelCallPolicy(reviewEveryDays: 0)
        func reason(_ s: UserSettings, language: String = "en", zone: String = "UTC", memory m: ModelMemory? = nil)
            -> String
        {
            policy.decide(
                userID: "s0", settings: s, language: language, zone: zone, flags: [], memory: m ?? memory,
                planDate: day.adding(days: 1), planChanged: false
            ).reason
        }
        var tone = settings
        tone.tone = "cheerful"
        var knobs = settings
        knobs.horizonDays = 10
        knobs.deleteAfterDays = 3
        #expect(reason(tone) == "unchanged")
        #expect(reason(knobs) == "unchanged")
        #expect(reason(settings, language: "ja") == "unchanged")
        var length = settings
        length.sessionMinutes = 45
        var windows = settings
        windows.windowsEnabled.toggle()
        #expect(reason(length) == "settings-changed")
        #expect(reason(windows) == "settings-changed")
        #expect(reason(settings, zone: "Asia/Taipei") == "settings-changed")
        // A memory of the first digest form still compares as before.
        let legacy = handled(ModelCallPolicy.allSettingsDigest(settings, language: "en", zone: "UTC"))
        #expect(reason(settings, memory: legacy) == "unchanged")
        #expect(reason(tone, memory: legacy) == "settings-changed")
    }

    @Test("a student removing a session the model created asks the model", arguments: EngineUnderTest.engines)
    func removingTheModelsSessionAsks(_ engine: DatabaseEngine) throws {
        let f = try NightlyFixture(engine: engine)
        try f.addStudents(1, instruction: "a grammar session on Wednesday")
        var pipeline = UserPipeline(reviewer: FakeReviewer(behaviour: .createSession, calls: Counter()))
        pipeline.policy = ModelCallPolicy(reviewEveryDays: 0)
        var options = RunOptions(now: NightlyFixture.now)
        options.force = true
        _ = try NightlyRunner(databasePath: f.path, pipeline: pipeline, options: options).run()
        let db = try f.connect()
        #expect(try db.queryFirst("SELECT count(*) FROM tasks WHERE id = 'm-s0'", []) { $0.int(0) } == 1)
        let quiet = try night(
            f, now: NightlyFixture.now.addingTimeInterval(Self.day), policy: ModelCallPolicy(reviewEveryDays: 0))
        #expect(quiet["s0"] == "not asked: unchanged")
        try db.execute("DELETE FROM tasks WHERE id = 'm-s0'")
        let asked = try night(
            f, now: NightlyFixture.now.addingTimeInterval(2 * Self.day), policy: ModelCallPolicy(reviewEveryDays: 0))
        #expect(asked["s0"] == "asked: plan-changed")
    }
}

/// docs/model.md §17: with a checkable goal the check decides; a not-checkable one keeps the
/// periodic review; the model's own review date asks once.
@Suite("The call policy with a goal")
struct GoalCallPolicyTests {
    static let instruction = "30 minutes of English every weekday"
    static let today = date("2025-01-07")

    func memory(goal: String?, review: CivilDate? = nil, unmended: Set<String> = []) throws -> ModelMemory {
        let digest = ModelCallPolicy.instructionDigest(Self.instruction)
        var settings = UserSettings()
        settings.instruction = Self.instruction
        return ModelMemory(
            instructionDigest: digest,
            settingsDigest: ModelCallPolicy.settingsDigest(settings, language: "en", zone: "Asia/Taipei"),
            reviewedOn: Self.today.adding(days: -30), planFrom: Self.today, planThrough: Self.today, planDigest: "",
            goal: try goal.map {
                StatedGoal(
                    goal: try Goal(parsing: $0), setBy: .model, instructionDigest: digest, setOn: Self.today,
                    reviewAgainOn: review)
            }, goalUnmended: unmended)
    }

    func decide(_ memory: ModelMemory, check: GoalCheck?, planChanged: Bool? = false) -> String {
        var settings = UserSettings()
        settings.instruction = Self.instruction
        let d = ModelCallPolicy().decide(
            userID: "s0", settings: settings, language: "en", zone: "Asia/Taipei", flags: [], memory: memory,
            planDate: Self.today, planChanged: planChanged, goalCheck: check)
        return "\(d.ask ? "asked" : "not asked"): \(d.reason)"
    }

    func check(_ goal: String, _ tasks: [StudyTask] = []) throws -> GoalCheck {
        GoalCheck(
            goal: try Goal(parsing: goal), plan: Fx.plan(tasks), now: at("2025-01-07T03:00"),
            through: date("2025-01-21"))
    }

    @Test func aGoalThatHoldsAsksNobodyEvenWhenThePlanChangedOrAReviewIsLate() throws {
        let goal = "at-least 30m all on sat"
        #expect(
            decide(try memory(goal: goal), check: try check("none-on sun"), planChanged: true)
                == "not asked: goal-holds")
    }

    @Test func aShortfallWithRoomAsksOnceAndNotWhenLeftAsItWas() throws {
        let goal = "at-least 30m English on mon-fri"
        let c = try check(goal)
        #expect(decide(try memory(goal: goal), check: c) == "asked: goal-shortfall")
        #expect(decide(try memory(goal: goal, unmended: c.keys), check: c) == "not asked: goal-unmended")
        // A day without room is the student's: no ask.
        let weekend = try check("at-least 30m English on sat")
        #expect(decide(try memory(goal: "at-least 30m English on sat"), check: weekend) == "not asked: goal-unmended")
    }

    @Test func aViolationAsks() throws {
        let c = try check("none-after 16:00", [Fx.task("x", "Piano", "2025-01-08T15:30", "2025-01-08T16:30")])
        #expect(decide(try memory(goal: "none-after 16:00"), check: c) == "asked: goal-violation")
    }

    @Test func theModelsReviewDateAsksOnceItHasCome() throws {
        let goal = "none-on sun"
        #expect(decide(try memory(goal: goal, review: Self.today), check: try check(goal)) == "asked: review-date")
        #expect(
            decide(try memory(goal: goal, review: Self.today.adding(days: 1)), check: try check(goal))
                == "not asked: goal-holds")
        var reviewed = try memory(goal: goal, review: Self.today)
        reviewed.reviewedOn = Self.today
        #expect(decide(reviewed, check: try check(goal)) == "not asked: goal-holds")
    }

    @Test func aNotCheckableGoalKeepsThePeriodicReview() throws {
        // Reviewed 30 days ago: the periodic review is due.
        #expect(decide(try memory(goal: "not-checkable: tone"), check: nil) == "asked: periodic-review")
        #expect(decide(try memory(goal: nil), check: nil) == "asked: periodic-review")
    }
}
