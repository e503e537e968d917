import Foundation
import Nightly
import Planning
import ReplanTestSupport
import Store
import Testing

@Suite("Undo and redo as a use case: conflicts refuse, force overwrites, a failed recount is reported")
struct ChangesetReversalTests {
    static let later = NightlyFixture.now.addingTimeInterval(60)

    func reversal(_ db: ReplanDatabase, _ direction: ChangesetReversal.Direction) -> ChangesetReversal {
        ChangesetReversal(database: db, direction: direction, retentionDays: nil)
    }

    @Test("undo restores the rows and redo puts the change back", arguments: EngineUnderTest.engines)
    func undoThenRedo(_ engine: DatabaseEngine) throws {
        let f = try NightlyFixture(engine: engine)
        try f.addStudents(1)
        let db = try f.database()
        let change = try f.moveByHand("s0-eng-2", to: "2025-01-08T15:00", db: db)
        let undo = reversal(db, .undo)
        guard case .done(let undone) = try undo.perform(undo.load(change.changesetID), force: false, now: Self.later)
        else {
            Issue.record("undo was refused")
            return
        }
        #expect(undone.state == .undone)
        #expect(undone.editCount == change.edits.count)
        #expect(undone.overwritten.isEmpty && undone.statisticsFailure == nil)
        #expect(try f.start(of: "s0-eng-2") == "2025-01-08T10:00")
        let redo = reversal(db, .redo)
        guard case .done(let redone) = try redo.perform(redo.load(change.changesetID), force: false, now: Self.later)
        else {
            Issue.record("redo was refused")
            return
        }
        #expect(redone.state == .applied)
        #expect(try f.start(of: "s0-eng-2") == "2025-01-08T15:00")
    }

    @Test(
        "undo refuses, writing nothing, when a row changed since; --force overwrites it and says which",
        arguments: EngineUnderTest.engines)
    func conflictRefusesThenForceOverwrites(_ engine: DatabaseEngine) throws {
        let f = try NightlyFixture(engine: engine)
        try f.addStudents(1)
        let db = try f.database()
        let first = try f.moveByHand("s0-eng-2", to: "2025-01-08T15:00", db: db)
        try f.moveByHand("s0-eng-2", to: "2025-01-08T17:00", db: db)
        let undo = reversal(db, .undo)
        let pending = try undo.load(first.changesetID)
        guard case .refused(let rows) = try undo.perform(pending, force: false, now: Self.later) else {
            Issue.record("undo over a later edit was not refused")
            return
        }
        #expect(rows.map(\.key).contains("s0-eng-2"))
        #expect(try f.start(of: "s0-eng-2") == "2025-01-08T17:00")
        guard case .done(let done) = try undo.perform(pending, force: true, now: Self.later) else {
            Issue.record("forced undo was refused")
            return
        }
        #expect(done.overwritten.map(\.key).contains("s0-eng-2"))
        #expect(try f.start(of: "s0-eng-2") == "2025-01-08T10:00")
    }

    @Test(
        "a statistics recount that fails is in the result; the undo itself stays committed",
        arguments: EngineUnderTest.engines)
    func recountFailureIsReported(_ engine: DatabaseEngine) throws {
        let f = try NightlyFixture(engine: engine)
        try f.addStudents(1)
        let db = try f.database()
        let change = try f.moveByHand("s0-eng-2", to: "2025-01-08T15:00", db: db)
        switch engine {
        case .sqlite:
            try f.connect().execute(
                "CREATE TRIGGER no_recount BEFORE UPDATE ON statistics BEGIN SELECT RAISE(ABORT, 'no recount'); END")
        case .postgresql:
            try f.connect().executeScript(
                """
                CREATE FUNCTION no_recount() RETURNS trigger LANGUAGE plpgsql AS $$
                BEGIN RAISE EXCEPTION 'no recount'; END $$;
                CREATE TRIGGER no_recount BEFORE UPDATE ON statistics FOR EACH ROW EXECUTE FUNCTION no_recount();
                """)
        }
        let undo = reversal(db, .undo)
        guard case .done(let done) = try undo.perform(undo.load(change.changesetID), force: false, now: Self.later)
        else {
            Issue.record("undo was refused")
            return
        }
        let failure = try #require(done.statisticsFailure)
        #expect(failure.message.contains("no recount"))
        #expect(done.state == .undone)
        #expect(try f.start(of: "s0-eng-2") == "2025-01-08T10:00")
    }

