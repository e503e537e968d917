import Foundation
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// The built `replan` binary (`scripts/test` runs `swift build --build-tests` first, so it is
/// there): `.build/debug/replan` of this checkout, or `$REPLAN_BINARY` when set.
package enum Binary {
    package static let path: String =
        ProcessInfo.processInfo.environment["REPLAN_BINARY"] ?? TestFiles.path(".build/debug/replan")

    /// The `sqlite3` command-line shell, used to inspect databases independently of replan's
    /// own store code.
    package static let sqlite3: String = {
        for dir in (ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin").split(separator: ":") {
            let candidate = "\(dir)/sqlite3"
            if FileManager.default.isExecutableFile(atPath: candidate) { return candidate }
        }
        return "/usr/bin/sqlite3"
    }()
}

/// How a subprocess ended, with everything it wrote.
package struct Outcome: CustomStringConvertible {
    /// The exit status, or the signal number when `signaled`.
    package var code: Int32
    package var signaled: Bool
    package var stdout: String
    package var stderr: String

    package init(code: Int32, signaled: Bool, stdout: String, stderr: String) {
        (self.code, self.signaled, self.stdout, self.stderr) = (code, signaled, stdout, stderr)
    }

    package var description: String {
        "\(signaled ? "signal" : "exit") \(code)\nstdout:\n\(stdout.prefix(4000))\nstderr:\n\(stderr.prefix(4000))"
    }

    /// stdout parsed as a JSON object.
    package func json() throws -> [String: Any] {
        guard let object = try JSONSerialization.jsonObject(with: Data(stdout.utf8)) as? [String: Any] else {
            throw TestFailure("stdout is not a JSON object:\n\(stdout.prefix(2000))")
        }
        return object
    }
}

extension Outcome {
    /// Runs a program other than replan (a shell, python3) to its end and collects its output.
    package static func of(
        _ executable: String, _ arguments: [String], environment: [String: String]? = nil,
        directory: String? = nil
    ) throws -> Outcome {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: executable)
        p.arguments = arguments
        if let environment { p.environment = environment }
        if let directory { p.currentDirectoryURL = URL(fileURLWithPath: directory) }
        let out = Pipe()
        let err = Pipe()
        p.standardOutput = out
        p.standardError = err
        p.standardInput = FileHandle.nullDevice
        try p.run()
        // Read before waiting so a large output cannot fill the pipe and stall the program.
        let o = out.fileHandleForReading.readDataToEndOfFile()
        let e = err.fileHandleForReading.readDataToEndOfFile()
        p.waitUntilExit()
        return Outcome(
            code: p.terminationStatus, signaled: false, stdout: String(decoding: o, as: UTF8.self),
            stderr: String(decoding: e, as: UTF8.self))
    }
}

package struct TestFailure: Error, CustomStringConvertible {
    package var description: String
    package init(_ description: String) { self.description = description }
}

