import Foundation

/// A running `Tests/Support/mock_openai.py`: an OpenAI-compatible server that plays a
/// script of responses and faults and records every request it receives.
///
/// Each test starts its own server on a free port and stops it when done (`stop()` is also
/// called on deinit, and the server exits by itself once this process closes its stdin).
package final class MockOpenAIServer {
    /// One request as the server saw it.
    package struct RecordedRequest {
        package var method: String
        package var path: String
        /// Header names are lowercased.
        package var headers: [String: String]
        /// The request body exactly as received.
        package var raw: String
        /// The body parsed as JSON, or nil when it is not JSON.
        package var json: Any?
    }

    /// Why the server could not be started or read.
    package struct LaunchError: Error, CustomStringConvertible {
        package var description: String
    }

    /// `http://127.0.0.1:<port>/v1`, the base URL a client under test is configured with.
    package let baseURL: String
    package let port: Int

    private let process: Process
    private let stdinPipe: Pipe
    private let directory: URL
    private let recordFile: URL

    /// Starts a server playing `script`, a JSON list of rules (see mock_openai.py).
    package init(script: String) throws {
        directory = FileManager.default.temporaryDirectory
            .appendingPathComponent("mock-openai-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let scriptFile = directory.appendingPathComponent("script.json")
        recordFile = directory.appendingPathComponent("requests.jsonl")
        try Data(script.utf8).write(to: scriptFile)
        try Data().write(to: recordFile)

        process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = [
            "python3", Self.serverScript, scriptFile.path, "--record", recordFile.path,
        ]
        stdinPipe = Pipe()
        let stdoutPipe = Pipe()
        process.standardInput = stdinPipe
        process.standardOutput = stdoutPipe
        try process.run()

        let firstLine = Self.readLine(from: stdoutPipe.fileHandleForReading)
        guard firstLine.hasPrefix("PORT "), let port = Int(firstLine.dropFirst(5)) else {
            process.terminate()
            throw LaunchError(description: "mock_openai.py did not report its port (first line: '\(firstLine)')")
        }
        self.port = port
        baseURL = "http://127.0.0.1:\(port)/v1"
    }

    deinit {
        stop()
    }

    /// Every request received so far, in arrival order. A request is recorded before it is
    /// answered, so once a client has its response the request is here.
    package func requests() throws -> [RecordedRequest] {
        let text = try String(contentsOf: recordFile, encoding: .utf8)
        return try text.split(separator: "\n").map { line in
            guard let record = try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any] else {
                throw LaunchError(description: "unreadable request record: \(line)")
            }
            return RecordedRequest(
                method: record["method"] as? String ?? "",
                path: record["path"] as? String ?? "",
                headers: record["headers"] as? [String: String] ?? [:],
                raw: record["raw"] as? String ?? "",
                json: record["body"].flatMap { $0 is NSNull ? nil : $0 }
            )
        }
    }

    /// Stops the server and removes its temporary files; safe to call more than once.
    package func stop() {
        try? stdinPipe.fileHandleForWriting.close()
        if process.isRunning {
            process.terminate()
            // Bounded, so a server that somehow ignores SIGTERM cannot hang the test run.
            let deadline = Date().addingTimeInterval(2)
            while process.isRunning && Date() < deadline {
                Thread.sleep(forTimeInterval: 0.01)
            }
            if process.isRunning {
                kill(process.processIdentifier, SIGKILL)
            }
        }
        try? FileManager.default.removeItem(at: directory)
    }

    /// `Tests/Support/mock_openai.py`.
    private static var serverScript: String { TestFiles.support("mock_openai.py") }

    private static func readLine(from handle: FileHandle) -> String {
        var bytes = Data()
        while true {
            let byte = handle.readData(ofLength: 1)
            if byte.isEmpty || byte == Data("\n".utf8) { break }
            bytes.append(byte)
        }
        return String(decoding: bytes, as: UTF8.self)
    }
}
