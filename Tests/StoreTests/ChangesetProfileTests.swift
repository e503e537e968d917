import Foundation
import JSON
import Planning
import ReplanTestSupport
import Testing

@testable import Store

/// A changeset's `user` edit (issue 29): the student's profile and settings, as an import
/// records them. Undo takes them back and removes a student the changeset created; redo
/// brings them again; a change made since is a conflict unless forced.
@Suite struct ChangesetProfileTests {
    static func student(_ id: String = "nia", zone: String = "Europe/Berlin", sessionMinutes: Int = 45) throws -> User {
        var settings = UserSettings()
        settings.sessionMinutes = sessionMinutes
        settings.keepCategories = ["Math"]
        return try User(
            id: id, zone: UserZone(identifier: zone), language: "zh-TW", displayName: "Nia", settings: settings)
    }

    /// An import-like changeset: the student (created when `before` is nil) and one task.
    static func changeset(_ user: User, before: User?, tasks: [StudyTask] = []) -> NewChangeset {
        var c = NewChangeset(
            userID: user.id, origin: .import, planDate: nil, createdAt: Fixture.now,
            changes: PlanDiff.changes(
                from: UserPlan(user: user, tasks: []), to: UserPlan(user: user, tasks: tasks), now: Fixture.now
            ) { _, _ in "imported" })
        c.profileEdit = ChangesetEdit(
            seq: 0, entity: .user, key: user.id, before: before.map(ProfileImage.image),
            after: ProfileImage.image(user), reason: "imported student")
        return c
    }

    static func rows(_ f: Fixture, of user: String) throws -> [String: Int] {
        var counts: [String: Int] = [:]
        for (table, column) in [
            ("users", "id"), ("settings", "user_id"), ("tasks", "user_id"), ("statistics", "user_id"),
            ("statistics_base", "user_id"), ("focus_sessions", "user_id"),
        ] {
            counts[table] = try f.count("SELECT count(*) FROM \(table) WHERE \(column) = ?", [.text(user)])
        }
        return counts
    }

    @Test func anImageReadsBackAsTheSameStudent() throws {
        let nia = try Self.student()
        #expect(try ProfileImage.user(from: ProfileImage.image(nia), key: "nia") == nia)
        var plain = nia
        plain.displayName = nil
        #expect(try ProfileImage.user(from: ProfileImage.image(plain), key: "nia") == plain)
        let error = storeError { () throws(StoreError) in _ = try ProfileImage.user(from: ["id": "nia"], key: "nia") }
        #expect(error.map { "\($0)".contains("malformed user image") } == true, "\(String(describing: error))")
    }

    @Test(arguments: EngineUnderTest.engines)
    func theUndoOfTheChangesetThatCreatedAStudentRemovesThemAndRedoBringsThemBack(_ engine: DatabaseEngine) throws {
        let f = try Fixture(engine)
        try f.addUser("mei")
        let nia = try Self.student()
        let id = try f.changesets.commit(
            Self.changeset(nia, before: nil, tasks: [oneOff("n1", user: "nia", "2025-01-07T14:00", "2025-01-07T15:00")])
        )
        #expect(try f.users.find("nia") == nia)
        let created = try Self.rows(f, of: "nia")
        #expect(try f.changesets.changeset(id).edits.map(\.entity) == [.user, .statistic, .task])

        try f.changesets.undo(changesetID: id, now: Fixture.later)
        let left = try Self.rows(f, of: "nia")
        #expect(left.values.allSatisfy { $0 == 0 }, "\(left)")
        #expect(try f.users.list().map(\.id) == ["mei"])
        // The changeset outlives its student, for the redo.
        #expect(try f.changesets.changeset(id).header.state == .undone)
        #expect(try f.changesets.changesets().map(\.id) == [id])

        try f.changesets.redo(changesetID: id, now: Fixture.later)
        #expect(try f.users.find("nia") == nia)
        #expect(try f.plans.task(id: "n1") != nil)
        #expect(try Self.rows(f, of: "nia") == created)
    }

