import Foundation
import ReplanTestSupport
import Testing

/// Undoing an import takes back everything it brought, focus sessions included, and redo
/// brings all of it back (issue 29). Focus sessions recorded after the import are the
/// student's and survive the undo; only one indistinguishable from an imported one (same
/// category, start and minutes) makes the undo refuse with exit 2, naming it.
@Suite struct ImportUndoTests {
    static let users = FirestoreImportTests.users

    /// `export` and `stats` of a student, as comparable values.
    static func snapshot(_ s: Sandbox, _ user: String) async throws -> (export: NSDictionary, stats: NSDictionary) {
        let exported = try FirestoreImportTests.object(try await s.ok(["export", "--user", user]))
        let stats = try FirestoreImportTests.object(try await s.ok(["stats", "--user", user, "--json"]))
        return (exported, stats)
    }

    static func entry(_ export: NSDictionary) throws -> NSDictionary {
        try #require((export["users"] as? [NSDictionary])?.first)
    }

    /// The changeset id an undo's output offers to redo.
    static func redoID(_ undoOutput: String) throws -> String {
        let words = undoOutput.split(whereSeparator: \.isWhitespace)
        let at = try #require(words.lastIndex(of: "redo"), "\(undoOutput)")
        return String(words[words.index(after: at)])
    }

    @Test(arguments: users)
    func undoingAFirestoreImportLeavesNoTraceAndRedoBringsItBack(user: String) async throws {
        let s = try Sandbox()
        try await s.ok(try FirestoreImportTests.importArguments(s))
        var imported: [String: (export: NSDictionary, stats: NSDictionary)] = [:]
        for u in Self.users { imported[u] = try await Self.snapshot(s, u) }

        let undo = try await s.ok(["undo", "--user", user, "--last", "--yes"])
        let undone = try await Self.snapshot(s, user)
        // The student did not exist before: what remains is an empty record (its changesets,
        // which redo needs, hang off it), with nothing of the import in it.
        let entry = try Self.entry(undone.export)
        #expect(entry["tasks"] as? [Any] != nil && (entry["tasks"] as? [Any])?.isEmpty == true, "\(entry)")
        #expect((entry["focusSessions"] as? [Any])?.isEmpty == true, "\(entry)")
        #expect((undone.stats["categories"] as? [Any])?.isEmpty == true, "\(undone.stats)")
        #expect(try SQL.int(s.db, "SELECT count(*) FROM focus_sessions WHERE user_id = '\(user)'") == 0)
        #expect(try SQL.int(s.db, "SELECT count(*) FROM statistics WHERE user_id = '\(user)'") == 0)
        for other in Self.users where other != user {
            let now = try await Self.snapshot(s, other)
            #expect(now.export == imported[other]?.export && now.stats == imported[other]?.stats, "\(other)")
        }

        try await s.ok(["redo", try Self.redoID(undo), "--yes"])
        for u in Self.users {
            let now = try await Self.snapshot(s, u)
            #expect(now.export == imported[u]?.export, "\(u) after redo: \(now.export)")
            #expect(now.stats == imported[u]?.stats, "\(u) after redo: \(now.stats)")
        }
    }

    @Test func aFocusSessionRecordedAfterTheImportSurvivesTheUndo() async throws {
        let s = try Sandbox()
        let user = Self.users[1]
        try await s.ok(try FirestoreImportTests.importArguments(s))
        let imported = try await Self.snapshot(s, user)
        try SQL.execute(
            s.db,
            "INSERT INTO focus_sessions (user_id, category, start, minutes) VALUES ('\(user)', '數學', '2025-01-07T19:00', 25)"
        )
        let undo = try await s.ok(["undo", "--user", user, "--last", "--yes"])
        // 45 + 1440 + 120 + 60 minutes of the fixture's statistics.
        #expect(undo.contains(": 6 edit(s), 1665 focus minutes"), "\(undo)")
        #expect(
            try SQL.value(
                s.db,
                "SELECT group_concat(category || ' ' || start || ' ' || minutes) FROM focus_sessions WHERE user_id = '\(user)'"
            ) == "數學 2025-01-07T19:00 25")
        let stats = try await s.json(["stats", "--user", user, "--json"])
        #expect(stats.array("categories").map { $0.int("focusMinutes") } == [25], "\(stats)")

