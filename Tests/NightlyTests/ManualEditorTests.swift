import Foundation
import Nightly
import Planning
import ReplanTestSupport
import Store
import Testing

@Suite("Manual edits as a use case: the owner is found, history is kept, a concurrent edit conflicts")
struct ManualEditorTests {
    /// `s0` with a daily vocabulary series from 2025-01-08, added by hand.
    func withSeries(_ f: NightlyFixture) throws -> (ReplanDatabase, ManualEditor) {
        try f.addStudents(1)
        let db = try f.database()
        let editor = ManualEditor(database: db, userID: "s0", now: NightlyFixture.now)
        let original = try editor.loadPlan()
        var working = original
        working.put(
            StudyTask(
                id: "s0-vocab", userID: "s0", title: "Vocabulary", category: "English",
                start: CivilDateTime("2025-01-08T07:00")!, end: CivilDateTime("2025-01-08T07:30")!,
                repeatRule: RepeatRule(every: .daily)))
        let added = try #require(try editor.commit(original: original, working: working))
        #expect(added.edits.contains { $0.op == .create })
        return (db, editor)
    }

    @Test(
        "task edit's meaning lives in the use case: a split from a date, a start that keeps the length, a series-only change refused on a one-off",
        arguments: EngineUnderTest.engines)
    func editingATask(_ engine: DatabaseEngine) throws {
        let f = try NightlyFixture(engine: engine)
        let (_, editor) = try withSeries(f)
        let plan = try editor.loadPlan()
        var changes = ManualEditor.TaskChanges()
        changes.title = "  Words  "
        let split = try editor.editing("s0-vocab", changes, from: CivilDate("2025-01-10")!, in: plan)
        let continued = try #require(split.continued)
        #expect(continued.from == CivilDate("2025-01-10")!)
        #expect(split.working.tasks["s0-vocab"]?.repeatRule?.until == CivilDate("2025-01-09")!)
        #expect(split.working.tasks["s0-vocab"]?.title == "Vocabulary")
        #expect(split.working.tasks[continued.id]?.title == "Words")
        #expect(split.working.tasks[continued.id]?.start.date == CivilDate("2025-01-10")!)
        #expect(try editor.commit(original: plan, working: split.working) != nil)

        // From the series' first session on is no split: the series itself changes.
        let whole = try editor.editing("s0-vocab", changes, from: CivilDate("2025-01-01")!, in: plan)
        #expect(whole.continued == nil && whole.working.tasks["s0-vocab"]?.title == "Words")
        #expect(throws: UseCaseError.badInput("s0-vocab has no session on or after 2025-01-20")) {
            var ended = plan
            var task = plan.tasks["s0-vocab"]!
            task.repeatRule?.until = CivilDate("2025-01-15")!
            ended.put(task)
            return try editor.editing("s0-vocab", changes, from: CivilDate("2025-01-20")!, in: ended)
        }

        var moved = ManualEditor.TaskChanges()
        moved.start = CivilDateTime("2025-01-08T09:00")!
        let kept = try editor.editing("s0-vocab", moved, from: nil, in: plan).working.tasks["s0-vocab"]
        #expect(kept?.start == CivilDateTime("2025-01-08T09:00")! && kept?.end == CivilDateTime("2025-01-08T09:30")!)

