import Exchange
import Foundation
import Nightly
import Planning
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

    func place(_ u: Int, _ t: Int, _ e: ReplanDocument.Entry) -> String { "users[\(u)].tasks[\(t)]" }

    @Test("a new user is imported as one changeset; the same input again changes nothing")
    func importTwice() throws {
        let f = try NightlyFixture()
        let importer = Importer(database: try f.database(), now: NightlyFixture.now)
        let document = ReplanDocument(entries: [try entry("ana", taskIDs: ["a-1", "a-2"])])
        let first = try importer.commit(document, source: "in.json", place: place)
        #expect(first.count == 1)
        #expect(first[0].userID == "ana" && first[0].zoneIdentifier == "Asia/Taipei")
        #expect(first[0].tasks == 2 && first[0].series == 0 && first[0].focusMinutes == 25)
        let id = try #require(first[0].changesetID)
        #expect(try Nightly.RunLog(database: f.database()).changeset(id).header.origin == .import)
        let second = try importer.commit(document, source: "in.json", place: place)
        #expect(second[0].changesetID == nil)
        #expect(try PlanReader(database: f.database()).focusSessions(userID: "ana").count == 1)
    }

    @Test("a task id of another user rejects the whole input, naming where it stands")
    func foreignTaskRejectsEverything() throws {
        let f = try NightlyFixture()
        try f.addStudents(1)
        let importer = Importer(database: try f.database(), now: NightlyFixture.now)
        let document = ReplanDocument(entries: [
            try entry("ana", taskIDs: ["a-1"]), try entry("ben", taskIDs: ["b-1", "s0-eng-0"]),
        ])
        #expect(
            throws: UseCaseError.badInput(
                "in.json: task id s0-eng-0 (users[1].tasks[1]) belongs to another user; nothing was imported")
        ) {
            try importer.commit(document, source: "in.json", place: place)
        }
        #expect(try Roster(database: f.database()).list().map(\.id) == ["s0"])
    }

    @Test("check counts what would be imported without a database")
    func checkOnly() throws {
        let results = Importer.check(ReplanDocument(entries: [try entry("ana", taskIDs: ["a-1"])]))
        #expect(results.map(\.userID) == ["ana"] && results[0].changesetID == nil && results[0].tasks == 1)
    }

    @Test("a replan/1 document that does not parse names where")
    func badDocument() throws {
        #expect(throws: (any Error).self) { try Importer.replanDocument(Array("{\"format\": 1".utf8), now: .now) }
    }
}