/// A started `replan` process whose output goes to files in the sandbox (no pipe can fill up
/// and block it), for tests that signal it while it runs.
package final class RunningProcess: @unchecked Sendable {
    package let process: Process
    package let stdoutPath: String
    package let stderrPath: String
    private let ended = DispatchSemaphore(value: 0)
    private let clock = NSLock()
    private var startedAt = Date()
    private var endedAt: Date?

    package init(
        arguments: [String], environment: [String: String], directory: String, outputPrefix: String,
        stdin: String? = nil, executable: String = Binary.path
    ) throws {
        guard FileManager.default.isExecutableFile(atPath: executable) else {
            throw TestFailure("\(executable) is missing: build it first (scripts/test runs swift build --build-tests)")
        }
        stdoutPath = outputPrefix + ".out"
        stderrPath = outputPrefix + ".err"
        _ = FileManager.default.createFile(atPath: stdoutPath, contents: nil)
        _ = FileManager.default.createFile(atPath: stderrPath, contents: nil)
        process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        process.environment = environment
        if environment["JOURNAL_STREAM"] == "stderr" {
            // As under systemd: JOURNAL_STREAM names the device and inode of stderr.
            var st = stat()
            guard stat(stderrPath, &st) == 0 else { throw TestFailure("cannot stat \(stderrPath)") }
            process.environment?["JOURNAL_STREAM"] = "\(st.st_dev):\(st.st_ino)"
        }
        process.currentDirectoryURL = URL(fileURLWithPath: directory)
        let input = try stdin.map { try FileHandle(forReadingFrom: URL(fileURLWithPath: $0)) }
        let output = try FileHandle(forWritingTo: URL(fileURLWithPath: stdoutPath))
        let errors = try FileHandle(forWritingTo: URL(fileURLWithPath: stderrPath))
        process.standardInput = input ?? FileHandle.nullDevice
        process.standardOutput = output
        process.standardError = errors
        let ended = self.ended
        process.terminationHandler = { [weak self] _ in
            if let self { self.clock.withLock { self.endedAt = Date() } }
            ended.signal()
        }
        clock.withLock { startedAt = Date() }
        // The child has its own copies: close ours at once. Left to the Process object, they
        // stayed open for the whole test run (hundreds of them), and past about 1,300 open
        // descriptors Foundation's Process.run() on Linux can crash reading /proc/self/fd
        // (swift-corelibs-foundation #5472: readdir's d_name copied whole past its buffer).
        defer { for handle in [input, output, errors] { try? handle?.close() } }
        try process.run()
    }

    /// Seconds from start to exit, measured outside the (possibly busy) test pool; nil while running.
    package var elapsed: Double? { clock.withLock { endedAt.map { $0.timeIntervalSince(startedAt) } } }

    /// Sends `sig` `seconds` after the process was started (timed on a thread of its own).
    package func signal(_ sig: Int32, atSeconds seconds: Double) async {
        let start = clock.withLock { startedAt }
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            Thread.detachNewThread { [self] in
                let wait = seconds - Date().timeIntervalSince(start)
                if wait > 0 { usleep(UInt32(wait * 1_000_000)) }
                if process.isRunning { kill(process.processIdentifier, sig) }
                continuation.resume()
            }
        }
    }

    package var pid: Int32 { process.processIdentifier }

    package func signal(_ sig: Int32) { kill(process.processIdentifier, sig) }

    /// Sends `sig` as soon as stderr contains `text` (polled every millisecond on a thread of
    /// its own, so a busy test pool cannot delay it). Returns whether the text appeared while
    /// the process was still running.
    package func signal(_ sig: Int32, whenStderrContains text: String, timeout: Double = 30) async -> Bool {
        await withCheckedContinuation { continuation in
            Thread.detachNewThread { [self] in
                let deadline = Date().addingTimeInterval(timeout)
                while Date() < deadline && process.isRunning {
                    if stderrSoFar.contains(text) {
                        kill(process.processIdentifier, sig)
                        continuation.resume(returning: true)
                        return
                    }
                    usleep(1000)
                }
                continuation.resume(returning: false)
            }
        }
    }

    /// What the process has written to stderr so far.
    package var stderrSoFar: String { (try? String(contentsOfFile: stderrPath, encoding: .utf8)) ?? "" }

    /// Waits for the end (killing the process after `timeout` seconds, which fails the test).
    package func wait(timeout: Double = 60) async -> Outcome {
        await withCheckedContinuation { continuation in
            DispatchQueue.global().async { [self] in
                continuation.resume(returning: waitBlocking(timeout: timeout))
            }
        }
    }

    /// `wait(timeout:)` for synchronous callers: blocks the calling thread until the end.
    package func waitBlocking(timeout: Double = 60) -> Outcome {
        if ended.wait(timeout: .now() + timeout) != .success {
            kill(process.processIdentifier, SIGKILL)
            ended.wait()
            Issue.record("replan \(process.arguments ?? []) did not finish within \(timeout) s and was killed")
        }
        // Let a second waiter through too.
        ended.signal()
        let signaled = process.terminationReason == .uncaughtSignal
        return Outcome(
            code: process.terminationStatus, signaled: signaled,
            stdout: (try? String(contentsOfFile: stdoutPath, encoding: .utf8)) ?? "",
            stderr: (try? String(contentsOfFile: stderrPath, encoding: .utf8)) ?? "")
    }
}

