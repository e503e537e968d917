import Foundation
import ReplanTestSupport
import Testing

@testable import ReplanCLI

/// One configuration for the service and the operator (issue 17): `/etc/replan/replan.conf`
/// or `--config` / `$REPLAN_CONFIG`, overridden by the environment, then by flags.
@Suite struct ConfigurationTests {
    // MARK: the file's syntax

    @Test func keyValueLinesCommentsBlanksAndQuotes() throws {
        let entries = try ConfigurationFile.parse(
            """
            # the service's database
            database = /var/lib/replan/replan.db

              model=gpt-5.1-mini\r
            reasoning_effort =
            prompts = "/opt/replan prompts "
            """)
        #expect(entries["database"] == .init(value: "/var/lib/replan/replan.db", line: 2))
        #expect(entries["model"] == .init(value: "gpt-5.1-mini", line: 4))
        #expect(entries["reasoning_effort"] == .init(value: "", line: 5))
        #expect(entries["prompts"]?.value == "/opt/replan prompts ")
    }

    @Test func anUnknownKeyIsAnErrorWithTheLineAndTheNearestKey() {
        #expect(throws: ConfigurationFile.ParseError.self) {
            try ConfigurationFile.parse("model = x\ndatabse = /x.db\n")
        }
        do { _ = try ConfigurationFile.parse("model = x\ndatabse = /x.db\n") } catch {
            #expect(error.line == 2)
            #expect(
                error.message.contains("unknown key 'databse'") && error.message.contains("did you mean 'database'"),
                "\(error.message)")
        }
    }

    @Test func aRepeatedKeyOrALineWithoutEqualsIsAnError() {
        do {
            _ = try ConfigurationFile.parse("model = a\nmodel = b\n")
            Issue.record("accepted a repeated key")
        } catch {
            #expect(error == .init(line: 2, message: "'model' is already set on line 1"))
        }
        do {
            _ = try ConfigurationFile.parse("\n\ndatabase /x.db\n")
            Issue.record("accepted a line without '='")
        } catch {
            #expect(error.line == 3 && error.message.contains("key = value"), "\(error)")
        }
    }

    // MARK: precedence, end to end

    @Test func theFileSetsTheDatabaseAboveStateDirectoryAndBelowEnvironmentAndFlag() async throws {
        let s = try Sandbox()
        let conf = s.path("replan.conf")
        let fromFile = s.path("file.db")
        let env = s.path("env.db")
        let flag = s.path("flag.db")
        let state = s.path("state")
        try FileManager.default.createDirectory(atPath: state, withIntermediateDirectories: true)
        try s.write("replan.conf", "# test\ndatabase = \(fromFile)\n")

        // What the service does (STATE_DIRECTORY set) and what the operator does (no
        // STATE_DIRECTORY, another HOME): both reach the file's database.
        try await s.ok(
            ["user", "add", "a", "--time-zone", "UTC"],
            environment: ["REPLAN_DB": nil, "REPLAN_CONFIG": conf, "STATE_DIRECTORY": state])
        try await s.ok(
            ["user", "add", "b", "--time-zone", "UTC"],
            environment: ["REPLAN_DB": nil, "REPLAN_CONFIG": conf, "HOME": s.path("elsewhere")])
        try await s.ok(["user", "add", "c", "--time-zone", "UTC", "--config", conf], environment: ["REPLAN_DB": env])
        try await s.ok(
            ["user", "add", "d", "--time-zone", "UTC", "--config", conf, "--db", flag], environment: ["REPLAN_DB": env])
        #expect(try SQL.userIDs(fromFile) == ["'a'", "'b'"])
        #expect(try SQL.userIDs(env) == ["'c'"])
        #expect(try SQL.userIDs(flag) == ["'d'"])
        #expect(!FileManager.default.fileExists(atPath: state + "/replan.db"))
    }

    /// A PostgreSQL URI is shown by engine, host, port, database and user; its password never.
    @Test func configShowNamesAPostgreSQLServerWithoutThePassword() async throws {
        let s = try Sandbox()
        let url = "postgresql://night:correct-horse@db.example:6543/replan?sslmode=require"
        let text = try await s.ok(["config", "show", "--db", url], environment: ["REPLAN_DB": nil])
        #expect(text.contains("PostgreSQL db.example:6543/replan as night"), "\(text)")
        #expect(!text.contains("correct-horse"), "\(text)")
        let json = try await s.ok(["config", "show", "--json"], environment: ["REPLAN_DB": url])
        #expect(json.contains("db.example:6543/replan as night"), "\(json)")
        #expect(!json.contains("correct-horse"), "\(json)")
    }

    @Test func configShowNamesTheFileTheDatabaseAndEachSource() async throws {
        let s = try Sandbox()
        let conf = try s.write(
            "replan.conf", "database = \(s.path("file.db"))\nmodel = local-model\nconcurrency = 4\nprice_input = 1.25\n"
        )
        let text = try await s.ok(
            ["config", "show", "--config", conf], environment: ["REPLAN_DB": nil, "REPLAN_MODEL": "env-model"])
        #expect(text.contains("configuration file: \(conf)"), "\(text)")
        #expect(text.contains("database") && text.contains("\(s.path("file.db"))  (\(conf):1)"), "\(text)")
        #expect(text.contains("env-model  ($REPLAN_MODEL)"), "the environment beats the file: \(text)")
        #expect(text.contains("concurrency") && text.contains("4  (\(conf):3)"), "\(text)")
        #expect(text.contains("price_input") && text.contains("1.25  (\(conf):4)"), "\(text)")
        #expect(text.contains("base_url") && text.contains("https://api.openai.com/v1  (default)"), "\(text)")
        #expect(!FileManager.default.fileExists(atPath: s.path("file.db")), "config show opens no database")

        let json = try await s.json(["config", "show", "--json", "--config", conf])
        #expect(json["schema"] as? String == "replan.config/1")
        #expect(json["configFile"] as? String == conf)
        let settings = try #require(json["settings"] as? [String: [String: Any]])
        #expect(settings["database"]?["source"] as? String == "$REPLAN_DB", "the sandbox's REPLAN_DB beats the file")
        #expect(settings["model"]?["value"] as? String == "local-model")

        // Without --config or $REPLAN_CONFIG: the installed file, or says there is none.
        let none = try await s.ok(["config", "show"], environment: ["REPLAN_CONFIG": nil])
        let installed = FileManager.default.fileExists(atPath: "/etc/replan/replan.conf")
        #expect(
            none.contains(
                installed
                    ? "configuration file: /etc/replan/replan.conf"
                    : "configuration file: none (/etc/replan/replan.conf does not exist)"), "\(none)")
    }

    @Test func aBadValueInTheFileExits65NamingFileAndLine() async throws {
        let s = try Sandbox()
        try await s.ok(["user", "add", "mei", "--time-zone", "UTC"])
        for (line, wrong) in [
            ("concurrency = 0", "concurrency"), ("run_after = 25:00", "run_after"),
            ("base_url = localhost:8080", "base URL"), ("on_model_error = retry", "on_model_error"),
            ("price_output = cheap", "price_output"),
        ] {
            let conf = try s.write("bad.conf", "# bad\n\(line)\n")
            for args in [["run", "--no-model"], ["config", "show"]] {
                let r = try await s.run(args + ["--config", conf])
                #expect(r.code == 65, "\(line) \(args): \(r)")
                #expect(r.stderr.contains("\(conf):2"), "\(line): names file and line: \(r)")
                #expect(r.stderr.contains(wrong) || r.stderr.contains("must"), "\(line): \(r)")
            }
        }
        // A flag overrides a bad file value (the flag is what runs).
        let conf = try s.write("bad.conf", "concurrency = 0\n")
        try await s.ok(["run", "--no-model", "--config", conf, "--concurrency", "2"])
    }

    @Test func aMissingOrBrokenFileStopsEveryCommand() async throws {
        let s = try Sandbox()
        let missing = try await s.run(["user", "list", "--config", s.path("nope.conf")])
        #expect(
            missing.code == 64 && missing.stderr.contains("nope.conf") && missing.stderr.contains("does not exist"),
            "\(missing)")
        let viaEnv = try await s.run(["user", "list"], environment: ["REPLAN_CONFIG": s.path("nope.conf")])
        #expect(viaEnv.code == 64 && viaEnv.stderr.contains("REPLAN_CONFIG"), "\(viaEnv)")
        let typo = try s.write("typo.conf", "modle = x\n")
        let r = try await s.run(["user", "list", "--config", typo])
        #expect(r.code == 65 && r.stderr.contains("typo.conf:1") && r.stderr.contains("did you mean 'model'"), "\(r)")
        let relative = try s.write("relative.conf", "database = replan.db\n")
        let rel = try await s.run(["user", "list", "--config", relative], environment: ["REPLAN_DB": nil])
        #expect(rel.code == 65 && rel.stderr.contains("absolute path"), "\(rel)")
        #expect(!FileManager.default.fileExists(atPath: s.db), "nothing was opened or created")
    }
}
