import Foundation
import ReplanTestSupport
import Testing

@testable import ReplanCLI

/// Settings resolved once into `ReplanSettings` (issue 27): every command that reads them
/// reports a bad value with the same message, every setting flag a command declares reaches
/// the resolution, and word-valued options reject a word when the line is parsed.
@Suite struct SettingsResolutionTests {
    /// A bad value in the configuration file is the same error, with the same message, from
    /// every command that reads the settings: `config show` checks exactly what the night does.
    @Test func aBadFileValueIsTheSameErrorForEveryCommandThatReadsSettings() async throws {
        let s = try Sandbox()
        try await s.ok(["user", "add", "mei", "--time-zone", "Asia/Taipei"])
        let cases: [(String, String)] = [
            ("concurrency = 0\n", "concurrency must be a whole number from 1 to 256, got '0'"),
            ("run_after = 25:00\n", "run_after '25:00' is not HH:MM"),
            ("on_model_error = later\n", "on_model_error must be local or skip, got 'later'"),
            ("price_output = -1\n", "price_output must be a number of USD per million tokens"),
            ("retention_days = forever\n", "retention_days must be a whole number from 0 to 36500, got 'forever'"),
            ("metrics_file = run.prom\n", "metrics_file must be an absolute path ending in .prom"),
        ]
        for (line, message) in cases {
            let conf = try s.write("replan.conf", line)
            for command in [
                ["config", "show"], ["run", "--no-model"], ["preview", "--user", "mei", "--no-model"],
                ["log"], ["prune", "--dry-run"], ["undo", "--last", "--user", "mei", "--yes"],
            ] {
                let r = try await s.run(command, environment: ["REPLAN_CONFIG": conf])
                #expect(r.code == 65 && r.stderr.contains("\(conf):1: \(message)"), "\(command) \(line): \(r)")
            }
            // A monitor cannot judge a night that will not start: UNKNOWN, saying why.
            let status = try await s.run(["status"], environment: ["REPLAN_CONFIG": conf])
            #expect(status.code == 3 && status.stdout.contains(message), "\(line): \(status)")
        }
    }

    /// Every setting flag `run` declares is read: a bad value given to it is refused naming
    /// the flag (a declared flag that nothing read would be accepted silently).
    @Test func everySettingFlagRunDeclaresReachesTheSettings() async throws {
        let s = try Sandbox()
        try await s.ok(["user", "add", "mei", "--time-zone", "Asia/Taipei"])
        let run = try #require(CommandTable.all.first { $0.path == ["run"] })
        let declared = Set(run.options.map(\.name))
        // Free text settings have no bad value to give.
        let freeText: Set<String> = ["model", "reasoning_effort"]
        var checked = 0
        for spec in SettingSpec.all where !freeText.contains(spec.key) {
            guard let flag = spec.flag, declared.contains(flag),
                !GlobalOptions.specs.contains(where: { $0.name == flag })
            else { continue }
            let r = try await s.run(["run", "--no-model", flag, "-5x"])
            #expect([64, 65].contains(r.code) && r.stderr.contains(flag), "\(flag): \(r)")
            checked += 1
        }
        #expect(
            checked == 10, "base URL, timeout, token cap, concurrency, run-after, on-model-error, 3 prices, metrics")
        // The flag beats the environment, which beats the file.
        let conf = try s.write("replan.conf", "concurrency = 0\n")
        try await s.ok(["run", "--no-model", "--concurrency", "2"], environment: ["REPLAN_CONFIG": conf])
    }

    /// A word-valued option is a typed choice: its help lists the words, a bad word is refused
    /// before anything is opened, with the message and exit code it always had.
    @Test func wordValuedOptionsListTheirWordsAndKeepTheirErrors() async throws {
        let s = try Sandbox()
        let log = try await s.ok(["log", "--help"])
        #expect(log.contains("--status changed|unchanged|skipped|failed|model-error"), "\(log)")
        let cases: [([String], Int32, String)] = [
            (["export", "--user", "mei", "--format", "pdf"], 65, "--format must be json or ics, got 'pdf'"),
            (
                ["log", "--status", "odd"], 65,
                "--status must be changed, unchanged, skipped, failed or model-error, got 'odd'"
            ),
            (["import", "x.json", "--from", "xml"], 64, "--from 'xml' is not replan or firestore"),
            (["run", "--on-model-error", "later"], 64, "--on-model-error must be local or skip, got 'later'"),
            (["run", "--color", "sometimes"], 65, "--color must be auto, always or never, got 'sometimes'"),
            (
                [
                    "task", "add", "--user", "mei", "--title", "T", "--start", "2025-01-08T10:00", "--end",
                    "2025-01-08T11:00", "--category", "C", "--repeat", "yearly",
                ], 65, "--repeat 'yearly' is not daily, weekly or monthly"
            ),
        ]
        for (tokens, code, message) in cases {
            // No database exists: the word is refused before one would be opened (exit 73).
            let r = try await s.run(tokens)
            #expect(r.code == code && r.stderr.contains(message), "\(tokens): \(r)")
        }
        #expect(!FileManager.default.fileExists(atPath: s.db))
    }

    /// `--color` is the terminal's colour on every command, `task add|edit` included; a task's
    /// colour is `--task-color`, and the old spelling says so.
    @Test func colorIsTheTerminalsAndTaskColorTheTasks() async throws {
        let s = try Sandbox()
        try await s.ok(["user", "add", "mei", "--time-zone", "Asia/Taipei"])
        let base = [
            "task", "add", "--user", "mei", "--title", "Essay", "--category", "English", "--start",
            "2025-01-08T10:00", "--end", "2025-01-08T11:00",
        ]
        let old = try await s.run(base + ["--color", "red"])
        #expect(old.code == 65 && old.stderr.contains("a task's colour is --task-color red"), "\(old)")
        try await s.ok(base + ["--task-color", "red", "--color", "never", "--id", "essay"])
        #expect(try SQL.value(s.db, "SELECT color FROM tasks WHERE id = 'essay'") == "red")
    }

    /// The line is parsed once: `--json` is known from that parse, also on a line that fails,
    /// and a `--json` that is an option's value is not the flag.
    @Test func theLineIsParsedOnceAndItsFlagsAreKnownOnFailure() {
        let (code, out) = Captured.run(["run", "--bogus", "--json"], environment: ["REPLAN_CONFIG": "/dev/null"])
        #expect(code == .usage && out.stdout.contains("replan.error/1"), "\(out.stdout)")
        #expect(out.stderr.contains("unknown option --bogus"))
        let (versionCode, version) = Captured.run(["bogus", "--version"])
        #expect(versionCode == .success && version.stdout.hasPrefix("replan "))
        let (valueCode, value) = Captured.run(
            ["config", "show", "--prompts", "--json", "--db", "/nonexistent/x.db"],
            environment: ["REPLAN_CONFIG": "/dev/null", "HOME": "/nonexistent"])
        #expect(valueCode == .usage && !value.stdout.contains("replan.error/1"), "\(value.stdout)")
        let line = ParsedCommandLine(["--db", "x.db", "task", "--help"])
        #expect(line.command?.path == ["task"] && line.failure == nil && line.asksHelp)
    }
}