    @Test(arguments: EngineUnderTest.engines)
    func aStudentWithRowsOfTheirOwnStaysAndTheRedoFindsThemAsItLeavesThem(_ engine: DatabaseEngine) throws {
        let f = try Fixture(engine)
        let nia = try Self.student()
        let id = try f.changesets.commit(Self.changeset(nia, before: nil))
        try f.db.execute(
            "INSERT INTO focus_sessions (user_id, category, start, minutes) VALUES ('nia', 'Math', '2025-01-07T19:00', 25)"
        )
        try f.changesets.undo(changesetID: id, now: Fixture.later)
        #expect(try f.users.find("nia") == nia, "the student's own session keeps them")
        #expect(try f.count("SELECT count(*) FROM focus_sessions WHERE user_id = 'nia'") == 1)
        let redone = try f.changesets.redo(changesetID: id, now: Fixture.later)
        #expect(redone.overwritten.isEmpty)
        #expect(try f.users.find("nia") == nia)
    }

    @Test(arguments: EngineUnderTest.engines)
    func aStudentAddedAgainAfterTheUndoMakesTheRedoAConflict(_ engine: DatabaseEngine) throws {
        let f = try Fixture(engine)
        let nia = try Self.student()
        let id = try f.changesets.commit(Self.changeset(nia, before: nil))
        try f.changesets.undo(changesetID: id, now: Fixture.later)
        let other = try User(id: "nia", zone: UserZone(identifier: "Asia/Tokyo"))
        try f.users.add(other, now: Fixture.later)
        let refused = conflict { () throws(StoreError) in _ = try f.changesets.redo(changesetID: id, now: Fixture.later)
        }
        #expect(refused?.rows == [.init(entity: .user, key: "nia", expectedVersion: nil, foundVersion: 1)])
        #expect(refused?.rows.first?.description == "user nia: expected absent, found a student added since")
        #expect(try f.users.find("nia") == other)
        try f.changesets.redo(changesetID: id, force: true, now: Fixture.later)
        #expect(try f.users.find("nia") == nia)
    }

    @Test(arguments: EngineUnderTest.engines)
    func anExistingStudentsProfileAndSettingsAreUndoneRedoneAndGuardedAgainstChangesSince(
        _ engine: DatabaseEngine
    ) throws {
        let f = try Fixture(engine)
        let own = try f.addUser("nia", zone: "Asia/Taipei")
        let imported = try Self.student()
        let id = try f.changesets.commit(Self.changeset(imported, before: own))
        #expect(try f.users.find("nia") == imported)

        try f.changesets.undo(changesetID: id, now: Fixture.later)
        #expect(try f.users.find("nia") == own)
        try f.changesets.redo(changesetID: id, now: Fixture.later)
        #expect(try f.users.find("nia") == imported)

        // A settings change since, also one that leaves the version as it was (the app's
        // backend writing plain SQL on PostgreSQL), is a conflict; force overwrites it.
        try f.db.execute("UPDATE settings SET tone = 'cheerful' WHERE user_id = 'nia'")
        let refused = conflict { () throws(StoreError) in _ = try f.changesets.undo(changesetID: id, now: Fixture.later)
        }
        #expect(refused?.rows.map(\.description) == ["user nia: the profile or settings changed since"])
        #expect(try f.users.find("nia")?.settings.tone == "cheerful", "the refused undo wrote nothing")
        let forced = try f.changesets.undo(changesetID: id, force: true, now: Fixture.later)
        #expect(forced.overwritten.map(\.key) == ["nia"])
        #expect(try f.users.find("nia") == own)
    }

    @Test(arguments: EngineUnderTest.engines)
    func aUserEditOfAnotherUserIsRefused(_ engine: DatabaseEngine) throws {
        let f = try Fixture(engine)
        try f.addUser("mei")
        var c = Self.changeset(try Self.student(), before: nil)
        c.profileEdit?.key = "mei"
        #expect(storeError { () throws(StoreError) in _ = try f.changesets.commit(c) } != nil)
        #expect(try f.users.find("nia") == nil)
    }

    @Test(arguments: EngineUnderTest.engines)
    func removingAStudentRemovesTheirChangesetsThoughTheyNoLongerCascade(_ engine: DatabaseEngine) throws {
        let f = try Fixture(engine)
        let id = try f.changesets.commit(Self.changeset(try Self.student(), before: nil))
        try f.users.remove("nia")
        #expect(storeError { () throws(StoreError) in _ = try f.changesets.changeset(id) } == .unknownChangeset(id))
        #expect(try f.count("SELECT count(*) FROM changeset_edits") == 0)
    }
}