/// A private temporary directory with its own database, home and clock, removed at the end.
/// Every test makes its own, so tests can run in parallel.
package final class Sandbox: @unchecked Sendable {
    /// The default instant: Tuesday 2025-01-07 03:00 in Taipei (worked example 2's run).
    package static let tuesdayNight = "2025-01-07T03:00:00+08:00"

    package let directory: String
    /// The database used by `run` unless a test passes `--db` itself.
    package let db: String
    /// The environment every command gets: nothing of the developer's own (no real home,
    /// database, configuration file, API key or colour), plus `REPLAN_DB` and `REPLAN_NOW`.
    package var environment: [String: String]
    private var counter = 0
    private let lock = NSLock()

    package init(now: String? = Sandbox.tuesdayNight) throws {
        directory =
            FileManager.default.temporaryDirectory.appendingPathComponent("replan-e2e-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        try FileManager.default.createDirectory(atPath: directory + "/home", withIntermediateDirectories: true)
        db = directory + "/replan.db"
        environment = [
            "PATH": ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin",
            "HOME": directory + "/home",
            "NO_COLOR": "1",
            "LANG": "C.UTF-8",
            "REPLAN_DB": db,
            // Nothing of an installed /etc/replan/replan.conf applies to a test.
            "REPLAN_CONFIG": "/dev/null",
        ]
        if let now { environment["REPLAN_NOW"] = now }
    }

    deinit { try? FileManager.default.removeItem(atPath: directory) }

    package func path(_ name: String) -> String { directory + "/" + name }

    private func nextOutputPrefix() -> String {
        lock.withLock {
            counter += 1
            return path(".out-\(counter)")
        }
    }

    /// Starts `replan ARGS…` without waiting.
    /// - Parameters:
    ///   - environment: changes to the sandbox's environment (nil removes a variable).
    ///   - stdin: a file to read standard input from (default: /dev/null, never a terminal).
    package func start(
        _ arguments: [String], environment extra: [String: String?] = [:], directory: String? = nil,
        stdin: String? = nil
    ) throws -> RunningProcess {
        var env = environment
        for (k, v) in extra { env[k] = v }
        return try RunningProcess(
            arguments: arguments, environment: env, directory: directory ?? self.directory,
            outputPrefix: nextOutputPrefix(), stdin: stdin)
    }

    /// Runs `replan ARGS…` to its end.
    @discardableResult
    package func run(
        _ arguments: [String], environment extra: [String: String?] = [:], directory: String? = nil,
        stdin: String? = nil, timeout: Double = 60
    ) async throws -> Outcome {
        try await start(arguments, environment: extra, directory: directory, stdin: stdin).wait(timeout: timeout)
    }

    /// Runs a command that must succeed, and returns its stdout.
    @discardableResult
    package func ok(
        _ arguments: [String], environment extra: [String: String?] = [:],
        sourceLocation: SourceLocation = #_sourceLocation
    ) async throws -> String {
        let outcome = try await run(arguments, environment: extra)
        #expect(
            outcome.code == 0 && !outcome.signaled, "replan \(arguments.joined(separator: " ")): \(outcome)",
            sourceLocation: sourceLocation)
        return outcome.stdout
    }

    /// Adds a one-off task with `replan task add`, which must succeed.
    package func addTask(
        _ id: String, _ title: String, _ start: String, _ end: String, category: String, user: String = "mei",
        sourceLocation: SourceLocation = #_sourceLocation
    ) async throws {
        try await ok(
            [
                "task", "add", "--user", user, "--id", id, "--title", title, "--category", category, "--start", start,
                "--end", end,
            ], sourceLocation: sourceLocation)
    }

    /// Runs a command with `--json` output that must succeed, and parses it.
    package func json(_ arguments: [String], sourceLocation: SourceLocation = #_sourceLocation) async throws -> [String:
        Any]
    {
        let outcome = try await run(arguments)
        guard outcome.code == 0, !outcome.signaled else {
            throw TestFailure("replan \(arguments.joined(separator: " ")): \(outcome)")
        }
        return try outcome.json()
    }

    /// Writes a file into the sandbox and returns its path.
    @discardableResult
    package func write(_ name: String, _ text: String) throws -> String {
        let p = path(name)
        try text.write(toFile: p, atomically: true, encoding: .utf8)
        return p
    }

    /// Writes a JSON value into the sandbox and returns its path.
    @discardableResult
    package func writeJSON(_ name: String, _ value: Any) throws -> String {
        let data = try JSONSerialization.data(withJSONObject: value, options: [.sortedKeys])
        let p = path(name)
        try data.write(to: URL(fileURLWithPath: p))
        return p
    }

    /// Copies a database file (the process that wrote it has exited, so there is no -wal).
    package func copyDatabase(_ from: String, to name: String) throws -> String {
        let to = path(name)
        try FileManager.default.copyItem(atPath: from, toPath: to)
        for suffix in ["-wal", "-shm"] where FileManager.default.fileExists(atPath: from + suffix) {
            try FileManager.default.copyItem(atPath: from + suffix, toPath: to + suffix)
        }
        return to
    }
}

// MARK: - Looking into a database with the sqlite3 shell

