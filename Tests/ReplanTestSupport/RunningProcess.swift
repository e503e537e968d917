import Foundation

#if canImport(Testing)
    import Testing
#endif

#if canImport(Glibc)
    import Glibc
#endif

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
            // Testing is there in every test build (see Expectations.swift).
            #if canImport(Testing)
                Issue.record("replan \(process.arguments ?? []) did not finish within \(timeout) s and was killed")
            #endif
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
