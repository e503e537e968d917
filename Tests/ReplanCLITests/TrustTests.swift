import Foundation
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// Issue 13 through the binary: no edit is silently lost, another user's data and another
/// application's files are left alone.
@Suite struct TrustTests {
    /// A sandbox with mei's English week imported.
    static func seeded() async throws -> Sandbox {
        try await NightlyJobTests.seeded(Documents.document([Documents.englishWeek()]))
    }

    static func changeset(_ s: Sandbox, _ arguments: [String]) async throws -> String {
        let o = try await s.json(arguments + ["--json"])
        return try #require(o.string("changesetId"), "\(o)")
    }

    // MARK: 1. versions never repeat

    @Test func redoAfterUndoingTwoEditsAndANewEditIsRefusedAndNamesTheConflict() async throws {
        let s = try await Self.seeded()
        let a = try await Self.changeset(s, ["task", "edit", "mei-eng-3", "--title", "a"])
        let b = try await Self.changeset(s, ["task", "edit", "mei-eng-3", "--title", "b"])
        try await s.ok(["undo", b, "--yes"])
        try await s.ok(["undo", a, "--yes"])
        try await s.ok(["task", "edit", "mei-eng-3", "--title", "USER-EDIT"])
        let redo = try await s.run(["redo", b, "--yes"])
        #expect(redo.code == 2, "\(redo)")
        #expect(redo.stderr.contains("mei-eng-3"), "the conflict is named: \(redo.stderr)")
        #expect(try SQL.value(s.db, "SELECT title FROM tasks WHERE id = 'mei-eng-3'") == "USER-EDIT")
    }

    @Test func aDeletedAndRecreatedTaskDoesNotRestartItsVersion() async throws {
        let s = try await Self.seeded()
        let before = try SQL.int(s.db, "SELECT version FROM tasks WHERE id = 'mei-eng-2'")
        let edit = try await Self.changeset(s, ["task", "edit", "mei-eng-2", "--title", "edited"])
        try await s.ok(["undo", edit, "--yes"])
        try await s.ok(["task", "rm", "mei-eng-2"])
        try await s.ok(["import", s.writeJSON("again.json", Documents.document([Documents.englishWeek()]))])
        let recreated = try SQL.int(s.db, "SELECT version FROM tasks WHERE id = 'mei-eng-2'")
        #expect(recreated > before + 1, "a re-created row takes a version never used: \(before) → \(recreated)")
        // The undone edit's images can never match the re-created row.
        let redo = try await s.run(["redo", edit, "--yes"])
        #expect(redo.code == 2, "\(redo)")
        #expect(try SQL.value(s.db, "SELECT title FROM tasks WHERE id = 'mei-eng-2'") == "English reading")
    }

    // MARK: 4. --user must match the id

    @Test func undoOfAnotherUsersChangesetWithUserIsRefused() async throws {
        let s = try await NightlyJobTests.seeded(Documents.document([Documents.englishWeek(), Documents.englishWeek(user: "ana")]))
        let cs = try await Self.changeset(s, ["task", "edit", "ana-eng-3", "--title", "ana's"])
        let refused = try await s.run(["undo", cs, "--user", "mei", "--yes"])
        #expect(refused.code == 65, "\(refused)")
        #expect(refused.stderr.contains("ana") && refused.stderr.contains("mei"), "\(refused.stderr)")
        #expect(try SQL.value(s.db, "SELECT title FROM tasks WHERE id = 'ana-eng-3'") == "ana's")
        #expect(try SQL.value(s.db, "SELECT state FROM changesets WHERE id = '\(cs)'") == "applied")
        // The owner's id passes.
        try await s.ok(["undo", cs, "--user", "ana", "--yes"])
        let redo = try await s.run(["redo", cs, "--user", "mei", "--yes"])
        #expect(redo.code == 65, "\(redo)")
        let show = try await s.run(["show", cs, "--user", "mei"])
        #expect(show.code == 65, "\(show)")
        let edit = try await s.run(["task", "edit", "ana-eng-3", "--user", "mei", "--title", "x"])
        #expect(edit.code == 65, "\(edit)")
        let done = try await s.run(["task", "done", "ana-eng-3", "--user", "mei"])
        #expect(done.code == 65, "\(done)")
        let rm = try await s.run(["task", "rm", "ana-eng-3", "--user", "mei"])
        #expect(rm.code == 65, "\(rm)")
        #expect(try SQL.int(s.db, "SELECT count(*) FROM tasks WHERE id = 'ana-eng-3'") == 1)
    }
}
