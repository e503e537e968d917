import JSON
import Planning
import ReplanTestSupport
import Testing

/// The goal an instruction compiles into (docs/model.md §17): its text and JSON forms, typed
/// errors for anything malformed, and the nightly check of the coming days.
@Suite struct GoalTests {
    // MARK: - Text form

    @Test(arguments: [
        "at-least 30m English on mon-fri",
        "at-least 60m all on sat,sun",
        "none-after 21:00",
        "none-on sat,sun",
        "total 600m Exam before 2025-02-01",
        "at-least 30m Organic Chemistry on mon,wed,fri; none-after 21:00",
        "not-checkable: the instruction asks for a gentler tone",
    ])
    func theTextFormRoundTrips(_ text: String) throws {
        let goal = try Goal(parsing: text)
        #expect(goal.description == text)
        #expect(try Goal(parsing: goal.description) == goal)
        #expect(try Goal(json: goal.json) == goal)
    }

    @Test func spellingsAreNormalised() throws {
        #expect(
            try Goal(parsing: "AT-LEAST 1h30m english ON Mon-Wed,Fri").description
                == "at-least 90m english on mon-wed,fri")
        #expect(try Goal(parsing: "at-least 45 all on daily").description == "at-least 45m all on mon-sun")
        #expect(try Goal(parsing: "none-on sun ;  none-on sun").terms.count == 1)
        #expect(try Goal(parsing: "not-checkable   because").description == "not-checkable: because")
    }

    @Test(arguments: [
        ("", "the goal is empty"),
        ("at-least 30m on mon", "expected 'at-least 30m CATEGORY on mon-fri'"),
        ("at-least 0m English on mon", "between 1 and 1440"),
        ("at-least 2000m English on mon", "between 1 and 1440"),
        ("at-least 30x English on mon", "not a number of minutes"),
        ("at-least 30m English on funday", "not a list of days"),
        ("at-least 30m English on fri-mon", "not a list of days"),
        ("at-least 30m Uncategorized on mon", "not a specific category"),
        ("none-after 25:00", "expected 'none-after HH:MM'"),
        ("none-after 00:00", "expected 'none-after HH:MM'"),
        ("none-on", "expected 'none-on sat,sun'"),
        ("total 600m Exam before soon", "is not a date"),
        ("total 9999999m Exam before 2025-02-01", "too large"),
        ("more English please", "a term starts with"),
        ("not-checkable", "needs a reason"),
        ("at-least 30m Eng\u{1B}lish on mon", "control character"),
    ])
    func malformedTextIsATypedError(_ text: String, _ expected: String) {
        do {
            _ = try Goal(parsing: text)
            Issue.record("parsed '\(text)'")
        } catch {
            #expect(error.message.contains(expected), "\(error.message)")
        }
    }

    @Test func overlongGoalsAndTooManyTermsAreRefused() {
        #expect(throws: GoalError.self) { try Goal(parsing: String(repeating: "none-on sun; ", count: 40)) }
        let nine = (0..<9).map { "none-after 2\($0 % 4):0\($0)" }.joined(separator: "; ")
        #expect(throws: GoalError.self) { try Goal(parsing: nine) }
    }

    @Test(arguments: [
        JSONValue.string("x"), ["terms": []], ["terms": [["kind": "sometimes"]]],
        ["terms": [["kind": "at-least", "minutes": 30, "category": "English", "days": ["mon"], "extra": 1]]],
        ["terms": [["kind": "at-least", "minutes": 30, "category": 3, "days": ["mon"]]]],
        ["terms": [["kind": "none-on", "days": ["someday"]]]], ["notCheckable": ""],
        ["notCheckable": "why", "terms": []],
    ])
    func malformedJSONIsATypedError(_ json: JSONValue) {
        #expect(throws: GoalError.self) { try Goal(json: json) }
    }

    @Test func aStatedGoalRoundTripsThroughJSON() throws {
        let stated = StatedGoal(
            goal: try Goal(parsing: "at-least 30m English on mon-fri"), setBy: .student, instructionDigest: "i-abc",
            setOn: date("2025-01-07"), reviewAgainOn: date("2025-01-20"))
        #expect(try StatedGoal(json: stated.json) == stated)
        #expect(stated.belongs(to: "i-abc"))
        #expect(!stated.belongs(to: "i-other"))
    }

    @Test func theReviewDateIsBetweenTodayAndSixtyDays() throws {
        let today = date("2025-01-07")
        try StatedGoal.validateReviewDate(today, today: today)
        try StatedGoal.validateReviewDate(today.adding(days: 60), today: today)
        #expect(throws: GoalError.self) { try StatedGoal.validateReviewDate(today.adding(days: -1), today: today) }
        #expect(throws: GoalError.self) { try StatedGoal.validateReviewDate(today.adding(days: 61), today: today) }
    }

    // MARK: - The check

    /// Tuesday 2025-01-07 at 03:00 in Taipei, default windows Mon–Fri 09:00–17:00.
    static let now = at("2025-01-07T03:00")
    static let through = date("2025-01-21")

    static func check(_ goal: String, _ tasks: [StudyTask], now: CivilDateTime = GoalTests.now) throws -> GoalCheck {
        GoalCheck(goal: try Goal(parsing: goal), plan: Fx.plan(tasks), now: now, through: through)
    }

    @Test func aWeekdayGoalNamesEachDayShortAndByHowMuch() throws {
        // 30 minutes of English on Tue and Thu only; Wed has 10; Fri and Mon have none.
        let c = try Self.check(
            "at-least 30m English on mon-fri",
            [
                Fx.task("a", "English", "2025-01-07T10:00", "2025-01-07T10:30", category: "English"),
                Fx.task("b", "English", "2025-01-08T10:00", "2025-01-08T10:10", category: "english"),
                Fx.task("c", "English", "2025-01-09T10:00", "2025-01-09T10:30", category: "English", completed: true),
                Fx.task("d", "Maths", "2025-01-10T10:00", "2025-01-10T11:00", category: "Maths"),
            ])
        #expect(c.from == date("2025-01-07"))
        #expect(c.through == date("2025-01-13"))
        #expect(
            c.shortfalls.map { "\($0.date) \($0.planned)/\($0.wanted)" } == [
                "2025-01-08 10/30", "2025-01-10 0/30", "2025-01-13 0/30",
            ])
        // The windows hold room on every one of those days.
        #expect(c.shortfalls.allSatisfy { $0.hasRoom })
        #expect(c.shortfalls[1].room == 8 * 60 - 60)
        #expect(c.violations.isEmpty)
        #expect(!c.holds)
    }

    @Test func skippedSessionsDoNotCountAndAllStudyCountsEveryCategory() throws {
        var plan = Fx.plan([
            Fx.series("eng", "English", "2025-01-06T09:00", "2025-01-06T09:30", .daily, category: "English"),
            Fx.task("m", "Maths", "2025-01-08T10:00", "2025-01-08T10:30", category: "Maths"),
        ])
        plan.skip(id("eng@2025-01-08"))
        let english = GoalCheck(
            goal: try Goal(parsing: "at-least 30m English on wed"), plan: plan, now: Self.now, through: Self.through)
        #expect(english.shortfalls.map(\.date) == [date("2025-01-08")])
        let all = GoalCheck(
            goal: try Goal(parsing: "at-least 30m all on wed"), plan: plan, now: Self.now, through: Self.through)
        #expect(all.holds)
    }

    @Test func theCheckStopsAtTheLastDayTheModelMayPlace() throws {
        let c = GoalCheck(
            goal: try Goal(parsing: "at-least 30m English on daily"), plan: Fx.plan([]), now: Self.now,
            through: date("2025-01-09"))
        #expect(c.shortfalls.map(\.date) == [date("2025-01-07"), date("2025-01-08"), date("2025-01-09")])
    }

    @Test func aDayWithoutRoomIsShortButHasNoRoom() throws {
        // Saturday has no study windows by default.
        let c = try Self.check("at-least 30m English on sat", [])
        #expect(c.shortfalls.count == 1)
        #expect(c.shortfalls[0].room == 0)
        #expect(!c.shortfalls[0].hasRoom)
        // Time a none-after term forbids is no room either.
        let late = try Self.check("at-least 30m English on wed; none-after 09:10", [])
        #expect(late.shortfalls[0].room == 0)
    }

    @Test func noneAfterAndNoneOnNameTheSessionsThatBreakThem() throws {
        let c = try Self.check(
            "none-after 21:00; none-on sat",
            [
                Fx.task("late", "Piano", "2025-01-08T20:30", "2025-01-08T21:30", category: "Piano"),
                Fx.task("fine", "Piano", "2025-01-09T20:00", "2025-01-09T21:00", category: "Piano"),
                Fx.task("night", "Piano", "2025-01-09T23:30", "2025-01-10T00:30", category: "Piano"),
                Fx.task("sat", "Piano", "2025-01-11T10:00", "2025-01-11T11:00", category: "Piano"),
                Fx.task("done", "Piano", "2025-01-11T12:00", "2025-01-11T13:00", category: "Piano", completed: true),
            ])
        #expect(c.shortfalls.isEmpty)
        #expect(c.violations.map(\.id.description) == ["late", "night", "sat"])
    }

    @Test func aTotalIsCheckedOnceItsRunUpLiesInThePlan() throws {
        let tasks = [
            Fx.task("r1", "Revision", "2025-01-08T10:00", "2025-01-08T12:00", category: "Exam"),
            Fx.task("r2", "Revision", "2025-01-09T10:00", "2025-01-09T11:00", category: "Exam"),
        ]
        let c = try Self.check("total 300m Exam before 2025-01-10", tasks)
        #expect(c.shortfalls.map { "\($0.date) \($0.planned)/\($0.wanted)" } == ["2025-01-10 180/300"])
        #expect(c.shortfalls[0].hasRoom)
        // A date beyond the last placeable day is not judged yet.
        #expect(try Self.check("total 300m Exam before 2025-03-01", tasks).holds)
        // A date already passed is not judged any more.
        #expect(try Self.check("total 300m Exam before 2025-01-07", tasks).holds)
    }

    @Test func aTotalCountsTheRevisionDoneSinceTheGoalWasStated() throws {
        // Stated on Monday 6 Jan: 120 minutes done that day, a missed hour (no minutes), an hour
        // done the day before the goal (not counted), and 180 minutes planned Wed–Thu.
        let tasks = [
            Fx.task("done", "Revision", "2025-01-06T10:00", "2025-01-06T12:00", category: "Exam", completed: true),
            Fx.task("missed", "Revision", "2025-01-06T13:00", "2025-01-06T14:00", category: "Exam"),
            Fx.task("early", "Revision", "2025-01-05T10:00", "2025-01-05T11:00", category: "Exam", completed: true),
            Fx.task("r1", "Revision", "2025-01-08T10:00", "2025-01-08T12:00", category: "Exam"),
            Fx.task("r2", "Revision", "2025-01-09T10:00", "2025-01-09T11:00", category: "Exam"),
        ]
        let goal = try Goal(parsing: "total 300m Exam before 2025-01-10")
        let since = GoalCheck(
            goal: goal, plan: Fx.plan(tasks), now: Self.now, through: Self.through, countedFrom: date("2025-01-06"))
        #expect(since.holds, "\(since.shortfalls)")
        let later = try Goal(parsing: "total 400m Exam before 2025-01-10")
        let short = GoalCheck(
            goal: later, plan: Fx.plan(tasks), now: Self.now, through: Self.through, countedFrom: date("2025-01-06"))
        #expect(short.shortfalls.map { "\($0.planned)/\($0.wanted)" } == ["300/400"])
    }

    @Test func aNotCheckableGoalChecksNothing() throws {
        #expect(try Self.check("not-checkable: tone only", []).holds)
    }

    @Test func keysStayTheSameWhileNothingChanges() throws {
        let a = try Self.check("at-least 30m English on mon-fri", [])
        let b = try Self.check("at-least 30m English on mon-fri", [])
        #expect(a.keys == b.keys)
        let c = try Self.check(
            "at-least 30m English on mon-fri",
            [Fx.task("a", "English", "2025-01-08T10:00", "2025-01-08T10:10", category: "English")])
        #expect(a.keys != c.keys)
    }

    // MARK: - The morning note

    @Test(arguments: [
        ("en", "Your goal (at-least 30m English on mon-fri) falls short", "Wed 8 Jan: 10 of 30 minutes of English"),
        ("zh-TW", "你的目標（at-least 30m English on mon-fri）尚未達成", "English 10／30 分鐘"),
    ])
    func theMorningNoteSaysWhichDayFallsShort(_ language: String, _ heading: String, _ line: String) throws {
        let goal = try Goal(parsing: "at-least 30m English on mon-fri")
        let c = GoalCheck(
            goal: goal,
            plan: Fx.plan([Fx.task("b", "English", "2025-01-08T10:00", "2025-01-08T10:10", category: "English")]),
            now: Self.now, through: date("2025-01-08"))
        var night = MorningNote.Night(
            edits: [], flags: [], summary: PlanSummary(), planDate: date("2025-01-07"), deleteAfterDays: 7,
            modelQuestion: "Shall I add Saturdays?")
        night.goalCheck = (goal, c)
        let note = try #require(MorningNote.render(night, language: language))
        #expect(note.body.contains(heading), "\(note.body)")
        #expect(note.body.contains(line), "\(note.body)")
    }
}
