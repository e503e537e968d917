import Foundation
import ReplanTestSupport
import Testing

@testable import ReplanCLI

/// Issue 28, items 4, 5, 6 and 13: secrets pasted into the configuration file are never
/// echoed, a file another user may have written is refused, a key file's bytes are the key
/// and nothing else, and `config show` checks exactly what `run` checks.
@Suite struct ConfigurationTrustTests {
    static let key = "sk-proj-AbCdEf0123456789GhIjKlMnOpQrStUv"

    static func config(_ s: Sandbox, _ text: String, mode: Int = 0o644) throws -> String {
        let path = try s.write("replan.conf", text)
        _ = chmod(path, mode_t(mode))
        return path
    }

    @Test func aKeyPastedIntoTheFileIsNeverPrintedBack() async throws {
        let s = try Sandbox()
        for text in [
            "model = gpt-5.1\n\(Self.key)\n", "api_key = \(Self.key)\n", "OPENAI_API_KEY=\(Self.key)\n",
            "model = \(Self.key)\n", "api_key_file = \(Self.key)\n", "\(Self.key) = x\n",
        ] {
            let path = try Self.config(s, text)
            for command in [["config", "show"], ["run", "--no-model"], ["config", "show", "--json"]] {
                let r = try await s.run(command + ["--config", path])
                #expect(r.code == 65, "\(text): \(r)")
                #expect(!r.stdout.contains("sk-proj") && !r.stderr.contains("sk-proj"), "\(text): \(r)")
                #expect(r.stderr.contains("\(path):"), "names the file and line: \(r)")
            }
        }
        let r = try await s.run(["config", "show", "--config", try Self.config(s, "api_key = \(Self.key)\n")])
        #expect(r.stderr.contains("api_key_file") && r.stderr.contains("0600"), "says what to do instead: \(r)")
        // A key-looking value from the environment is not shown by config show either.
        let env = try await s.run(["config", "show"], environment: ["REPLAN_MODEL": Self.key])
        #expect(env.code == 0 && !env.stdout.contains("sk-proj"), "\(env)")
    }

    @Test func aConfigurationFileWritableByOthersOrOwnedByAnotherUserIsRefused() async throws {
        let s = try Sandbox()
        let path = try Self.config(s, "model = gpt-5.1\n", mode: 0o666)
        let open = try await s.run(["config", "show", "--config", path])
        #expect(open.code == 65 && open.stderr.contains("writable by every user"), "\(open)")
        _ = chmod(path, 0o644)
        #expect(try await s.run(["config", "show", "--config", path]).code == 0)
        if geteuid() == 0 {
            _ = chown(path, 4242, 4242)
            let foreign = try await s.run(["config", "show", "--config", path])
            #expect(foreign.code == 65 && foreign.stderr.contains("another user (uid 4242)"), "\(foreign)")
        }
    }

    @Test func aByteOrderMarkIsDroppedAndOtherBytesThatAreNoKeyAreRefused() throws {
        let bom = Data([0xEF, 0xBB, 0xBF]) + Data("sk-abc123\n".utf8)
        #expect(try KeySource.key(from: bom, path: "k", label: "test").key == "sk-abc123")
        for bad in [
            Data([0x73, 0x6B, 0xFF, 0xFE]), Data("sk-\u{00A0}abc".utf8), Data("ｓｋ-abc".utf8), Data("sk abc".utf8),
        ] {
            #expect(throws: CLIError.self) { try KeySource.key(from: bad, path: "k", label: "test") }
        }
        do { _ = try KeySource.key(from: Data([0x73, 0x6B, 0xFF]), path: "k", label: "test") } catch {
            #expect(error.message.contains("not UTF-8") && error.code == .usage, "\(error.message)")
        }
    }

    @Test func anUnreadableKeyFileNamesTheSystemsReason() async throws {
        let s = try Sandbox()
        try await s.ok(["user", "add", "mei", "--time-zone", "Asia/Taipei"])
        let r = try await s.run(["run", "--api-key-file", s.directory])
        #expect(r.code == 64 && r.stderr.contains("Is a directory"), "\(r)")
        let missing = try await s.run(["run", "--api-key-file", s.path("nope")])
        #expect(missing.code == 64 && missing.stderr.contains("No such file or directory"), "\(missing)")
    }

    @Test func configShowRefusesWhatRunRefuses() async throws {
        let s = try Sandbox()
        try await s.ok(["user", "add", "mei", "--time-zone", "Asia/Taipei"])
        for (text, code) in [
            ("retention_days = forever\n", Int32(65)), ("price_input = 20000\n", 65),
            ("prompts = \(s.directory)\n", 64),
        ] {
            let path = try Self.config(s, text)
            let show = try await s.run(["config", "show", "--config", path])
            let run = try await s.run(["run", "--no-model", "--config", path])
            #expect(show.code == code && run.code == code, "\(text): show \(show)\nrun \(run)")
        }
    }

    @Test func anEmptyOpenAIKeyVariableIsUnsetForConfigShowAndRunAlike() async throws {
        let s = try Sandbox()
        let keyFile = try s.write("key", "")
        _ = chmod(keyFile, 0o600)
        let path = try Self.config(s, "api_key_file = \(keyFile)\n")
        let show = try await s.run(["config", "show", "--json", "--config", path], environment: ["OPENAI_API_KEY": ""])
        let model = try show.json()["model"] as? [String: Any]
        #expect(model?["state"] as? String == "off", "\(show)")
        let text = (model?["text"] as? String) ?? ""
        #expect(text.contains("\(keyFile) (\(path):1: api_key_file) is empty"), "\(show)")
    }
}
