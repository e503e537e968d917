import Foundation
import ReplanTestSupport
import Testing

/// `replan import --from firestore` end to end: the hand-written export of the original app
/// (Tests/Fixtures/firestore) goes into a database and comes back out of `export` as the
/// expected replan/1 document; the import is one undoable changeset per user, idempotent, and
/// all or nothing.
@Suite struct FirestoreImportTests {
    static let fixtures = TestFiles.fixture("firestore")
    static let export = fixtures.appendingPathComponent("firestore-export.json").path
    static let users = ["Qm4TzN8cVb2XyL6pRw0sKd3EuA9h", "Vq3LmX9aTbR2cP7sKd1EwY5uN8f2", "h7RkP2sQ9vXw4LmN0bTz6YcE1aJ3"]

    static func importArguments(_ s: Sandbox, _ extra: String...) throws -> [String] {
        let map = try s.write("zones.json", #"{"h7RkP2sQ9vXw4LmN0bTz6YcE1aJ3": "America/Los_Angeles"}"#)
        return ["import", "--from", "firestore", export, "--time-zone", "Asia/Taipei", "--time-zone-map", map] + extra
    }

    static func object(_ text: String) throws -> NSDictionary {
        try #require(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? NSDictionary)
    }

    @Test func theFixtureExportsAsTheExpectedDocument() async throws {
        let s = try Sandbox()
        let out = try await s.ok(try Self.importArguments(s))
        #expect(out.contains("imported Vq3LmX9aTbR2cP7sKd1EwY5uN8f2 (changeset "), "\(out)")
        #expect(out.contains("corrections (10):") && out.contains("not imported (5):"), "\(out)")
        let expected = try Self.object(
            try String(
                contentsOfFile: Self.fixtures.appendingPathComponent("firestore-expected.json").path, encoding: .utf8))
        let expectedUsers = try #require(expected["users"] as? [NSDictionary])
        for (i, user) in Self.users.enumerated() {
            let exported = try Self.object(try await s.ok(["export", "--user", user]))
            let got = try #require((exported["users"] as? [NSDictionary])?.first)
            #expect(got == expectedUsers[i], "\(user): \(got)")
        }
    }

    @Test func aSecondImportChangesNothing() async throws {
        let s = try Sandbox()
        try await s.ok(try Self.importArguments(s))
        let before = try SQL.planDump(s.db, excluding: [])
        let again = try await s.ok(try Self.importArguments(s))
        for user in Self.users { #expect(again.contains("imported \(user): already up to date"), "\(again)") }
        expectSamePlan(before, try SQL.planDump(s.db, excluding: []), "after importing the same export again")
    }

    @Test func theImportIsUndoable() async throws {
        let s = try Sandbox()
        let user = Self.users[1]
        try await s.ok(try Self.importArguments(s))
        #expect(try SQL.rows(s.db, "SELECT count(*) FROM tasks WHERE user_id = '\(user)'") == ["6"])
        let log = try await s.json(["log", "--user", user, "--json"])
        #expect("\(log)".contains("import"))
        try await s.ok(["undo", "--user", user, "--last", "--yes"])
        #expect(try SQL.rows(s.db, "SELECT count(*) FROM tasks WHERE user_id = '\(user)'") == ["0"])
        #expect(
            try SQL.rows(
                s.db,
                "SELECT count(*) FROM occurrence_overrides o JOIN tasks t ON t.id = o.task_id WHERE t.user_id = '\(user)'"
            ) == ["0"])
    }

    @Test func checkPrintsTheReportAndWritesNothing() async throws {
        let s = try Sandbox()
        let r = try await s.run(try Self.importArguments(s, "--check"))
        #expect(r.code == 0, "\(r)")
        #expect(
            r.stdout.contains(
                "would import h7RkP2sQ9vXw4LmN0bTz6YcE1aJ3 (America/Los_Angeles): 3 tasks (1 series, 3 completed sessions), 125 focus minutes"
            ), "\(r.stdout)")
        #expect(
            r.stdout.contains("tasks/Vq3LmX9aTbR2cP7sKd1EwY5uN8f2/userTasks/t06Broken: startDate 'yesterday'"),
            "\(r.stdout)")
        #expect(!FileManager.default.fileExists(atPath: s.db), "a dry run never creates the database")
    }

    @Test func theJSONReportNamesEachRecord() async throws {
        let s = try Sandbox()
        let out = try await s.json(try Self.importArguments(s, "--check", "--json"))
        #expect(out["schema"] as? String == "replan.import/1" && out["check"] as? Bool == true)
        let corrections = try #require(out["corrections"] as? [[String: Any]])
        #expect(
            corrections.contains {
                $0["kind"] as? String == "month-end"
                    && $0["path"] as? String == "tasks/Vq3LmX9aTbR2cP7sKd1EwY5uN8f2/userTasks/t02MathMonthly"
            })
        #expect((out["notImported"] as? [Any])?.count == 5)
        #expect((out["users"] as? [[String: Any]])?.map { $0["changesetId"] is NSNull } == [true, true, true])
    }

    @Test func aDirectoryOfPerUserDocumentsImports() async throws {
        let s = try Sandbox()
        let dir = s.path("export")
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        try s.write(
            "export/a.json",
            #"{"uid": "u1", "studySettings": {"studyDuration": 30, "selectedDays": [6], "dailyStartHours": {"6": 8}, "dailyEndHours": {"6": 11}}, "userTasks": {"t1": {"title": "英文", "category": "英文", "startDate": "2025-01-08T02:00:00.000Z", "endDate": "2025-01-08T03:00:00.000Z", "color": {"red": 0.2, "green": 0.6, "blue": 0.3, "opacity": 1}, "focusTime": 0, "isAllDay": false, "isCompleted": false, "repeatType": {"type": "none"}, "createdAt": "2025-01-01T00:00:00.000Z", "userId": "u1", "notificationEnabled": false}}}"#
        )
        try s.write(
            "export/b.json", #"{"uid": "u2", "settings": {"notificationEnabled": true, "notificationOffset": 5}}"#)
        let out = try await s.ok(["import", "--from", "firestore", dir, "--time-zone", "Asia/Taipei"])
        #expect(out.contains("imported u1") && out.contains("imported u2"), "\(out)")
        let settings = try await s.ok(["settings", "show", "--user", "u1"])
        #expect(settings.contains("08:00-11:00"), "\(settings)")

        try s.write("export/c.json", #"{"uid": "u1"}"#)
        let r = try await s.run(["import", "--from", "firestore", dir, "--time-zone", "Asia/Taipei"])
        #expect(r.code == 65 && r.stderr.contains("user u1 is also in a.json"), "\(r)")
    }

    @Test func badInputIsRefusedBeforeAnythingIsWritten() async throws {
        let s = try Sandbox()
        let noZone = try await s.run(["import", "--from", "firestore", Self.export])
        #expect(noZone.code == 64 && noZone.stderr.contains("--time-zone"), "\(noZone)")
        let badZone = try await s.run(["import", "--from", "firestore", Self.export, "--time-zone", "Mars/Olympus"])
        #expect(badZone.code == 65, "\(badZone)")
        let partialMap = try s.write("map.json", #"{"h7RkP2sQ9vXw4LmN0bTz6YcE1aJ3": "America/Los_Angeles"}"#)
        let unmapped = try await s.run(["import", "--from", "firestore", Self.export, "--time-zone-map", partialMap])
        #expect(unmapped.code == 65 && unmapped.stderr.contains("no time zone for user"), "\(unmapped)")
        let bad = try s.write(
            "bad.json", #"{"__collections__": {"tasks": {"u1": {"__collections__": {"userTasks": {"t1": "x"}}}}}}"#)
        let structure = try await s.run(["import", "--from", "firestore", bad, "--time-zone", "UTC"])
        #expect(
            structure.code == 65 && structure.stderr.contains("__collections__.tasks.u1.__collections__.userTasks.t1"),
            "\(structure)")
        let unknown = try await s.run(["import", "--from", "csv", Self.export])
        #expect(unknown.code == 64, "\(unknown)")
        let zoneForReplan = try await s.run(["import", Self.export, "--time-zone", "UTC"])
        #expect(zoneForReplan.code == 64, "\(zoneForReplan)")
        #expect(!FileManager.default.fileExists(atPath: s.db))
    }
}

extension FirestoreImportTests {
    @Test func aTaskIdAnotherStudentOwnsStopsTheImportAndNamesTheRecord() async throws {
        let s = try Sandbox()
        try await s.ok([
            "import",
            s.writeJSON(
                "bob.json",
                Documents.document([
                    [
                        "id": "bob", "timeZone": "UTC",
                        "tasks": [
                            [
                                "id": "p3Calculus", "title": "Mine", "category": "Math",
                                "start": "2025-01-08T10:00", "end": "2025-01-08T11:00",
                            ]
                        ],
                    ]
                ])),
        ])
        let before = try SQL.planDump(s.db, excluding: [])
        let r = try await s.run(try Self.importArguments(s))
        #expect(r.code == 65, "\(r)")
        #expect(
            r.stderr.contains("tasks/h7RkP2sQ9vXw4LmN0bTz6YcE1aJ3/userTasks/p3Calculus")
                && r.stderr.contains("another user"), "\(r.stderr)")
        expectSamePlan(before, try SQL.planDump(s.db, excluding: []), "after a refused Firestore import")
    }
}

extension FirestoreImportTests {
    @Test func theNightAfterTheImportPlansTheImportedStudents() async throws {
        // Friday 1/10 04:00 in Taipei: the Vocab course's Thursday 20:00 session (not completed
        // in the app) is overdue and its series appends it at the end; the completed ones stay.
        let s = try Sandbox(now: "2025-01-10T04:00:00+08:00")
        try await s.ok(try Self.importArguments(s))
        let night = try await s.json(["run", "--no-model", "--json"])
        let mei = try #require((night["users"] as? [[String: Any]])?.first { $0["user"] as? String == Self.users[1] })
        #expect(mei["status"] as? String == "changed", "\(mei)")
        let edits = try #require(mei["edits"] as? [[String: Any]])
        #expect(edits.map { $0["id"] as? String } == ["t01EnglishVocab@2025-01-08"], "\(edits)")
        #expect((edits.first?["after"] as? [String: Any])?["start"] as? String == "2025-02-01T20:00", "\(edits)")
    }
}

extension FirestoreImportTests {
    @Test func checkWorksForAReplanDocumentToo() async throws {
        let s = try Sandbox()
        let doc = try s.writeJSON("doc.json", Documents.document([Documents.englishWeek(user: "mei")]))
        let out = try await s.ok(["import", "--check", doc])
        #expect(
            out.contains("would import mei (Asia/Taipei): 5 tasks (0 series, 0 completed sessions), 0 focus minutes"),
            "\(out)")
        #expect(!FileManager.default.fileExists(atPath: s.db))
    }
}
