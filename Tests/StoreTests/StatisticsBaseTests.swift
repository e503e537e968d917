import Foundation
import JSON
import Planning
import ReplanTestSupport
import Testing

@testable import Store

@Suite("The settled statistics base: stored counts through a date, dropped by any write that reaches back to it")
struct StatisticsBaseTests {
    let math = ["Math": CategoryCount(tasks: 12, completed: 9), "English": CategoryCount(tasks: 3, completed: 0)]

    @Test(arguments: EngineUnderTest.engines) func aUserWithoutABaseHasSerialZeroAndNoDate(_ engine: DatabaseEngine)
        throws
    {
        let f = try Fixture(engine)
        try f.addUser()
        #expect(
            try StatisticsBaseRepository(f.db).base(userID: "mei")
                == StatisticsBase(serial: 0, through: nil, counts: [:]))
    }

    @Test(arguments: EngineUnderTest.engines) func aStoredBaseReadsBackWithItsCounts(_ engine: DatabaseEngine) throws {
        let f = try Fixture(engine)
        try f.addUser()
        let bases = StatisticsBaseRepository(f.db)
        try bases.store(userID: "mei", through: date("2025-01-01"), counts: math)
        #expect(try bases.base(userID: "mei") == StatisticsBase(serial: 1, through: date("2025-01-01"), counts: math))
        #expect(try bases.serial(userID: "mei") == 1)
    }

    @Test(arguments: EngineUnderTest.engines) func everyWriteOfThePlanRaisesTheSerialEvenWithoutABase(
        _ engine: DatabaseEngine
    ) throws {
        let f = try Fixture(engine)
        let mei = try f.addUser()
        let bases = StatisticsBaseRepository(f.db)
        #expect(try bases.serial(userID: "mei") == 0)
        try f.seed(UserPlan(user: mei, tasks: [oneOff("new", "2025-01-09T09:00", "2025-01-09T10:00")]))
        #expect(try bases.serial(userID: "mei") == 1)
        try bases.invalidate(userID: "mei", earliest: nil)
        #expect(try bases.serial(userID: "mei") == 2)
    }

    @Test(arguments: EngineUnderTest.engines) func aWriteAfterTheBaseDateKeepsItAndOneOnOrBeforeItDropsIt(
        _ engine: DatabaseEngine
    ) throws {
        let f = try Fixture(engine)
        try f.addUser()
        let bases = StatisticsBaseRepository(f.db)
        try bases.store(userID: "mei", through: date("2025-01-01"), counts: math)
        try bases.invalidate(userID: "mei", earliest: date("2025-01-02"))
        #expect(try bases.base(userID: "mei") == StatisticsBase(serial: 2, through: date("2025-01-01"), counts: math))
        try bases.invalidate(userID: "mei", earliest: nil)
        #expect(try bases.base(userID: "mei").through == date("2025-01-01"))
        try bases.invalidate(userID: "mei", earliest: date("2025-01-01"))
        #expect(try bases.base(userID: "mei") == StatisticsBase(serial: 4, through: nil, counts: [:]))
    }

    @Test(arguments: EngineUnderTest.engines) func commitUndoAndRedoDropTheBaseWhenTheyTouchSettledDays(
        _ engine: DatabaseEngine
    ) throws {
        let (f, _) = try Fixture.seeded(
            engine,
            tasks: [
                oneOff("old", "2024-12-20T09:00", "2024-12-20T10:00"),
                oneOff("new", "2025-01-09T09:00", "2025-01-09T10:00"),
            ])
        let bases = StatisticsBaseRepository(f.db)
        func settle() throws { try bases.store(userID: "mei", through: date("2025-01-01"), counts: math) }
        try settle()

        // Completing a session after the base date keeps it.
        let loaded = try f.plans.loadPlan(userID: "mei", window: nil)
        var recent = loaded
        recent.complete(OccurrenceID(taskID: "new"))
        let recentID = try f.commit(from: loaded, to: recent)
        #expect(try bases.base(userID: "mei").through == date("2025-01-01"))

        // Completing the December session changes settled days.
        var old = recent
        old.complete(OccurrenceID(taskID: "old"))
        let oldID = try f.commit(from: try f.plans.loadPlan(userID: "mei", window: nil), to: old)
        #expect(try bases.base(userID: "mei").through == nil)

        try settle()
        try f.changesets.undo(changesetID: recentID, now: Fixture.later)
        #expect(try bases.base(userID: "mei").through == date("2025-01-01"))
        try f.changesets.undo(changesetID: oldID, now: Fixture.later)
        #expect(try bases.base(userID: "mei").through == nil)
        try settle()
        try f.changesets.redo(changesetID: oldID, now: Fixture.later)
        #expect(try bases.base(userID: "mei").through == nil)
    }

    @Test(arguments: EngineUnderTest.engines) func removingTheUserRemovesTheBase(_ engine: DatabaseEngine) throws {
        let f = try Fixture(engine)
        try f.addUser()
        try StatisticsBaseRepository(f.db).store(userID: "mei", through: date("2025-01-01"), counts: math)
        try f.users.remove("mei")
        #expect(try f.count("SELECT count(*) FROM statistics_base") == 0)
    }

    // MARK: The earliest date a changeset reaches

    func edit(_ entity: EditEntity, _ key: String, before: JSONValue?, after: JSONValue?) -> ChangesetEdit {
        ChangesetEdit(seq: 1, entity: entity, key: key, before: before, after: after, reason: "test")
    }

    @Test func aTaskReachesBackToTheEarlierOfItsTwoStarts() {
        let moved = edit(.task, "m1", before: ["start": "2025-01-03T09:00"], after: ["start": "2025-01-08T09:00"])
        #expect(ChangesetEdit.earliestAffectedDate(of: [moved]) == date("2025-01-03"))
        let created = edit(.task, "m2", before: nil, after: ["start": "2025-01-10T09:00"])
        #expect(ChangesetEdit.earliestAffectedDate(of: [created, moved]) == date("2025-01-03"))
    }

    @Test func anOverrideReachesWhereTheSessionWasAndWhereItGoes() {
        // First move: before it, the session sat on its original date.
        let moved = edit(
            .override, "eng@2024-12-20", before: nil, after: ["start": "2025-01-08T10:00", "state": "open"])
        #expect(ChangesetEdit.earliestAffectedDate(of: [moved]) == date("2024-12-20"))
        // Moved again: the original date no longer matters, only the two places.
        let again = edit(
            .override, "eng@2024-12-20", before: ["start": "2025-01-08T10:00"], after: ["start": "2025-01-09T10:00"])
        #expect(ChangesetEdit.earliestAffectedDate(of: [again]) == date("2025-01-08"))
        let completed = edit(.override, "eng@2025-01-06", before: nil, after: ["start": .null, "state": "completed"])
        #expect(ChangesetEdit.earliestAffectedDate(of: [completed]) == date("2025-01-06"))
    }

    @Test func aSlideReachesItsFromDateLoweredByEveryBackwardSlide() {
        let forward = edit(.slide, "eng@2025-01-10", before: nil, after: ["days": 2])
        #expect(ChangesetEdit.earliestAffectedDate(of: [forward]) == date("2025-01-10"))
        let backward = edit(.slide, "eng@2025-01-10", before: ["days": 1], after: ["days": -3])
        #expect(ChangesetEdit.earliestAffectedDate(of: [backward]) == date("2025-01-07"))
        // A stored backward slide of the series (2 days) reaches unmoved sessions further back.
        let completed = edit(.override, "eng@2025-01-06", before: nil, after: ["start": .null, "state": "completed"])
        #expect(ChangesetEdit.earliestAffectedDate(of: [completed]) { $0 == "eng" ? 2 : 0 } == date("2025-01-04"))
    }

    @Test func aSeriesTaskReachesItsStartLoweredByItsBackwardSlides() {
        let series = edit(
            .task, "eng", before: ["start": "2025-01-06T10:00", "repeat": ["every": "daily"]],
            after: ["start": "2025-01-06T10:00", "repeat": ["every": "daily"], "category": "Math"])
        #expect(ChangesetEdit.earliestAffectedDate(of: [series]) { _ in 3 } == date("2025-01-03"))
        let oneOff = edit(.task, "m1", before: nil, after: ["start": "2025-01-06T10:00", "repeat": .null])
        #expect(ChangesetEdit.earliestAffectedDate(of: [oneOff]) { _ in 3 } == date("2025-01-06"))
    }

    @Test(arguments: EngineUnderTest.engines) func aStoredBackwardSlideMakesAnEditNearTheBaseDropIt(
        _ engine: DatabaseEngine
    ) throws {
        let f = try Fixture(engine)
        let mei = try f.addUser()
        var eng = oneOff("eng", "2024-12-28T10:00", "2024-12-28T11:00", category: "English")
        eng.repeatRule = RepeatRule(every: .daily)
        try f.seed(
            UserPlan(user: mei, tasks: [eng], slides: [SeriesSlide(taskID: "eng", from: date("2025-01-03"), days: -3)]))
        let bases = StatisticsBaseRepository(f.db)
        try bases.store(userID: "mei", through: date("2025-01-01"), counts: math)
        // The session of 01-03 sits on 12-31 (slid back three days): completing it changes a settled day.
        let loaded = try f.plans.loadPlan(userID: "mei", window: nil)
        var done = loaded
        done.complete(OccurrenceID(taskID: "eng", originalDate: date("2025-01-03")))
        try f.commit(from: loaded, to: done)
        #expect(try bases.base(userID: "mei").through == nil)
    }

    @Test func statisticRowsReachNothingAndUnreadableImagesReachEverything() {
        let stat = edit(.statistic, "Math", before: nil, after: ["category": "Math"])
        #expect(ChangesetEdit.earliestAffectedDate(of: [stat]) == nil)
        let broken = edit(.task, "m1", before: nil, after: ["start": 5])
        #expect(ChangesetEdit.earliestAffectedDate(of: [broken]) == date("0001-01-01"))
    }
}
