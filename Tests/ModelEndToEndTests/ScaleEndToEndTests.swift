import Foundation
import Planning
import ReplanTestSupport
import Testing

/// Nightly runs at scale, end to end (issue: nightly runs at scale): the whole run backs off
/// on rate limits, and memory stays flat while students stream.
@Suite struct ScaleEndToEndTests {
    /// `count` students, each with a missed five-day English course (so each night changes
    /// them) and an instruction (so the model is asked).
    static func students(_ count: Int, instruction: String = "") -> [String: Any] {
        Documents.document(
            (0..<count).map { i in
                Documents.user(
                    "s\(i)", instruction: instruction,
                    tasks: (0..<5).map { d in
                        let day = String(format: "%02d", 3 + d) // Fri 01-03 … Tue 01-07; now is Mon 01-06 03:30
                        return Documents.task(
                            "s\(i)-eng-\(d)", "English reading", "2025-01-\(day)T10:00", "2025-01-\(day)T11:00",
                            category: "English")
                    })
            })
    }

    @Test func rateLimitsToEveryoneStillFinishEveryUserWithBoundedRequests() throws {
        let users = 12
        let limited = 6
        let slowDown = MockScript.error(
            status: 429, code: "rate_limit_exceeded", message: "Rate limit reached",
            type: "requests", headers: ["retry-after-ms": "200"])
        let end = MockScript.end("Nothing else to change.")
        let scene = try ReplanHarness(
            rules: [MockScript.rule(nil, Array(repeating: slowDown, count: limited) + [end], repeat: true)],
            document: Self.students(users, instruction: "keep my plan tidy"))
        let started = Date()
        let run = try scene.replan([
            "run", "--json", "--api-key-file", scene.keyFile, "--request-timeout", "2", "--concurrency", "4",
        ])
        let elapsed = Date().timeIntervalSince(started)
        #expect(run.code == 0, "\(run.stderr)")
        let json = try run.json()
        #expect(json["counts"]?["changed"] == .int(users))
        #expect(json["counts"]?["failed"] == 0)
        // Every 429 was answered by a pause, not by another student's request; so exactly the
        // scripted 429s plus one successful request per student reached the server.
        #expect(try scene.server.requests().count == users + limited)
        #expect(elapsed >= 0.2)
        try scene.expectKeyNowhere()
    }

    @Test func memoryStaysFlatWhileStudentsStream() throws {
        func peakMiB(students: Int) throws -> Int {
            let scene = try ReplanHarness(rules: [], document: Self.students(students))
            let run = try scene.replan(["run", "--no-model", "--concurrency", "4"])
            #expect(run.code == 0, "\(run.stderr)")
            #expect(run.stderr.contains("\(students) due, \(students) changed"), "\(run.stderr)")
            let match = try #require(run.stderr.firstMatch(of: /peak RSS (\d+) MiB/), "\(run.stderr)")
            return Int(match.1)!
        }
        let small = try peakMiB(students: 200)
        let large = try peakMiB(students: 2000)
        // Ten times the students, about the same memory: users are streamed, never all loaded.
        #expect(large < small + 40, "peak RSS \(small) MiB for 200 students, \(large) MiB for 2000")
        #expect(large < 200)
    }
}
