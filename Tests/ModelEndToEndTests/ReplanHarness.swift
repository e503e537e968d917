import Foundation
import JSON
import Planning
import ReplanTestSupport
import Testing

/// One end-to-end scene: a `Sandbox` (temporary directory, database, clean environment) with an
/// API key file and a mock model server, and the built `replan` binary run in it (nothing of
/// the test runner's own `OPENAI_API_KEY` or `REPLAN_*` leaks in).
///
/// Every stdout and stderr the binary wrote is kept, so a test can check at the end that the
/// API key appears in none of them.
final class ReplanHarness {
    /// What one invocation printed and how it exited.
    struct Output {
        var code: Int32
        var stdout: String
        var stderr: String

        /// stdout parsed as JSON.
        func json() throws -> JSONValue { try JSONValue(parsing: stdout) }
    }

    static let apiKey = "sk-e2e-Vb3nQ8zLw5Xc2Ty7Hm4J"
    /// Monday 2025-01-06, 03:30 in Taipei: past every student's 03:00 run-after.
    static let now = "2025-01-06T03:30:00+08:00"

    let sandbox: Sandbox
    let server: MockOpenAIServer
    private(set) var outputs: [Output] = []

    var directory: URL { URL(fileURLWithPath: sandbox.directory) }
    var databasePath: String { sandbox.db }
    var keyFile: String { sandbox.path("openai-api-key") }

    /// A scene whose model server plays `rules` (see `MockScript`), with `document` (replan/1
    /// JSON as a Swift value) imported.
    init(rules: [[String: Any]], document: [String: Any]) throws {
        sandbox = try Sandbox(now: nil)
        server = try MockOpenAIServer(script: MockScript.script(rules))
        sandbox.environment["OPENAI_BASE_URL"] = server.baseURL
        try sandbox.write("openai-api-key", Self.apiKey + "\n")
        let documentFile = try sandbox.write("import.json", MockScript.jsonText(document))
        let imported = try replan(["import", documentFile])
        guard imported.code == 0 else { throw TestFailure("import failed: \(imported.stderr)") }
    }

    deinit { server.stop() }

    /// Runs `replan ARGS --db <db> --now <now>` and waits for it.
    @discardableResult
    func replan(_ arguments: [String], environment extra: [String: String] = [:]) throws -> Output {
        try finish(start(arguments, environment: extra))
    }

    /// Runs `replan ARGS` and sends SIGINT once the model server has received a request (or
    /// after `seconds`, 30 at least, so that a loaded machine still reaches the request first).
    func replanInterrupted(_ arguments: [String], after seconds: Double) throws -> Output {
        let running = try start(arguments, environment: [:])
        let deadline = Date().addingTimeInterval(max(seconds, 30))
        while Date() < deadline, (try? server.requests().count) ?? 0 == 0 {
            Thread.sleep(forTimeInterval: 0.02)
        }
        Thread.sleep(forTimeInterval: 0.1)
        running.signal(SIGINT)
        return finish(running)
    }

    private func start(_ arguments: [String], environment extra: [String: String]) throws -> RunningProcess {
        try sandbox.start(arguments + ["--db", databasePath, "--now", Self.now], environment: extra)
    }

    private func finish(_ running: RunningProcess) -> Output {
        let outcome = running.waitBlocking()
        let output = Output(code: outcome.code, stdout: outcome.stdout, stderr: outcome.stderr)
        outputs.append(output)
        return output
    }

    /// `replan run` with the model: key file, short request timeout, one user at a time.
    @discardableResult
    func run(_ extra: [String] = []) throws -> Output {
        try replan(
            ["run", "--json", "--api-key-file", keyFile, "--request-timeout", "1", "--concurrency", "1"] + extra)
    }

    /// The student's occurrences (`task list --json`) from a week back to two weeks ahead.
    func occurrences(_ user: String) throws -> [JSONValue] {
        let listed = try replan([
            "task", "list", "--user", user, "--from", "2024-12-30", "--to", "2025-01-20", "--json",
        ])
        return try listed.json()["occurrences"]?.arrayValue ?? []
    }

    /// The requests the model server received whose body contains `marker`.
    func requests(containing marker: String) throws -> [MockOpenAIServer.RecordedRequest] {
        try server.requests().filter { $0.raw.contains(marker) }
    }

    /// The user runs of the newest run, by user id (`log --json`).
    func lastRunUsers() throws -> [String: JSONValue] {
        let log = try replan(["log", "--json"]).json()
        let users = log["runs"]?.arrayValue?.first?["users"]?.arrayValue ?? []
        return Dictionary(users.map { ($0["user"]?.stringValue ?? "?", $0) }, uniquingKeysWith: { a, _ in a })
    }

    /// The key appears in no file of the database, no output and no transcript; the model
    /// server saw it only in the Authorization header.
    func expectKeyNowhere(sourceLocation: SourceLocation = #_sourceLocation) throws {
        let key = Data(Self.apiKey.utf8)
        for suffix in ["", "-wal", "-shm", "-journal"] {
            if let bytes = FileManager.default.contents(atPath: databasePath + suffix) {
                #expect(bytes.range(of: key) == nil, "the key is in replan.db\(suffix)", sourceLocation: sourceLocation)
            }
        }
        for (index, output) in outputs.enumerated() {
            #expect(
                !output.stdout.contains(Self.apiKey), "the key is on stdout of invocation \(index)",
                sourceLocation: sourceLocation)
            #expect(
                !output.stderr.contains(Self.apiKey), "the key is on stderr of invocation \(index)",
                sourceLocation: sourceLocation)
        }
        for request in try server.requests() {
            #expect(!request.raw.contains(Self.apiKey), sourceLocation: sourceLocation)
            #expect(request.headers["authorization"] == "Bearer \(Self.apiKey)", sourceLocation: sourceLocation)
        }
    }
}

/// Wall-clock checks on `YYYY-MM-DDTHH:MM` strings.
enum Clock {
    static func minutes(_ text: String?) -> Int? {
        guard let text, let t = CivilDateTime(text) else { return nil }
        return t.minuteNumber
    }

    /// Whether `start ..< end` lies inside Mon–Fri 09:00–17:00 on one day.
    static func insideWindows(_ start: String?, _ end: String?) -> Bool {
        guard let start, let end, let s = CivilDateTime(start), let e = CivilDateTime(end) else { return false }
        let weekday = s.date.weekday
        return ![Weekday.sat, .sun].contains(weekday) && s.date == e.date
            && s.time.minutes >= 9 * 60 && e.time.minutes <= 17 * 60 && s < e
    }
}
