import Foundation
import ReplanTestSupport
import Testing

@testable import ReplanCLI

/// `log`, `show`, `undo` and `redo` around a nightly changeset (docs/commands.md, docs/data-format.md §2.9 "Nothing is
/// written outside a changeset").
@Suite struct UndoRedoTests {
    /// A sandbox after importing `everyKindOfEdit` and running the night: (sandbox, plan
    /// before the run, nightly changeset id).
    static func afterOneNight() async throws -> (Sandbox, [String: [String]], String) {
        let s = try await NightlyJobTests.seeded(Documents.everyKindOfEdit)
        let before = try SQL.planDump(s.db)
        let run = try await s.json(["run", "--no-model", "--json", "--user", "mei"])
        let cs = try #require(run.array("users").first?.string("changesetId"))
        return (s, before, cs)
    }

    @Test func runLogShowUndoRedoUndoRestoresTheDatabaseRowForRow() async throws {
        let (s, before, cs) = try await Self.afterOneNight()
        let afterRun = try SQL.planDump(s.db)
        #expect(afterRun != before)
        #expect(afterRun["series_slides"]?.count == 0, "the version-2 rules write no slides")

        // log: newest first, the run with its user and changeset.
        let log = try await s.json(["log", "--json"])
        #expect(log.string("schema") == "replan.log/1")
        let entry = try #require(log.array("runs").first?.array("users").first)
        #expect(
            entry.string("user") == "mei" && entry.string("planDate") == "2025-01-07"
                && entry.string("status") == "changed")
        #expect(entry.string("changesetId") == cs && entry.int("turns") == 0 && entry.isNull("error"))
        for key in ["id", "startedAt", "finishedAt", "users"] {
            #expect(log.array("runs").first?[key] != nil, "log runs carry \(key)")
        }
        #expect(try await s.ok(["log", "--user", "mei"]).contains(cs))

