import Foundation
import JSON
import Nightly
import Planning
import Store
import Testing

@testable import ReplanCLI

/// undo/redo used to drop a failed statistics recount with `try?`; the flip is committed, so
/// the command still succeeds, and now says that the statistics lag and what to run.
@Suite struct ReversalWarningTests {
    static let now = "2025-01-07T03:00:00+08:00"

    func run(_ tokens: [String]) -> (ExitCode, Captured) { Captured.run(tokens) }

    /// A database with a student's manual changesets, whose statistics can no longer be updated.
    func database() throws -> (path: String, changeset: String) {
        let path = NSTemporaryDirectory() + "replan-reversal-\(UUID().uuidString).db"
        let db = try ReplanDatabase.open(path: path)
        let now = try #require(Timestamp.date(Self.now))
        try Roster(database: db).add(User(id: "mei", zone: UserZone(identifier: "Asia/Taipei")), now: now)
        let editor = ManualEditor(database: db, userID: "mei", now: now)
        let original = try editor.loadPlan()
        var working = original
        working.put(
            StudyTask(
                id: "essay", userID: "mei", title: "Essay", category: "Writing",
                start: CivilDateTime("2025-01-06T10:00")!, end: CivilDateTime("2025-01-06T11:00")!))
        _ = try #require(try editor.commit(original: original, working: working))
        // The changeset to flip moves yesterday's essay, so the recount after it updates the
        // Writing row (a session that is still to come is not counted yet).
        let added = try editor.loadPlan()
        var moved = added
        var essay = try #require(added.tasks["essay"])
        essay.start = CivilDateTime("2025-01-05T10:00")!
        essay.end = CivilDateTime("2025-01-05T11:00")!
        moved.put(essay)
        let change = try #require(try editor.commit(original: added, working: moved))
        try Database.open(path: path).execute(
            "CREATE TRIGGER no_recount BEFORE UPDATE ON statistics BEGIN SELECT RAISE(ABORT, 'no recount'); END")
        return (path, change.changesetID.description)
    }

    @Test func aFailedRecountIsAWarningThatSaysWhatToRun() throws {
        let (path, id) = try database()
        defer { for suffix in ["", "-wal", "-shm", ".lock"] { unlink(path + suffix) } }
        let (code, captured) = run(["undo", id, "--yes", "--db", path, "--now", Self.now])
        #expect(code == .success)
        #expect(captured.stdout.contains("undid \(id)"))
        #expect(captured.stderr.contains("statistics could not be recounted"))
        #expect(captured.stderr.contains("replan run --user mei --force"))
        let (redo, json) = run(["redo", id, "--yes", "--json", "--db", path, "--now", Self.now])
        #expect(redo == .success)
        let reply = try JSONValue(parsing: Array(json.stdout.utf8))
        #expect(reply["state"]?.stringValue == "applied")
        #expect(reply["statisticsError"]?.stringValue?.contains("no recount") == true)
    }
}
