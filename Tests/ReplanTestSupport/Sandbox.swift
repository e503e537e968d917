import Foundation

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
