import Exchange
import Foundation
import Nightly
import Planning
import ReplanTestSupport
import Store
import Testing

@Suite("Import as a use case: all or nothing, one changeset per user, idempotent")
struct ImporterTests {
    func entry(_ userID: String, taskIDs: [String]) throws -> ReplanDocument.Entry {
        let user = try User(id: userID, zone: UserZone(identifier: "Asia/Taipei"))
        return ReplanDocument.Entry(
            user: user,
            tasks: taskIDs.map { id in
                StudyTask(
                    id: id, userID: userID, title: "Essay", category: "Writing",
                    start: CivilDateTime("2025-01-09T10:00")!, end: CivilDateTime("2025-01-09T11:00")!)
            },
            focusSessions: [FocusSession(category: "Writing", start: CivilDateTime("2025-01-06T10:00")!, minutes: 25)])
    }

    func input(_ entries: [ReplanDocument.Entry]) throws -> ImportInput {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("import-\(UUID().uuidString).json")
        defer { try? FileManager.default.removeItem(at: file) }
        try Data(ReplanDocument(entries: entries).json.prettyText.utf8).write(to: file)
        return try ImportInput.replan(file.path, now: NightlyFixture.now)
    }

    @Test(
        "a new user is imported as one changeset; the same input again changes nothing",
        arguments: EngineUnderTest.engines)
    func importTwice(_ engine: DatabaseEngine) throws {
        let f = try NightlyFixture(engine: engine)
        let importer = Importer(database: try f.database(), now: NightlyFixture.now)
        let document = try input([try entry("ana", taskIDs: ["a-1", "a-2"])])
        let first = try importer.commit(document, source: "in.json")
        #expect(first.count == 1)
        #expect(first[0].userID == "ana" && first[0].zoneIdentifier == "Asia/Taipei")
        #expect(first[0].tasks == 2 && first[0].series == 0 && first[0].focusMinutes == 25)
        let id = try #require(first[0].changesetID)
        #expect(try Nightly.RunLog(database: f.database()).changeset(id).header.origin == .import)
        let second = try importer.commit(document, source: "in.json")
        #expect(second[0].changesetID == nil)
        #expect(try PlanReader(database: f.database()).focusSessions(userID: "ana").count == 1)
    }

    @Test(
        "a task id of another user rejects the whole input, naming where it stands", arguments: EngineUnderTest.engines)
    func foreignTaskRejectsEverything(_ engine: DatabaseEngine) throws {
        let f = try NightlyFixture(engine: engine)
        try f.addStudents(1)
        let importer = Importer(database: try f.database(), now: NightlyFixture.now)
        let document = try input([
            try entry("ana", taskIDs: ["a-1"]), try entry("ben", taskIDs: ["b-1", "s0-eng-0"]),
        ])
        #expect(
            throws: UseCaseError.badInput(
                "in.json: task id s0-eng-0 (users[1].tasks[1]) belongs to another user; nothing was imported")
        ) {
            try importer.commit(document, source: "in.json")
        }
        #expect(try Roster(database: f.database()).list().map(\.id) == ["s0"])
    }

    @Test(
        "undo of an import removes the student it created and takes an existing student's settings back; redo brings both again",
        arguments: EngineUnderTest.engines)
    func undoAndRedoTheStudent(_ engine: DatabaseEngine) throws {
        let f = try NightlyFixture(engine: engine)
        let database = try f.database()
        let roster = Roster(database: database)
        let ben = try User(id: "ben", zone: UserZone(identifier: "Europe/Berlin"))
        try roster.add(ben, now: NightlyFixture.now)
        let own = try #require(try roster.list().first)
        var benEntry = try entry("ben", taskIDs: ["b-1"])
        benEntry.user.settings.sessionMinutes = 30
        let results = try Importer(database: database, now: NightlyFixture.now).commit(
            try input([try entry("ana", taskIDs: ["a-1"]), benEntry]), source: "in.json")
        #expect(results.map(\.created) == [true, false])
        let imported = try roster.list()
        #expect(imported.map(\.id) == ["ana", "ben"] && imported[1].settings.sessionMinutes == 30)

        func flip(_ user: Int, _ direction: ChangesetReversal.Direction) throws {
            let reversal = ChangesetReversal(database: database, direction: direction, retentionDays: nil)
            let id = try #require(results[user].changesetID)
            guard case .done = try reversal.perform(try reversal.load(id), force: false, now: NightlyFixture.now)
            else { throw TestFailure("\(direction) of \(id) refused") }
        }
        try flip(0, .undo)
        try flip(1, .undo)
        #expect(try roster.list() == [own])
        #expect(try PlanReader(database: database).focusSessions(userID: "ben").isEmpty)
        try flip(0, .redo)
        try flip(1, .redo)
        #expect(try roster.list() == imported)
        #expect(try PlanReader(database: database).focusSessions(userID: "ana").count == 1)
    }

    @Test("check counts what would be imported without a database")
    func checkOnly() throws {
        let results = Importer.check(try input([try entry("ana", taskIDs: ["a-1"])]))
        #expect(results.map(\.userID) == ["ana"] && results[0].changesetID == nil && results[0].tasks == 1)
    }

    @Test("an input that cannot be read or parsed is bad input naming the file")
    func badInput() throws {
        let f = try NightlyFixture()
        let missing = f.directory.appendingPathComponent("missing.json").path
        #expect(throws: UseCaseError.badInput("cannot read \(missing)")) {
            try ImportInput.replan(missing, now: NightlyFixture.now)
        }
        #expect(FileManager.default.createFile(atPath: f.path, contents: Data("{\"format\": ".utf8)))
        #expect {
            try ImportInput.replan(f.path, now: NightlyFixture.now)
        } throws: { ($0 as? UseCaseError)?.kind == .badInput && "\($0)".hasPrefix("\(f.path): ") }
    }

    @Test("a zone map naming an unknown zone is bad input naming the file and the user")
    func unknownZoneInTheMap() throws {
        let f = try NightlyFixture()
        let zones = f.directory.appendingPathComponent("zones.json").path
        #expect(FileManager.default.createFile(atPath: zones, contents: Data("{\"u1\": \"Mars/Olympus\"}".utf8)))
        #expect {
            try ImportInput.zoneMap(zones)
        } throws: { "\($0)".hasPrefix("\(zones): u1: ") }
    }
}
