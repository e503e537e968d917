import Foundation
import ReplanCLI
import ReplanTestSupport
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
        let s = try await NightlyJobTests.seeded(
            Documents.document([Documents.englishWeek(), Documents.englishWeek(user: "ana")]))
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

    // MARK: 5. another application's database, a mistyped --db

    @Test func anotherApplicationsDatabaseIsRefusedWithExit73AndLeftUntouched() async throws {
        let s = try Sandbox()
        let foreign = s.path("other.db")
        try SQL.execute(foreign, "CREATE TABLE users (name TEXT); INSERT INTO users VALUES ('someone else');")
        try #expect(SQL.value(foreign, "PRAGMA journal_mode") == "delete")
        let bytes = try Data(contentsOf: URL(fileURLWithPath: foreign))
        chmod(foreign, 0o644)
        for command in [
            ["log"], ["user", "list"], ["user", "add", "mei", "--time-zone", "UTC"], ["run", "--no-model"],
            ["import", try s.writeJSON("d.json", Documents.document([Documents.englishWeek()]))],
        ] {
            let o = try await s.run(["--db", foreign] + command)
            #expect(o.code == 73, "\(command): \(o)")
            #expect(o.stderr.contains("another application"), "\(command): \(o.stderr)")
        }
        #expect(try Data(contentsOf: URL(fileURLWithPath: foreign)) == bytes, "not a byte changed")
        #expect(try SQL.value(foreign, "PRAGMA journal_mode") == "delete", "no switch to WAL")
        #expect(mode(foreign) == 0o644, "not even its mode")
    }

    @Test func readOnlyCommandsNeverCreateADatabaseAndSayWhereTheyLooked() async throws {
        let s = try await Self.seeded()
        let cs = try SQL.value(s.db, "SELECT id FROM changesets LIMIT 1")
        #expect(!cs.isEmpty, "the seeded student has a changeset")
        let missing = s.path("typo/replan.db")
        for command in [
            ["log"], ["show", cs], ["stats", "--user", "mei"], ["user", "list"], ["task", "list", "--user", "mei"],
            ["export", "--user", "mei"],
        ] {
            let o = try await s.run(["--db", missing] + command)
            #expect(o.code == 73, "\(command): \(o)")
            #expect(o.stderr.contains(missing) && o.stderr.contains("--db"), "\(command): \(o.stderr)")
        }
        #expect(!FileManager.default.fileExists(atPath: s.path("typo")), "no directory created")
        let viaEnvironment = try await s.run(["log"], environment: ["REPLAN_DB": s.path("nothing.db")])
        #expect(viaEnvironment.code == 73 && viaEnvironment.stderr.contains("REPLAN_DB"), "\(viaEnvironment)")
        #expect(!FileManager.default.fileExists(atPath: s.path("nothing.db")))
    }

    // MARK: 6. every file replan creates is 0600

    /// Runs the binary under `umask 000`, the worst case.
    static func underOpenUmask(_ s: Sandbox, _ arguments: [String]) async throws -> Outcome {
        let process = try RunningProcess(
            arguments: ["-c", "umask 000; exec \"$0\" \"$@\"", Binary.path] + arguments,
            environment: s.environment, directory: s.directory,
            outputPrefix: s.path(".umask-\(UUID().uuidString)"), executable: "/bin/sh")
        return await process.wait()
    }

    @Test func theDatabaseAndItsSidecarsAre0600UnderAnyUmaskAndSpelling() async throws {
        let s = try Sandbox()
        // Plain path.
        #expect(
            try await Self.underOpenUmask(s, ["--db", s.path("plain.db"), "user", "add", "mei", "--time-zone", "UTC"])
                .code == 0)
        #expect(try await Self.underOpenUmask(s, ["--db", s.path("plain.db"), "run", "--no-model"]).code == 0)
        for suffix in ["", "-wal", "-shm"] where FileManager.default.fileExists(atPath: s.path("plain.db") + suffix) {
            #expect(mode(s.path("plain.db") + suffix) == 0o600, "plain.db\(suffix)")
        }
        // A `file:` name is a file of that name, not a URI naming another file.
        let uri = try await Self.underOpenUmask(s, ["--db", "file:uri.db", "user", "add", "mei", "--time-zone", "UTC"])
        #expect(uri.code == 0, "\(uri)")
        #expect(mode(s.path("file:uri.db")) == 0o600)
        #expect(!FileManager.default.fileExists(atPath: s.path("uri.db")), "SQLite did not read the name as a URI")
        // A dangling symlink: its target is created, 0600.
        try FileManager.default.createSymbolicLink(atPath: s.path("link.db"), withDestinationPath: s.path("target.db"))
        let linked = try await Self.underOpenUmask(
            s, ["--db", s.path("link.db"), "user", "add", "mei", "--time-zone", "UTC"])
        #expect(linked.code == 0, "\(linked)")
        #expect(mode(s.path("target.db")) == 0o600)
        for suffix in ["-wal", "-shm"] where FileManager.default.fileExists(atPath: s.path("target.db") + suffix) {
            #expect(mode(s.path("target.db") + suffix) == 0o600, "target.db\(suffix)")
        }
    }

    // MARK: 9. the lock is the file, not its name

    @Test func aRunThroughASymlinkMeetsTheRunningOnesLock() async throws {
        let s = try await Self.seeded()
        try FileManager.default.createSymbolicLink(atPath: s.path("alias.db"), withDestinationPath: s.db)
        let fd = open(s.db, O_RDONLY | O_CLOEXEC)
        try #require(fd >= 0)
        #expect(flock(fd, LOCK_EX | LOCK_NB) == 0)
        let second = try await s.run(["--db", s.path("alias.db"), "run", "--no-model"])
        #expect(second.code == 75, "\(second)")
        flock(fd, LOCK_UN)
        close(fd)
        // A lock file an older replan left as another user, unreadable here, is no obstacle.
        #expect(
            FileManager.default.createFile(
                atPath: s.db + ".lock", contents: nil, attributes: [.posixPermissions: 0o000]))
        let run = try await s.run(["run", "--no-model"])
        #expect(run.code == 0, "\(run)")
    }

    // MARK: 8. a closed stdout or stderr

    /// Runs the binary with stdout and stderr on a pipe nobody reads (`replan run | head`
    /// after head exited).
    static func withClosedOutput(_ s: Sandbox, _ arguments: [String]) throws -> Process {
        var fds: [Int32] = [0, 0]
        try #require(pipe(&fds) == 0)
        close(fds[0])
        let writeEnd = FileHandle(fileDescriptor: fds[1], closeOnDealloc: true)
        let process = Process()
        process.executableURL = URL(fileURLWithPath: Binary.path)
        process.arguments = arguments
        process.environment = s.environment
        process.currentDirectoryURL = URL(fileURLWithPath: s.directory)
        process.standardInput = FileHandle.nullDevice
        process.standardOutput = writeEnd
        process.standardError = writeEnd
        try process.run()
        process.waitUntilExit()
        return process
    }

    @Test func aRunWhoseOutputNobodyReadsCommitsEveryStudentAndExits0() async throws {
        let s = try await NightlyJobTests.seeded(
            Documents.document([Documents.englishWeek(), Documents.englishWeek(user: "ana")]))
        let run = try Self.withClosedOutput(s, ["run", "--no-model", "--json"])
        #expect(
            run.terminationReason == .exit && run.terminationStatus == 0,
            "\(run.terminationReason) \(run.terminationStatus)")
        #expect(try SQL.int(s.db, "SELECT count(*) FROM user_runs WHERE status = 'changed'") == 2)
        #expect(try SQL.int(s.db, "SELECT count(*) FROM changesets WHERE origin = 'nightly'") == 2)
        // The text output too.
        let text = try Self.withClosedOutput(s, ["log"])
        #expect(text.terminationReason == .exit && text.terminationStatus == 0)
    }

    // MARK: 3. a series edit says which sessions it changes

    @Test func editingASeriesWithHistoryNeedsFromOrAllOffATerminal() async throws {
        let s = try await NightlyJobTests.seeded(Documents.rich)
        let ask = try await s.run(["task", "edit", "eng-1", "--title", "English listening"])
        #expect(ask.code == 64 && ask.stderr.contains("--from") && ask.stderr.contains("--all"), "\(ask)")
        #expect(try SQL.value(s.db, "SELECT title FROM tasks WHERE id = 'eng-1'") == "English reading")

        // This and following: the completed session of 01-06 keeps its title.
        let from = try await s.run(["task", "edit", "eng-1", "--title", "English listening", "--from", "2025-01-07"])
        #expect(from.code == 0, "\(from)")
        #expect(
            try SQL.rows(s.db, "SELECT title, repeat_until FROM tasks WHERE id = 'eng-1'") == [
                "'English reading'|'2025-01-06'"
            ])
        let list = try await s.json([
            "task", "list", "--user", "mei", "--from", "2025-01-06", "--to", "2025-01-08", "--json",
        ])
        let titles = list.array("occurrences").filter { ($0.string("taskId") ?? "") != "essay" }
            .map { "\($0.string("start") ?? "") \($0.string("title") ?? "") \($0.string("state") ?? "")" }
        #expect(titles.contains("2025-01-06T10:00 English reading completed"), "\(titles)")
        #expect(titles.contains("2025-01-07T10:00 English listening open"), "\(titles)")
        #expect(
            titles.contains("2025-01-08T15:00 English listening open"),
            "the moved session moved with the series: \(titles)")

        // --all is the student's explicit choice to change every session.
        try await s.ok(["task", "edit", "quiz", "--title", "Quiz"]) // a one-off needs neither
        let bad = try await s.run(["task", "edit", "quiz", "--all", "--title", "Quiz"])
        #expect(bad.code == 64, "\(bad)")
        let all = try await s.run(["task", "edit", "eng-1", "--category", "Languages", "--all"])
        #expect(all.code == 0, "\(all)")
        #expect(try SQL.value(s.db, "SELECT category FROM tasks WHERE id = 'eng-1'") == "Languages")
    }

    // MARK: smaller items

    @Test func theAPIKeyFileGivesItsFirstLineRefusesControlCharactersAndWarnsWhenOthersMayReadIt() async throws {
        let s = try await Self.seeded()
        let model = ["--base-url", "http://127.0.0.1:9/v1", "--student-deadline", "0"]
        let twoLines = try s.write("key", "sk-first-line\nX-Injected: yes\n")
        chmod(twoLines, 0o644)
        let warned = try await s.run(["preview", "--user", "mei", "--api-key-file", twoLines] + model)
        #expect(warned.code == 0, "\(warned)")
        #expect(
            warned.stderr.contains("only the first line") && warned.stderr.contains("readable by group or others"),
            "\(warned.stderr)")
        #expect(
            !warned.stderr.contains("sk-first-line") && !warned.stdout.contains("sk-first-line"),
            "the key is never printed")
        let control = try s.write("key2", "sk-a\u{1B}[2Jb\n")
        chmod(control, 0o600)
        let refused = try await s.run(["preview", "--user", "mei", "--api-key-file", control] + model)
        #expect(refused.code == 64 && refused.stderr.contains("control characters"), "\(refused)")
        #expect(!refused.stderr.contains("sk-a"))
    }

    @Test func controlCharactersAreRefusedOnImportAndEscapedOnOutput() async throws {
        let s = try await Self.seeded()
        let bad = try await s.run([
            "import",
            s.writeJSON(
                "bad.json",
                Documents.document([
                    [
                        "id": "mei", "timeZone": "Asia/Taipei",
                        "tasks": [
                            [
                                "id": "x", "title": "Evil \u{1B}]0;owned\u{07} title", "category": "C",
                                "start": "2025-01-08T10:00", "end": "2025-01-08T11:00",
                            ]
                        ],
                    ]
                ])),
        ])
        #expect(
            bad.code == 65 && bad.stderr.contains("users[0].tasks[0].title")
                && bad.stderr.contains("control character"), "\(bad)")
        // A title stored before the rule is shown escaped, on stdout and in the journal's lines.
        try SQL.execute(s.db, "UPDATE tasks SET title = 'Evil ' || char(27) || '[2J title' WHERE id = 'mei-eng-3'")
        let list = try await s.run(["task", "list", "--user", "mei"])
        #expect(
            list.code == 0 && !list.stdout.contains("\u{1B}") && list.stdout.contains("Evil \\u{1B}[2J title"),
            "\(list)")
        let json = try await s.json(["task", "list", "--user", "mei", "--json"])
        #expect(
            json.array("occurrences").contains { $0.string("title") == "Evil \u{1B}[2J title" },
            "JSON keeps the text, escaped by JSON")
    }

    /// Issue 28, item 7: a newline in a title forged a line of its own, on the terminal and
    /// (with a `<N>` priority) in the journal.
    @Test func aNewlineInATitleNeverStartsALineOfItsOwn() async throws {
        let s = try await Self.seeded()
        let forged = "<0>replan: run 99: 0 due, forged"
        try SQL.execute(
            s.db, "UPDATE tasks SET title = 'Evil' || char(10) || '\(forged)' || char(13) WHERE id = 'mei-eng-3'")
        let list = try await s.run(["task", "list", "--user", "mei"])
        #expect(list.code == 0, "\(list)")
        let lines = list.stdout.split(separator: "\n").map(String.init)
        #expect(!lines.contains { $0.hasPrefix("<0>") }, "\(list.stdout)")
        #expect(lines.contains { $0.contains("Evil\\u{A}\(forged)\\u{D}") }, "\(list.stdout)")
        let week = try await s.run(["week", "--user", "mei", "--date", "2025-01-08"])
        #expect(!week.stdout.split(separator: "\n").contains { $0.hasPrefix("<0>") }, "\(week)")
        let captured = Shared<[String]>([])
        let console = Console(
            stdoutIsTTY: false, stderrIsTTY: false, stdinIsTTY: false, noColor: true, journal: true,
            writeOut: { _ in }, writeErr: { text in captured.update { $0.append(text) } })
        console.log("mei: failed — model: the model server answered HTTP 400: bad\n\(forged)\r\n", priority: .warning)
        let written = captured.value.joined()
        #expect(written.split(separator: "\n").count == 1 && written.hasPrefix("<4>"), "\(written)")
        #expect(written.contains("bad\\u{A}<0>replan"))
    }
}
