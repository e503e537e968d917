import Foundation
import ReplanTestSupport
import Testing

/// What changes on a terminal (docs/commands.md §2): colour only on a TTY and never with `NO_COLOR`, the
/// stats bar chart, the progress bar on stderr, and the undo question. util-linux `script`
/// gives the binary a real pseudo-terminal.
@Suite struct TerminalTests {
    static let script = "/usr/bin/script"

    /// Runs `replan ARGS…` with a terminal as stdin, stdout and stderr (merged, CRLF line ends).
    static func onTerminal(
        _ s: Sandbox, _ arguments: [String], environment: [String: String?] = [:],
        input: String = ""
    ) async throws -> Outcome {
        func quote(_ word: String) -> String { "'" + word.replacingOccurrences(of: "'", with: #"'\''"#) + "'" }
        let command = ([Binary.path] + arguments).map(quote).joined(separator: " ")
        var env = s.environment
        for (k, v) in environment { env[k] = v }
        let process = try RunningProcess(
            arguments: ["-qec", command, "/dev/null"], environment: env, directory: s.directory,
            outputPrefix: s.path(".tty-\(UUID().uuidString)"), stdin: s.write("tty-input-\(UUID().uuidString)", input),
            executable: script)
        var outcome = await process.wait()
        outcome.stdout = outcome.stdout.replacingOccurrences(of: "\r\n", with: "\n")
        return outcome
    }

    @Test(
        .enabled(
            if: FileManager.default.isExecutableFile(atPath: "/usr/bin/script"),
            "needs util-linux script for a terminal"))
    func colourOnlyOnATerminalAndNeverWithNO_COLOR() async throws {
        let s = try await NightlyJobTests.seeded(Documents.everyKindOfEdit)
        let list = ["task", "list", "--user", "mei", "--from", "2025-01-06", "--to", "2025-01-08"]
        let coloured = try await Self.onTerminal(s, list, environment: ["NO_COLOR": nil])
        #expect(coloured.code == 0, "\(coloured)")
        #expect(
            coloured.stdout.contains("\u{1B}[1m2025-01-06 Mon\u{1B}[0m"),
            "bold day headers on a terminal: \(coloured.stdout)")
        let plain = try await Self.onTerminal(s, list, environment: ["NO_COLOR": "1"])
        #expect(
            plain.code == 0 && plain.stdout.contains("2025-01-06 Mon") && !plain.stdout.contains("\u{1B}["), "\(plain)")
        let piped = try await s.run(list, environment: ["NO_COLOR": nil])
        #expect(!piped.stdout.contains("\u{1B}["), "no colour into a pipe")

        let stats = try await Self.onTerminal(s, ["stats", "--user", "mei"], environment: ["NO_COLOR": nil])
        #expect(stats.stdout.contains("█"), "a bar chart on a terminal: \(stats.stdout)")
    }

    @Test(
        .enabled(
            if: FileManager.default.isExecutableFile(atPath: "/usr/bin/script"),
            "needs util-linux script for a terminal"))
    func onATerminalRunDrawsProgressAndUndoAsks() async throws {
        let s = try await NightlyJobTests.seeded(Documents.everyKindOfEdit)
        let run = try await Self.onTerminal(s, ["run", "--no-model", "--user", "mei"])
        #expect(run.code == 0, "\(run)")
        #expect(
            run.stdout.contains("1/1 users") && run.stdout.contains("\u{1B}[2K"),
            "a progress bar redrawn in place: \(run.stdout)")
        let cs = try SQL.value(s.db, "SELECT id FROM changesets WHERE origin = 'nightly'")

        let no = try await Self.onTerminal(s, ["undo", cs], input: "n\n")
        #expect(no.code == 0 && no.stdout.contains("[y/N]") && no.stdout.contains("nothing done"), "\(no)")
        #expect(try SQL.value(s.db, "SELECT state FROM changesets WHERE id = '\(cs)'") == "applied")

        let yes = try await Self.onTerminal(s, ["undo", cs], input: "y\n")
        #expect(yes.code == 0 && yes.stdout.contains("undid \(cs)"), "\(yes)")
        #expect(try SQL.value(s.db, "SELECT state FROM changesets WHERE id = '\(cs)'") == "undone")
    }
}
