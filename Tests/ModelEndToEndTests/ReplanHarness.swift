import Foundation
import JSON
import Planning
import Testing

/// One end-to-end scene: a temporary directory with a database, an API key file and a mock
/// model server, and the built `replan` binary run against them with a clean environment
/// (nothing of the test runner's own `OPENAI_API_KEY` or `REPLAN_*` leaks in).
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

    let directory: URL
    let server: MockOpenAIServer
    private(set) var outputs: [Output] = []

    var databasePath: String { directory.appendingPathComponent("replan.db").path }
    var keyFile: String { directory.appendingPathComponent("openai-api-key").path }

    /// The repository root, from this file's place in `<root>/Tests/ModelEndToEndTests/`.
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()

    /// `.build/debug/replan`, built by `swift build --build-tests` (or `$REPLAN_BINARY`).
    static var binary: String {
        ProcessInfo.processInfo.environment["REPLAN_BINARY"] ?? root.appendingPathComponent(".build/debug/replan").path
    }

    /// A scene whose model server plays `rules` (see `MockScript`), with `document` (replan/1
    /// JSON as a Swift value) imported.
    init(rules: [[String: Any]], document: [String: Any]) throws {
        guard FileManager.default.isExecutableFile(atPath: Self.binary) else {
            throw HarnessError(description: "no replan binary at \(Self.binary); run `swift build --build-tests` first")
        }
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("replan-e2e-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        server = try MockOpenAIServer(script: MockScript.script(rules))
        try Data((Self.apiKey + "\n").utf8).write(to: URL(fileURLWithPath: keyFile))
        let documentFile = directory.appendingPathComponent("import.json")
        try Data(MockScript.jsonText(document).utf8).write(to: documentFile)
        let imported = try replan(["import", documentFile.path])
        guard imported.code == 0 else { throw HarnessError(description: "import failed: \(imported.stderr)") }
    }

    deinit {
        server.stop()
        try? FileManager.default.removeItem(at: directory)
    }

    /// Runs `replan ARGS --db <db> --now <now>` and waits for it.
    @discardableResult
    func replan(_ arguments: [String], environment extra: [String: String] = [:]) throws -> Output {
        try replan(arguments, environment: extra) { _ in }
    }

    /// Runs `replan ARGS` and sends SIGINT once the model server has received a request
    /// (or after `after` seconds at the latest).
    func replanInterrupted(_ arguments: [String], after seconds: Double) throws -> Output {
        try replan(arguments, environment: [:]) { process in
            let deadline = Date().addingTimeInterval(seconds)
            while Date() < deadline, (try? self.server.requests().count) ?? 0 == 0 {
                Thread.sleep(forTimeInterval: 0.02)
            }
            Thread.sleep(forTimeInterval: 0.1)
            process.interrupt()
        }
    }

    private func replan(
        _ arguments: [String], environment extra: [String: String],
        whileRunning: (Process) -> Void
    ) throws -> Output {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: Self.binary)
        process.arguments = arguments + ["--db", databasePath, "--now", Self.now]
        var environment = [
            "PATH": ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin",
            "HOME": directory.path, "NO_COLOR": "1", "LANG": "C.UTF-8",
            "OPENAI_BASE_URL": server.baseURL,
            // Nothing of an installed /etc/replan/replan.conf applies to a test.
            "REPLAN_CONFIG": "/dev/null",
        ]
        environment.merge(extra) { $1 }
        process.environment = environment
        let stdoutFile = directory.appendingPathComponent("stdout-\(outputs.count)")
        let stderrFile = directory.appendingPathComponent("stderr-\(outputs.count)")
        try Data().write(to: stdoutFile)
        try Data().write(to: stderrFile)
        if environment["JOURNAL_STREAM"] == "stderr" {
            // As under systemd: JOURNAL_STREAM names the device and inode of stderr.
            var st = stat()
            guard stat(stderrFile.path, &st) == 0 else {
                throw HarnessError(description: "cannot stat \(stderrFile.path)")
            }
            environment["JOURNAL_STREAM"] = "\(st.st_dev):\(st.st_ino)"
            process.environment = environment
        }
        let out = try FileHandle(forWritingTo: stdoutFile)
        let err = try FileHandle(forWritingTo: stderrFile)
        process.standardOutput = out
        process.standardError = err
        process.standardInput = FileHandle.nullDevice
        try process.run()
        whileRunning(process)
        process.waitUntilExit()
        try out.close()
        try err.close()
        let output = Output(
            code: process.terminationStatus,
            stdout: try String(contentsOf: stdoutFile, encoding: .utf8),
            stderr: try String(contentsOf: stderrFile, encoding: .utf8))
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

    struct HarnessError: Error, CustomStringConvertible {
        var description: String
    }
}

/// Small builders for replan/1 documents.
enum Document {
    static func user(_ id: String, instruction: String = "", tasks: [[String: Any]]) -> [String: Any] {
        [
            "id": id, "timeZone": "Asia/Taipei", "language": "en",
            "settings": [
                "instruction": instruction,
                "windows": [
                    "mon": ["09:00-17:00"], "tue": ["09:00-17:00"], "wed": ["09:00-17:00"],
                    "thu": ["09:00-17:00"], "fri": ["09:00-17:00"],
                ],
            ],
            "tasks": tasks,
        ]
    }

    static func task(
        _ id: String, _ title: String, _ start: String, _ end: String, category: String? = nil,
        completed: Bool = false
    ) -> [String: Any] {
        [
            "id": id, "title": title, "category": category ?? title, "color": "green", "start": start, "end": end,
            "allDay": false, "completed": completed,
        ]
    }

    static func users(_ users: [[String: Any]]) -> [String: Any] {
        ["format": "replan/1", "users": users]
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