        var until = ManualEditor.TaskChanges()
        until.until = .some(nil)
        let oneOff = try #require(plan.tasks.values.first { !$0.isSeries })
        #expect {
            try editor.editing(oneOff.id, until, from: nil, in: plan)
        } throws: { ($0 as? UseCaseError)?.field == "repeatRule.until" }

        var backwards = ManualEditor.TaskChanges()
        backwards.end = CivilDateTime("2025-01-08T06:00")!
        #expect {
            try editor.editing("s0-vocab", backwards, from: nil, in: plan)
        } throws: { ($0 as? UseCaseError)?.field == "end" }
    }

    @Test("moving one occurrence keeps its length unless an end is given", arguments: EngineUnderTest.engines)
    func movingAnOccurrence(_ engine: DatabaseEngine) throws {
        let f = try NightlyFixture(engine: engine)
        let (_, editor) = try withSeries(f)
        let plan = try editor.loadPlan()
        let oid = OccurrenceID("s0-vocab@2025-01-09")!
        let moved = try editor.moving(oid, start: CivilDateTime("2025-01-09T20:00")!, end: nil, in: plan)
        let o = try #require(moved.occurrence(oid))
        #expect(o.start == CivilDateTime("2025-01-09T20:00")! && o.end == CivilDateTime("2025-01-09T20:30")!)
        #expect {
            try editor.moving(
                oid, start: CivilDateTime("2025-01-09T20:00")!, end: CivilDateTime("2025-01-09T19:00")!, in: plan)
        } throws: { ($0 as? UseCaseError)?.field == "end" }
    }

    @Test("the editor of a task is its owner's; an unknown task is bad input", arguments: EngineUnderTest.engines)
    func ownerOfATask(_ engine: DatabaseEngine) throws {
        let f = try NightlyFixture(engine: engine)
        try f.addStudents(2)
        let db = try f.database()
        #expect(try ManualEditor.owning(taskID: "s1-eng-0", database: db, now: NightlyFixture.now).userID == "s1")
        #expect(throws: UseCaseError.badInput("no task 'nope'")) {
            try ManualEditor.owning(taskID: "nope", database: db, now: NightlyFixture.now)
        }
    }

    @Test("a new task id is free; an existing one is found", arguments: EngineUnderTest.engines)
    func taskIDs(_ engine: DatabaseEngine) throws {
        let f = try NightlyFixture(engine: engine)
        try f.addStudents(1)
        let editor = ManualEditor(database: try f.database(), userID: "s0", now: NightlyFixture.now)
        #expect(try editor.taskExists("s0-eng-0"))
        let id = try editor.newTaskID()
        #expect(id.hasPrefix("t-"))
        #expect(try !editor.taskExists(id))
    }

    @Test(
        "done on a series id asks for the occurrence; a completed occurrence cannot be skipped",
        arguments: EngineUnderTest.engines)
    func historyIsKept(_ engine: DatabaseEngine) throws {
        let f = try NightlyFixture(engine: engine)
        let (_, editor) = try withSeries(f)
        let plan = try editor.loadPlan()
        #expect(throws: UseCaseError.badInput("s0-vocab is a series; name the occurrence as s0-vocab@YYYY-MM-DD")) {
            try editor.completing(OccurrenceID("s0-vocab")!, in: plan)
        }
        #expect(throws: UseCaseError.badInput("s0-vocab@2025-01-06 is not an occurrence of s0-vocab")) {
            try editor.completing(OccurrenceID("s0-vocab@2025-01-06")!, in: plan)
        }
        let first = OccurrenceID("s0-vocab@2025-01-08")!
        let done = try #require(try editor.commit(original: plan, working: editor.completing(first, in: plan)))
        #expect(done.edits.count == 1)
        let after = try editor.loadPlan()
        #expect(throws: UseCaseError.badInput("s0-vocab@2025-01-08 is completed; its history is not changed")) {
            try editor.removing(first, from: after)
        }
        let skipped = try editor.removing(OccurrenceID("s0-vocab@2025-01-09")!, from: after)
        #expect(skipped.occurrence(OccurrenceID("s0-vocab@2025-01-09")!)?.state == .skipped)
    }

    @Test("an edit that changes nothing commits nothing", arguments: EngineUnderTest.engines)
    func nothingChanged(_ engine: DatabaseEngine) throws {
        let f = try NightlyFixture(engine: engine)
        try f.addStudents(1)
        let editor = ManualEditor(database: try f.database(), userID: "s0", now: NightlyFixture.now)
        let plan = try editor.loadPlan()
        #expect(try editor.commit(original: plan, working: plan) == nil)
    }

    @Test(
        "deleting a task removes it; a second editor's stale plan then conflicts instead of overwriting",
        arguments: EngineUnderTest.engines)
    func staleEditConflicts(_ engine: DatabaseEngine) throws {
        let f = try NightlyFixture(engine: engine)
        try f.addStudents(1)
        let db = try f.database()
        let one = ManualEditor(database: db, userID: "s0", now: NightlyFixture.now)
        let two = ManualEditor(database: db, userID: "s0", now: NightlyFixture.now)
        let seenByOne = try one.loadPlan()
        let seenByTwo = try two.loadPlan()
        let id = OccurrenceID("s0-eng-3")!
        _ = try one.commit(original: seenByOne, working: one.removing(id, from: seenByOne))
        #expect(try f.start(of: "s0-eng-3") == nil)
        #expect {
            try two.commit(original: seenByTwo, working: two.completing(id, in: seenByTwo))
        } throws: { ($0 as? UseCaseError)?.kind == .conflicts }
    }
}
