import Foundation
import ReplanTestSupport
import Testing

@testable import ReplanCLI

/// The command line's basics (issue 17): --version, "did you mean", JSON errors, --color with
/// NO_COLOR and TERM=dumb, display-width columns, shell completion and the man page.
@Suite struct CLIBasicsTests {
    // MARK: --version and mistakes

    @Test func versionPrintsTheVersionAndExits0AnywhereOnTheLine() async throws {
        let s = try Sandbox()
        for args in [["--version"], ["run", "--version"], ["--db", s.path("x.db"), "--version"]] {
            let r = try await s.run(args)
            #expect(r.code == 0 && r.stdout == "replan \(ReplanVersion.current)\n", "\(args): \(r)")
        }
        #expect(!FileManager.default.fileExists(atPath: s.path("x.db")), "--version opens nothing")
    }

    @Test func aMistypedCommandSubcommandOrOptionGetsADidYouMean() async throws {
        let s = try Sandbox()
        for (args, hint) in [
            (["rnu"], "did you mean 'run'?"), (["user", "ad", "x"], "did you mean 'user add'?"),
            (["run", "--no-modle"], "did you mean --no-model?"), (["lgo", "--json"], "did you mean 'log'?"),
        ] {
            let r = try await s.run(args)
            #expect(r.code == 64 && r.stderr.contains(hint), "\(args): \(r)")
        }
        let far = try await s.run(["frobnicate"])
        #expect(far.code == 64 && !far.stderr.contains("did you mean"), "nothing near: \(far)")
        #expect(Suggestion.distance("rnu", "run") == 1, "a transposition is one edit")
    }

