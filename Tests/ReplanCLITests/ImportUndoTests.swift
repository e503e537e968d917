import Foundation
import ReplanTestSupport
import Testing

/// Undoing an import takes back everything it brought, focus sessions, profile and settings
/// included, and removes a student it created; redo brings all of it back (issue 29). Focus
/// sessions recorded after the import are the student's and survive the undo (the student
/// stays for them); only one indistinguishable from an imported one (same category, start and
/// minutes) makes the undo refuse with exit 2, naming it.
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

    /// Everything of the database a reader sees: `user list`, and `export` and `stats` of each
    /// student it lists.
    struct Everything: Equatable {
        var users: NSDictionary
        var students: [String: [NSDictionary]]

        /// Without the student `user`, as a database that never had them.
        func without(_ user: String) -> Everything {
            var copy = self
            copy.users = ImportUndoTests.without(user, users)
            copy.students[user] = nil
            return copy
        }
    }

    static func everything(_ s: Sandbox) async throws -> Everything {
        let users = try FirestoreImportTests.object(try await s.ok(["user", "list", "--json"]))
        var students: [String: [NSDictionary]] = [:]
        for id in (users["users"] as? [NSDictionary] ?? []).compactMap({ $0["id"] as? String }) {
            let (export, stats) = try await snapshot(s, id)
            students[id] = [export, stats]
        }
        return Everything(users: users, students: students)
    }

    /// `value` with the student `user` left out of its `users` array.
    static func without(_ user: String, _ value: NSDictionary) -> NSDictionary {
        let copy = value.mutableCopy() as! NSMutableDictionary
        copy["users"] = (value["users"] as? [NSDictionary])?.filter { $0["id"] as? String != user }
        return copy
    }

    /// What `stats` and `export` of `user` say where the student never was: a database with
    /// no such student.
    static func neverImported(_ user: String) async throws -> [String] {
        let s = try Sandbox()
        try await s.ok(["user", "add", "someone", "--time-zone", "Asia/Taipei"])
        var said: [String] = []
        for command in [["stats", "--user", user, "--json"], ["export", "--user", user]] {
            let outcome = try await s.run(command)
            said.append("\(outcome.code) \(outcome.stdout) \(outcome.stderr)")
        }
        return said
    }

    @Test(arguments: users)
    func undoingAFirestoreImportLeavesNoTraceAndRedoBringsItBack(user: String) async throws {
        let s = try Sandbox()
        try await s.ok(try FirestoreImportTests.importArguments(s))
        let all = try await Self.everything(s)
        var imported: [String: (export: NSDictionary, stats: NSDictionary)] = [:]
        for u in Self.users { imported[u] = try await Self.snapshot(s, u) }

        let undo = try await s.ok(["undo", "--user", user, "--last", "--yes"])
        #expect(undo.contains("and removed \(user), whom the import had added"), "\(undo)")
        // The import created the student: its undo removes them, as if it never happened. Their
        // changeset stays (`log` lists it) for the redo.
        let undone = try await Self.everything(s)
        #expect(undone == all.without(user), "\(undone.users)")
        var said: [String] = []
        for command in [["stats", "--user", user, "--json"], ["export", "--user", user]] {
            let outcome = try await s.run(command)
            said.append("\(outcome.code) \(outcome.stdout) \(outcome.stderr)")
        }
        #expect(said == (try await Self.neverImported(user)), "\(said)")
        for table in ["users", "settings", "tasks", "statistics", "focus_sessions", "statistics_base"] {
            let column = table == "users" ? "id" : "user_id"
            #expect(try SQL.int(s.db, "SELECT count(*) FROM \(table) WHERE \(column) = '\(user)'") == 0, "\(table)")
        }
        let redo = try Self.redoID(undo)
        #expect(
            try await s.ok(["log"]).split(separator: "\n").contains { $0.contains(redo) && $0.contains("undone") },
            "log lists the undone import, to redo it")

        try await s.ok(["redo", redo, "--yes"])
        #expect(try await Self.everything(s) == all)
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
        // The session is the student's own: the student stays for it, with nothing of the import
        // but the profile.
        #expect(try SQL.int(s.db, "SELECT count(*) FROM users WHERE id = '\(user)'") == 1)
        #expect(try SQL.int(s.db, "SELECT count(*) FROM tasks WHERE user_id = '\(user)'") == 0)
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
        #expect(redone["settings"] as? NSDictionary == before["settings"] as? NSDictionary)
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
        // Everything the student had, profile and settings included, as before the import.
        #expect(own.export == undone.export, "\(undone.export)")
        #expect(own.stats == undone.stats, "\(undone.stats)")
    }

    /// The import's profile and settings of a student who existed before are its changeset's:
    /// undo takes them back and redo re-applies them, and a settings change made since is a
    /// conflict like any other row: the undo refuses with exit 2 naming it, `--force` overwrites.
    @Test func anImportsSettingsAreUndoneAndRedoneAndAChangeSinceIsAConflict() async throws {
        let s = try Sandbox()
        let user = Self.users[1]
        try await s.ok(["user", "add", user, "--time-zone", "Europe/Berlin", "--language", "en"])
        let own = try await Self.snapshot(s, user)
        try await s.ok(try FirestoreImportTests.importArguments(s))
        let imported = try await Self.snapshot(s, user)
        #expect(Self.settingsAndProfile(imported.export) != Self.settingsAndProfile(own.export))

        let undo = try await s.ok(["undo", "--user", user, "--last", "--yes"])
        #expect(try await Self.snapshot(s, user).export == own.export)
        try await s.ok(["redo", try Self.redoID(undo), "--yes"])
        #expect(try await Self.snapshot(s, user).export == imported.export)

        try await s.ok(["settings", "set", "--user", user, "--session-minutes", "195"])
        let changed = try await Self.snapshot(s, user)
        let refused = try await s.run(["undo", "--user", user, "--last", "--yes"])
        #expect(refused.code == 2, "\(refused)")
        #expect(refused.stderr.contains("user \(user): the profile or settings changed since"), "\(refused.stderr)")
        #expect(try await Self.snapshot(s, user).export == changed.export, "the refused undo wrote nothing")
        try await s.ok(["undo", "--user", user, "--last", "--yes", "--force"])
        #expect(try await Self.snapshot(s, user).export == own.export)
    }

    static func settingsAndProfile(_ export: NSDictionary) -> [String: NSObject?] {
        guard let entry = (export["users"] as? [NSDictionary])?.first else { return [:] }
        return ["settings", "timeZone", "language", "displayName"].reduce(into: [:]) { $0[$1] = entry[$1] as? NSObject }
    }

    @Test func aReplanDocumentsFocusSessionsAreUndoneAndRedoneToo() async throws {
        let s = try Sandbox()
        let doc = try s.writeJSON("rich.json", Documents.rich)
        try await s.ok(["import", doc])
        let imported = try await Self.snapshot(s, "mei")
        #expect(try SQL.int(s.db, "SELECT count(*) FROM focus_sessions WHERE user_id = 'mei'") > 0)
        let all = try await Self.everything(s)
        let undo = try await s.ok(["undo", "--user", "mei", "--last", "--yes"])
        #expect(try SQL.int(s.db, "SELECT count(*) FROM focus_sessions WHERE user_id = 'mei'") == 0)
        let undone = try await Self.everything(s)
        #expect(undone == all.without("mei"), "\(undone.users)")
        try await s.ok(["redo", try Self.redoID(undo), "--yes"])
        #expect(try await Self.everything(s) == all)
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