/// Reads databases with the `sqlite3` shell, so what the tests see does not depend on replan's
/// own store code. The shell opens read-write (but only reads) so that, as the last connection,
/// it removes the -wal/-shm files on close like replan does; a read-only connection leaves them.
package enum SQL {
    /// The tables that record what happened rather than what the plan is, and `statistics`
    /// with its `statistics_base`, which are derived from the plan (recounted by the nightly
    /// job and after undo/redo, so after an undo they hold the true counts, not the stale ones
    /// from before the run).
    package static let bookkeeping: Set<String> = [
        "runs", "user_runs", "transcripts", "changesets", "changeset_edits",
        "notification_outbox", "schema_migrations", "statistics", "statistics_base", "version_clock",
    ]

    /// Rows of a query, each row's columns separated by `|` (NULL as `NULL`, text quoted).
    package static func rows(_ db: String, _ sql: String) throws -> [String] {
        let output = try shell(db, ["-cmd", ".mode quote", "-cmd", ".separator |", db, sql])
        return output.split(separator: "\n", omittingEmptySubsequences: true).map(String.init)
    }

    /// The single value of a one-row, one-column query (unquoted).
    package static func value(_ db: String, _ sql: String) throws -> String {
        let output = try shell(db, ["-list", db, sql])
        return output.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// Runs a statement that changes the database (to plant what replan itself never writes).
    package static func execute(_ db: String, _ sql: String) throws {
        _ = try shell(db, [db, sql])
    }

    package static func int(_ db: String, _ sql: String) throws -> Int {
        let text = try value(db, sql)
        guard let n = Int(text) else { throw TestFailure("\(sql) gave '\(text)', not a number") }
        return n
    }

    /// Every table's rows, in a fixed order, except the bookkeeping tables (and the named
    /// columns): the plan as a student sees it, for "row for row" comparisons.
    /// - Parameter ignoringVersions: leave out the `version` columns: their values come from
    ///   one database-wide counter, so two databases that committed the same students in a
    ///   different order hold the same rows with different versions.
    package static func planDump(_ db: String, excluding: Set<String> = bookkeeping, ignoringVersions: Bool = false)
        throws
        -> [String: [String]]
    {
        let tables = try rows(
            db, "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' ORDER BY name"
        )
        .map { $0.trimmingCharacters(in: CharacterSet(charactersIn: "'")) }
        .filter { !excluding.contains($0) }
        var dump: [String: [String]] = [:]
        for table in tables {
            let names = try rows(db, "SELECT name FROM pragma_table_info('\(table)') ORDER BY cid")
                .map { $0.trimmingCharacters(in: CharacterSet(charactersIn: "'")) }
                .filter { !(ignoringVersions && $0 == "version") }
            let columns = names.map { "\"\($0)\"" }.joined(separator: ", ")
            let order = (1...names.count).map(String.init).joined(separator: ", ")
            dump[table] = try rows(db, "SELECT \(columns) FROM \"\(table)\" ORDER BY \(order)")
        }
        return dump
    }

    private static func shell(_ db: String, _ arguments: [String]) throws -> String {
        guard FileManager.default.isExecutableFile(atPath: Binary.sqlite3) else {
            throw TestFailure(
                "the end-to-end tests read databases with the sqlite3 shell; install it (apt-get install sqlite3)")
        }
        let outcome = try Outcome.of(Binary.sqlite3, arguments)
        guard outcome.code == 0 else {
            throw TestFailure("sqlite3 \(arguments.joined(separator: " ")) failed: \(outcome.stderr)")
        }
        return outcome.stdout
    }
}

/// Compares two plan dumps and records one issue per differing table.
package func expectSamePlan(
    _ a: [String: [String]], _ b: [String: [String]], _ what: String,
    sourceLocation: SourceLocation = #_sourceLocation
) {
    #expect(a.keys.sorted() == b.keys.sorted(), "\(what): different tables", sourceLocation: sourceLocation)
    for table in a.keys.sorted() where a[table] != b[table] {
        let left = Set(a[table] ?? [])
        let right = Set(b[table] ?? [])
        Issue.record(
            "\(what): table \(table) differs\n only before: \(left.subtracting(right).sorted().prefix(10))\n only after: \(right.subtracting(left).sorted().prefix(10))",
            sourceLocation: sourceLocation)
    }
}

// MARK: - JSON access

extension Dictionary where Key == String, Value == Any {
    package func object(_ key: String) -> [String: Any]? { self[key] as? [String: Any] }
    package func array(_ key: String) -> [[String: Any]] { self[key] as? [[String: Any]] ?? [] }
    package func string(_ key: String) -> String? { self[key] as? String }
    package func int(_ key: String) -> Int? { (self[key] as? NSNumber)?.intValue }
    package func bool(_ key: String) -> Bool? { (self[key] as? NSNumber)?.boolValue }
    package func isNull(_ key: String) -> Bool { self[key] is NSNull }
}