    @Test func underJSONAFailureIsAJSONDocumentOnStdoutToo() async throws {
        let s = try Sandbox()
        try await s.ok(["user", "add", "mei", "--time-zone", "UTC"])
        for (args, code, kind) in [
            (["frob", "--json"], 64, "usage"), (["stats", "--user", "nobody", "--json"], 65, "bad-input"),
            (["log", "--json", "--limit", "0"], 65, "bad-input"),
        ] {
            let r = try await s.run(args)
            #expect(r.code == Int32(code), "\(args): \(r)")
            let json = try r.json()
            #expect(json["schema"] as? String == "replan.error/1", "\(args): \(r)")
            let error = try #require(json["error"] as? [String: Any])
            #expect(error["exitCode"] as? Int == code && error["kind"] as? String == kind, "\(args): \(error)")
            #expect(
                (error["message"] as? String).map { r.stderr.contains($0) } == true, "the same message on stderr: \(r)")
        }
        let plain = try await s.run(["frob"])
        #expect(plain.stdout.isEmpty, "without --json stdout stays empty: \(plain)")
    }

    // MARK: colour

    /// `log` on a console with the given traits; whether its heading came out coloured.
    func coloured(_ args: [String], tty: Bool, noColor: Bool = false, dumb: Bool = false, db: String) -> (
        ExitCode, Bool
    ) {
        let captured = Captured()
        let console = Console(
            stdoutIsTTY: tty, stderrIsTTY: tty, stdinIsTTY: false, noColor: noColor, journal: false, dumbTerminal: dumb,
            writeOut: { captured.appendOut($0) }, writeErr: { _ in })
        let code = ReplanCommandLine.run(["log", "--db", db] + args, environment: [:], console: console)
        return (code, captured.stdout.contains("\u{1B}["))
    }

    @Test func colourFollowsTheFlagThenNO_COLORAndTERMDumbThenTheTerminal() async throws {
        let s = try Sandbox()
        let db = s.path("colour.db")
        try await s.ok(["user", "add", "mei", "--time-zone", "UTC", "--db", db])
        #expect(coloured([], tty: true, db: db) == (.success, true))
        #expect(coloured([], tty: false, db: db) == (.success, false))
        #expect(coloured([], tty: true, noColor: true, db: db) == (.success, false))
        #expect(coloured([], tty: true, dumb: true, db: db) == (.success, false))
        #expect(coloured(["--color=never"], tty: true, db: db) == (.success, false))
        #expect(coloured(["--color", "always"], tty: false, db: db) == (.success, true))
        #expect(
            coloured(["--color=always"], tty: true, noColor: true, db: db) == (.success, true),
            "the flag beats NO_COLOR")
        #expect(coloured(["--color=auto"], tty: true, dumb: true, db: db) == (.success, false))
        #expect(coloured(["--color=sometimes"], tty: true, db: db).0 == .badInput)
    }

    @Test func theStandardConsoleReadsNO_COLORAndTERM() {
        // Not terminals here, so only the redraw/colour inputs can be checked through the flags.
        let plain = Console.standard(environment: ["TERM": "dumb"])
        #expect(!plain.stderrRedraws && !plain.colorAllowed)
    }

    // MARK: columns

    @Test func displayWidthCountsWideCharactersTwiceAndMarksNotAtAll() {
        #expect(DisplayWidth.of("Math") == 4)
        #expect(DisplayWidth.of("英文") == 4)
        #expect(DisplayWidth.of("日本語のノート") == 14)
        #expect(DisplayWidth.of("한국어") == 6)
        #expect(DisplayWidth.of("e\u{301}") == 1, "e + combining acute")
        #expect(DisplayWidth.of("📚") == 2)
        #expect(DisplayWidth.of("ＡＢ") == 4, "fullwidth Latin")
        #expect(DisplayWidth.padded("英文", to: 8) == "英文    ")
        #expect(DisplayWidth.padded("a long category", to: 4) == "a long category", "never cut")
    }

    @Test func statsColumnsLineUpWithChineseCategories() async throws {
        let s = try Sandbox()
        try await s.ok(["user", "add", "mei", "--time-zone", "Asia/Taipei"])
        for (category, day) in [("英文", "06"), ("Math", "05"), ("物理實驗課程", "04")] {
            try await s.ok([
                "task", "add", "--user", "mei", "--title", "t \(category)", "--category", category,
                "--start", "2025-01-\(day)T10:00", "--end", "2025-01-\(day)T11:00",
            ])
        }
        let lines = try await s.ok(["stats", "--user", "mei"]).split(separator: "\n").map(String.init)
        #expect(lines.count == 4, "\(lines)")
        // Numbers are right-aligned in fixed columns, so equal widths mean aligned columns.
        let widths = Set(lines.dropFirst().map { DisplayWidth.of($0) })
        #expect(widths.count == 1, "every row is as wide as the others: \(lines)")
        #expect(lines[0].hasPrefix("category      sessions"), "the header is padded by display width too: \(lines[0])")
        #expect(lines[1].hasPrefix("Math  ") || lines.contains { $0.hasPrefix("英文      ") }, "\(lines)")
    }

    // MARK: completion and man page, from the command table

    static func shell(_ program: String, _ script: String) throws -> Outcome? {
        let path = ["/usr/bin/", "/bin/"].map { $0 + program }.first {
            FileManager.default.isExecutableFile(atPath: $0)
        }
        guard let path else { return nil }
        return try Outcome.of(path, ["-c", script])
    }

    @Test func bashCompletionCompletesCommandsSubcommandsOptionsAndValues() async throws {
        let s = try Sandbox()
        let script = try s.write("replan.bash", try await s.ok(["completion", "bash"]))
        let probe = """
            source \(script)
            t() { COMP_WORDS=("$@"); COMP_CWORD=$((${#COMP_WORDS[@]}-1)); COMPREPLY=(); _replan; echo "${COMPREPLY[*]}"; }
            t replan r
            t replan user ""
            t replan --db x.db task add --ti
            t replan export --format ""
            t replan run --no
            t replan --color a
            """
        let r = try #require(try Self.shell("bash", probe))
        #expect(r.code == 0 && r.stderr.isEmpty, "\(r)")
        #expect(
            r.stdout.split(separator: "\n", omittingEmptySubsequences: false).prefix(6).map(String.init)
                == ["run redo", "add list rm", "--title", "json ics", "--no-model --now", "auto always"], "\(r.stdout)")
        // Every command of the table is offered at the top level.
        let top = try #require(
            try Self.shell(
                "bash", "source \(script); COMP_WORDS=(replan ''); COMP_CWORD=1; _replan; echo \"${COMPREPLY[*]}\""))
        #expect(
            Set(top.stdout.split(whereSeparator: \.isWhitespace).map(String.init)) == Set(CommandTable.topLevelWords))
    }

    @Test func zshAndFishScriptsParse() async throws {
        let s = try Sandbox()
        let zsh = try s.write("_replan", try await s.ok(["completion", "zsh"]))
        let fish = try s.write("replan.fish", try await s.ok(["completion", "fish"]))
        if let r = try Self.shell("zsh", "autoload -U compinit && compinit -u; source \(zsh)") {
            #expect(r.code == 0 && r.stderr.isEmpty, "zsh: \(r)")
        }
        if let r = try Self.shell("fish", "source \(fish); complete -C 'replan us'; complete -C 'replan run --no-'") {
            #expect(r.code == 0 && r.stderr.isEmpty, "fish: \(r)")
            #expect(r.stdout.contains("user") && r.stdout.contains("--no-model"), "fish completes: \(r.stdout)")
        }
        let bad = try await s.run(["completion", "tcsh"])
        #expect(bad.code == 64 && bad.stderr.contains("bash, zsh or fish"), "\(bad)")
    }

    @Test func theManPageListsEveryCommandAndRendersWithoutWarnings() async throws {
        let s = try Sandbox()
        let page = try await s.ok(["man"])
        #expect(page.hasPrefix(".TH REPLAN 1"))
        for d in CommandTable.all {
            #expect(page.contains(ManPageCommand.escape("replan " + d.synopsis)), "\(d.name)")
        }
        for setting in SettingSpec.all { #expect(page.contains(ManPageCommand.escape(setting.key))) }
        let file = try s.write("replan.1", page)
        if let r = try Self.shell("sh", "command -v groff >/dev/null || exit 77; groff -man -Tutf8 -ww -z \(file)"),
            r.code != 77
        {
            #expect(r.code == 0 && r.stderr.isEmpty, "groff warnings: \(r.stderr)")
        }
    }
}