    @Test("undoing an undone changeset and redoing an applied one are bad input", arguments: EngineUnderTest.engines)
    func flipsOnlyOnce(_ engine: DatabaseEngine) throws {
        let f = try NightlyFixture(engine: engine)
        try f.addStudents(1)
        let db = try f.database()
        let change = try f.moveByHand("s0-eng-2", to: "2025-01-08T15:00", db: db)
        let redo = reversal(db, .redo)
        #expect(
            throws: UseCaseError.badInput(
                "changeset \(change.changesetID) is applied; only an undone changeset can be redone")
        ) {
            try redo.perform(redo.load(change.changesetID), force: false, now: Self.later)
        }
        let undo = reversal(db, .undo)
        _ = try undo.perform(undo.load(change.changesetID), force: false, now: Self.later)
        #expect(throws: UseCaseError.badInput("changeset \(change.changesetID) is already undone")) {
            try undo.perform(undo.load(change.changesetID), force: false, now: Self.later)
        }
    }

    @Test(
        "an unknown changeset, a student without changesets, and one past the retention are refused",
        arguments: EngineUnderTest.engines)
    func refusals(_ engine: DatabaseEngine) throws {
        let f = try NightlyFixture(engine: engine)
        try f.addStudents(1)
        let db = try f.database()
        let undo = reversal(db, .undo)
        #expect {
            try undo.load("c-nope")
        } throws: { ($0 as? UseCaseError)?.kind == .badInput && "\($0)".contains("no changeset c-nope") }
        try Roster(database: db).add(User(id: "new", zone: UserZone(identifier: "UTC")), now: NightlyFixture.now)
        #expect(throws: UseCaseError.badInput("new has no applied changeset to undo")) {
            try undo.lastApplied(userID: "new")
        }
        let last = try undo.lastApplied(userID: "s0")
        let pending = try undo.load(last)
        let month = ChangesetReversal(database: db, direction: .undo, retentionDays: 30)
        try month.refuseBeyondRetention(pending, now: Self.later)
        try undo.refuseBeyondRetention(pending, now: Self.later.addingTimeInterval(400 * 86_400))
        let day = ChangesetReversal(database: db, direction: .undo, retentionDays: 1)
        #expect {
            try day.refuseBeyondRetention(pending, now: Self.later.addingTimeInterval(3 * 86_400))
        } throws: { "\($0)".contains("older than the retention of 1 days") }
    }

    @Test(
        "undo enforces the retention and the owner itself, whoever calls it: nothing is flipped",
        arguments: EngineUnderTest.engines)
    func theUseCaseEnforcesItsOwnRules(_ engine: DatabaseEngine) throws {
        let f = try NightlyFixture(engine: engine)
        try f.addStudents(2)
        let db = try f.database()
        let last = try reversal(db, .undo).lastApplied(userID: "s0")
        // A caller that skips the retention check before asking still cannot flip it.
        let day = ChangesetReversal(database: db, direction: .undo, retentionDays: 1)
        let pending = try day.load(last)
        #expect {
            try day.perform(pending, force: false, now: Self.later.addingTimeInterval(3 * 86_400))
        } throws: { ($0 as? UseCaseError)?.kind == .badInput && "\($0)".contains("older than the retention of 1 days") }
        #expect {
            try day.load(last, owner: "s1")
        } throws: { ($0 as? UseCaseError)?.kind == .badInput && "\($0)".contains("belongs to s0, not to --user s1") }
        let state = try f.connect().queryFirst("SELECT state FROM changesets WHERE id = ?", [.text(last.description)]) {
            $0.text(0)
        }
        #expect(state == "applied")
        // Within the retention and for its own student it is undone.
        let undo = reversal(db, .undo)
        guard case .done = try undo.perform(undo.load(last, owner: "s0"), force: false, now: Self.later) else {
            Issue.record("the undo was refused")
            return
        }
    }
}