        // show: the changeset and its edits, as the run reported them.
        let show = try await s.json(["show", cs, "--json"])
        let header = try #require(show.object("changeset"))
        #expect(
            header.string("id") == cs && header.string("user") == "mei" && header.string("planDate") == "2025-01-07")
        #expect(
            header.string("state") == "applied" && header.string("origin") == "nightly"
                && header.string("createdAt") != nil)
        #expect(Set(show.array("edits").compactMap { $0.string("op") }) == ["move", "delete", "skip"])
        #expect(show.object("summary")?.int("dropped") == 2 && show["model"] != nil)
        let showText = try await s.ok(["show", cs])
        #expect(showText.contains("Old reading") && showText.contains("undo with: replan undo \(cs)"))
        let transcript = try await s.json(["show", cs, "--json", "--transcript"])
        #expect(transcript["transcript"] != nil)

        let undo = try await s.ok(["undo", cs, "--yes"])
        #expect(undo.contains("replan redo \(cs)"), "\(undo)")
        expectSamePlan(before, try SQL.planDump(s.db), "after undo")
        #expect(try await s.json(["show", cs, "--json"]).object("changeset")?.string("state") == "undone")

        try await s.ok(["redo", cs, "--yes"])
        expectSamePlan(afterRun, try SQL.planDump(s.db), "after redo")

        try await s.ok(["undo", cs, "--yes"])
        expectSamePlan(before, try SQL.planDump(s.db), "after the second undo")
        #expect(try SQL.value(s.db, "PRAGMA integrity_check") == "ok")
        #expect(try SQL.value(s.db, "PRAGMA foreign_key_check") == "")
    }

    @Test func undoIsRefusedWhenTheStudentEditedATouchedTaskAndForceWins() async throws {
        let (s, before, cs) = try await Self.afterOneNight()
        try await s.ok(["task", "edit", "mei-eng-3", "--title", "English reading, chapter 3"])
        let edited = try SQL.planDump(s.db)

        let refused = try await s.run(["undo", cs, "--yes"])
        #expect(refused.code == 2, "\(refused)")
        #expect(
            refused.stderr.contains("mei-eng-3") && refused.stderr.contains("--force"),
            "the conflicts are listed: \(refused.stderr)")
        #expect(!refused.stderr.contains("mei-eng-2"), "only the changed row is a conflict: \(refused.stderr)")
        expectSamePlan(edited, try SQL.planDump(s.db), "after the refused undo")
        #expect(try SQL.value(s.db, "SELECT state FROM changesets WHERE id = '\(cs)'") == "applied")

        let forced = try await s.run(["undo", cs, "--yes", "--force"])
        #expect(forced.code == 0, "\(forced)")
        #expect(forced.stdout.contains("overwritten"), "\(forced.stdout)")
        #expect(
            try SQL.rows(s.db, "SELECT title, start FROM tasks WHERE id = 'mei-eng-3'") == [
                "'English reading'|'2025-01-08T10:00'"
            ])
        // Apart from the forced row's version, everything is as before the night.
        let after = try SQL.planDump(s.db)
        for table in after.keys where table != "tasks" { #expect(after[table] == before[table], "\(table)") }
        #expect(
            after["tasks"]?.filter { !$0.hasPrefix("'mei-eng-3'") }
                == before["tasks"]?.filter { !$0.hasPrefix("'mei-eng-3'") })
    }

    @Test func redoIsRefusedWhenARestoredRowChangedSince() async throws {
        let (s, _, cs) = try await Self.afterOneNight()
        try await s.ok(["undo", cs, "--yes"])
        try await s.ok(["task", "done", "mei-eng-1"])
        let refused = try await s.run(["redo", cs, "--yes"])
        #expect(refused.code == 2 && refused.stderr.contains("mei-eng-1"), "\(refused)")
        #expect(try SQL.value(s.db, "SELECT completed FROM tasks WHERE id = 'mei-eng-1'") == "1")
        try await s.ok(["redo", cs, "--yes", "--force"])
        #expect(try SQL.value(s.db, "SELECT state FROM changesets WHERE id = '\(cs)'") == "applied")
    }

    @Test func undoTwiceIsRefusedAndRedoOfAnAppliedChangesetToo() async throws {
        let (s, before, cs) = try await Self.afterOneNight()
        try await s.ok(["undo", cs, "--yes"])
        let twice = try await s.run(["undo", cs, "--yes"])
        #expect(twice.code != 0 && twice.code != 2, "not a conflict, but refused: \(twice)")
        #expect(twice.code == 65 && twice.stderr.contains("already undone"), "\(twice)")
        let forced = try await s.run(["undo", cs, "--yes", "--force"])
        #expect(forced.code == 65, "--force does not undo twice: \(forced)")
        expectSamePlan(before, try SQL.planDump(s.db), "after the refused second undo")

        try await s.ok(["redo", cs, "--yes"])
        let redoTwice = try await s.run(["redo", cs, "--yes"])
        #expect(redoTwice.code == 65, "\(redoTwice)")
        let unknown = try await s.run(["undo", "cs-20250101-000000-nosuch", "--yes"])
        #expect(unknown.code == 65 && unknown.stderr.contains("cs-20250101-000000-nosuch"), "\(unknown)")
    }

    @Test func undoWithoutYesAndNoTerminalExits64AndChangesNothing() async throws {
        let (s, _, cs) = try await Self.afterOneNight()
        let afterRun = try SQL.planDump(s.db)
        for args in [["undo", cs], ["undo", "--user", "mei", "--last"], ["redo", cs]] {
            let r = try await s.run(args)
            #expect(r.code == 64 && r.stderr.contains("--yes"), "\(args): \(r)")
        }
        expectSamePlan(afterRun, try SQL.planDump(s.db), "after the unconfirmed undo")
        #expect(try SQL.value(s.db, "SELECT state FROM changesets WHERE id = '\(cs)'") == "applied")
    }

    @Test func undoUserLastRevertsTheUsersNewestAppliedChangeset() async throws {
        let (s, before, cs) = try await Self.afterOneNight()
        // bob's later changeset is not mei's last.
        try await s.ok(["run", "--no-model", "--user", "bob"])
        let out = try await s.ok(["undo", "--user", "mei", "--last", "--yes"])
        #expect(out.contains(cs), "\(out)")
        expectSamePlan(
            before.filter { $0.key != "tasks" }, try SQL.planDump(s.db).filter { $0.key != "tasks" }, "mei's rows")
        #expect(
            try SQL.rows(s.db, "SELECT * FROM tasks WHERE user_id = 'mei' ORDER BY id")
                == before["tasks"]?.filter { $0.contains("'mei'") })
        #expect(
            try SQL.value(s.db, "SELECT state FROM changesets WHERE user_id = 'bob' AND origin = 'nightly'")
                == "applied")

        let nobody = try await s.run(["undo", "--user", "carl", "--last", "--yes"])
        #expect(nobody.code == 65, "\(nobody)")
        let missingUser = try await s.run(["undo", "--last", "--yes"])
        #expect(missingUser.code == 64, "\(missingUser)")
    }

    // MARK: in-process: the confirmation question on a terminal

    static func terminal(answer: String?, captured: Captured) -> Console {
        Console(
            stdoutIsTTY: true, stderrIsTTY: true, stdinIsTTY: true, noColor: true, journal: false,
            writeOut: { captured.appendOut($0) }, writeErr: { captured.appendErr($0) }, readLine: { answer })
    }

    @Test func onATerminalUndoAsksAndOnlyYesUndoes() async throws {
        let (s, before, cs) = try await Self.afterOneNight()
        let afterRun = try SQL.planDump(s.db)
        let env = s.environment
        for answer in ["n", "", nil, "whatever"] as [String?] {
            let captured = Captured()
            let code = ReplanCommandLine.run(
                ["undo", cs], environment: env, console: Self.terminal(answer: answer, captured: captured))
            #expect(code == .success)
            #expect(
                captured.stdout.contains("nothing done") && captured.stderr.contains("[y/N]"),
                "\(answer ?? "EOF"): \(captured.stdout)")
            #expect(captured.stdout.contains("Old reading"), "the edits are shown before the question")
        }
        expectSamePlan(afterRun, try SQL.planDump(s.db), "after answering no")

        let captured = Captured()
        let code = ReplanCommandLine.run(
            ["undo", cs], environment: env, console: Self.terminal(answer: "y", captured: captured))
        #expect(code == .success, "\(captured.stderr)")
        #expect(captured.stdout.contains("undid \(cs)"))
        expectSamePlan(before, try SQL.planDump(s.db), "after answering yes")
    }
}
