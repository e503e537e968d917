import Foundation
import ReplanTestSupport
import Testing

/// How much `run` writes to the journal (issue 26): a line per changed student drowned it
/// (4,970 lines for 5,000 students). By default one line per run plus one per failed or
/// model-error student; `--verbose` a line per student; `--quiet` nothing but errors.
@Suite struct JournalVolumeTests {
    /// 1,000 students with a missed session each; s7's plan cannot be read (a broken row), so
    /// that student fails.
    static func night() async throws -> Sandbox {
        let s = try Sandbox()
        let users = (0..<1000).map { i -> [String: Any] in
            [
                "id": "s\(i)", "timeZone": "Asia/Taipei",
                "tasks": [
                    [
                        "id": "s\(i)-m", "title": "Math", "category": "Math", "start": "2025-01-06T10:00",
                        "end": "2025-01-06T11:00",
                    ]
                ],
            ]
        }
        try await s.ok(["import", try s.writeJSON("users.json", ["format": "replan/1", "users": users])])
        try SQL.execute(s.db, "UPDATE tasks SET subtasks = 'not json' WHERE id = 's7-m'")
        return s
    }

    static func lines(_ text: String) -> [Substring] { text.split(separator: "\n") }

    @Test func byDefaultOneLinePerRunAndOnePerFailedStudent() async throws {
        let s = try await Self.night()
        let r = try await s.run(["run", "--no-model"], timeout: 300)
        #expect(r.code == 1, "\(r.stderr.prefix(2000))")
        #expect(r.stdout.isEmpty, "\(r.stdout.prefix(2000))")
        let err = Self.lines(r.stderr)
        #expect(err.count == 2, "\(err.prefix(10))")
        #expect(err.first?.hasPrefix("s7 2025-01-07: failed") == true, "\(err)")
        #expect(err.last?.hasPrefix("run 1: 1000 due, 999 changed") == true, "\(err)")
    }

    @Test func verboseAddsALinePerStudentAndQuietKeepsOnlyErrors() async throws {
        let s = try await Self.night()
        let verbose = try await s.run(["run", "--no-model", "--verbose"], timeout: 300)
        #expect(Self.lines(verbose.stdout).count == 999, "\(verbose.stdout.prefix(500))")
        // Off a terminal --verbose also prints a progress line every five seconds (how many
        // depends on the machine's speed, so they are not counted).
        let logged = Self.lines(verbose.stderr).filter { !$0.hasPrefix("progress: ") }
        #expect(logged.count == 2, "\(verbose.stderr.prefix(2000))")
        let quiet = try await s.run(["run", "--no-model", "--quiet", "--force"], timeout: 300)
        #expect(quiet.code == 1 && quiet.stdout.isEmpty, "\(quiet)")
        // The failed student is an error; the closing line is a warning (one of 1,000 failed).
        #expect(Self.lines(quiet.stderr).map { $0.prefix(14) } == ["s7 2025-01-07:"], "\(quiet.stderr.prefix(2000))")
        let both = try await s.run(["run", "--quiet", "--verbose"])
        #expect(both.code == 64, "\(both)")
    }
}
