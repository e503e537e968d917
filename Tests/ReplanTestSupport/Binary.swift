import Foundation

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