        try await s.ok(["redo", try Self.redoID(undo), "--yes"])
        let redone = try Self.entry(try await Self.snapshot(s, user).export)
        let before = try Self.entry(imported.export)
        #expect(redone["tasks"] as? NSArray == before["tasks"] as? NSArray)
        #expect(
            (redone["focusSessions"] as? [NSDictionary])?.count == (before["focusSessions"] as? [NSDictionary])!.count
                + 1,
            "\(redone)")
    }

    @Test func undoRefusesWhenAFocusSessionLikeAnImportedOneWasRecordedSince() async throws {
        let s = try Sandbox()
        let user = Self.users[1]
        try await s.ok(try FirestoreImportTests.importArguments(s))
        // Indistinguishable from the imported 60 minutes of 數學 on 2025-01-07.
        try SQL.execute(
            s.db,
            "INSERT INTO focus_sessions (user_id, category, start, minutes) VALUES ('\(user)', '數學', '2025-01-07T00:00', 60)"
        )
        let before = try SQL.planDump(s.db, excluding: [])
        let refused = try await s.run(["undo", "--user", user, "--last", "--yes"])
        #expect(refused.code == 2, "\(refused)")
        #expect(
            refused.stderr.contains("focus 2025-01-07T00:00|60|數學: expected 1 session(s), found 2"), "\(refused.stderr)"
        )
        expectSamePlan(before, try SQL.planDump(s.db, excluding: []), "after the refused undo")
    }

    @Test func aStudentWhoExistedBeforeKeepsWhatTheyHad() async throws {
        let s = try Sandbox()
        let user = Self.users[1]
        try await s.ok(["user", "add", user, "--time-zone", "Asia/Taipei", "--language", "zh-TW"])
        try await s.addTask(
            "own-task", "Own reading", "2025-01-08T10:00", "2025-01-08T11:00", category: "英文", user: user)
        try SQL.execute(
            s.db,
            "INSERT INTO focus_sessions (user_id, category, start, minutes) VALUES ('\(user)', '英文', '2025-01-05T09:00', 30)"
        )
        let own = try await Self.snapshot(s, user)
        try await s.ok(try FirestoreImportTests.importArguments(s))
        try await s.ok(["undo", "--user", user, "--last", "--yes"])
        let undone = try await Self.snapshot(s, user)
        let (a, b) = (try Self.entry(own.export), try Self.entry(undone.export))
        #expect(a["tasks"] as? NSArray == b["tasks"] as? NSArray, "\(b)")
        #expect(a["focusSessions"] as? NSArray == b["focusSessions"] as? NSArray, "\(b)")
        #expect(own.stats == undone.stats, "\(undone.stats)")
    }

    @Test func aReplanDocumentsFocusSessionsAreUndoneAndRedoneToo() async throws {
        let s = try Sandbox()
        let doc = try s.writeJSON("rich.json", Documents.rich)
        try await s.ok(["import", doc])
        let imported = try await Self.snapshot(s, "mei")
        #expect(try SQL.int(s.db, "SELECT count(*) FROM focus_sessions WHERE user_id = 'mei'") > 0)
        let undo = try await s.ok(["undo", "--user", "mei", "--last", "--yes"])
        #expect(try SQL.int(s.db, "SELECT count(*) FROM focus_sessions WHERE user_id = 'mei'") == 0)
        try await s.ok(["redo", try Self.redoID(undo), "--yes"])
        let redone = try await Self.snapshot(s, "mei")
        #expect(redone.export == imported.export && redone.stats == imported.stats, "\(redone)")
    }

    @Test func aDocumentThatOnlyAddsFocusSessionsIsOneUndoableChangeset() async throws {
        let s = try Sandbox()
        let doc = try s.writeJSON("rich.json", Documents.rich)
        try await s.ok(["import", doc])
        let first = try await Self.snapshot(s, "mei")
        var more = Documents.rich
        var users = try #require(more["users"] as? [[String: Any]])
        let mei = try #require(users.firstIndex { $0["id"] as? String == "mei" })
        users[mei]["focusSessions"] = [["category": "English", "start": "2025-01-06T20:00", "minutes": 15]]
        more["users"] = users
        let out = try await s.json(["import", try s.writeJSON("more.json", more), "--json"])
        let changeset = try #require(out.array("users").first { $0.string("user") == "mei" }?.string("changesetId"))
        try await s.ok(["undo", changeset, "--yes"])
        let undone = try await Self.snapshot(s, "mei")
        #expect(undone.export == first.export && undone.stats == first.stats, "\(undone)")
    }
}
