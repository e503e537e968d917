import Assistant
import Foundation
import HTTP
import Nightly
import Planning
import ReplanTestSupport
import Store
import Testing

/// Issue 13, item 10: the model stage has a deadline per run and per student; past it the
/// students get their local edits only, and the run says so. (Deadlines of 0 have passed
/// before anything starts, so nothing here depends on timing.)
@Suite struct ModelDeadlineTests {
    static let prompts = TestFiles.prompts

    /// A reviewer whose server would never answer usefully (nothing listens on port 9).
    static func reviewer(_ deadline: ModelDeadline, shutoff: ModelShutoff) throws -> AssistantReviewer {
        var configuration = ModelConfiguration(apiKey: Secret("test-key"))
        configuration.baseURL = "http://127.0.0.1:9/v1"
        let conversation = ModelConversation(
            client: ChatCompletionsClient(configuration: configuration),
            prompt: try SystemPrompt.load(directory: prompts))
        return AssistantReviewer(
            conversation: conversation, cancellation: CancellationToken(), shutoff: shutoff, deadline: deadline)
    }

    /// Tuesday 2025-01-07 03:00 in Taipei.
    static let now = TestClock.tuesdayNightTaipei

    /// A database with three students, each with an instruction (so the model is wanted) and
    /// a five-day course that started yesterday (missed), so the local rules move sessions.
    static func students() throws -> TemporaryDatabase {
        let f = try TemporaryDatabase(now: now)
        try f.addStudents(3, instruction: "two hours of English every weekday")
        return f
    }

    static func run(_ deadline: ModelDeadline) throws -> (
        NightlyRunner.Report, [UserNight], ModelShutoff, TemporaryDatabase
    ) {
        let f = try students()
        let shutoff = ModelShutoff()
        let pipeline = UserPipeline(
            reviewer: try reviewer(deadline, shutoff: shutoff), modelDisabledReason: { shutoff.reason })
        let nights = NightsSeen()
        var options = RunOptions(now: Self.now)
        options.concurrency = 1
        let report = try NightlyRunner(
            databasePath: f.path, pipeline: pipeline, options: options, onUser: { nights.append($0) }
        ).run()
        return (report, nights.all, shutoff, f)
    }

    @Test func pastTheRunsDeadlineEveryStudentGetsLocalEditsAndTheRunSaysWhy() throws {
        let (report, nights, shutoff, f) = try Self.run(ModelDeadline(perRun: 0, perStudent: 300))
        #expect(report.changed == 3 && report.failed == 0, "\(report)")
        #expect(shutoff.reason?.contains("deadline for this run") == true, "\(shutoff.reason ?? "nil")")
        for night in nights {
            #expect(
                night.model.error?.contains("deadline") == true && night.model.requests == 0,
                "\(night.userID): \(night.model)")
        }
        // The local rules' edits are committed: the missed Monday session moved.
        #expect(try f.rows("SELECT id, start FROM tasks ORDER BY id").contains { $0 == "s0-eng-0 2025-01-07T10:00" })
    }

    @Test func pastAStudentsDeadlineThatStudentGetsLocalEditsOnly() throws {
        let (report, nights, shutoff, _) = try Self.run(ModelDeadline(perRun: 3600, perStudent: 0))
        #expect(report.changed == 3 && report.failed == 0, "\(report)")
        #expect(shutoff.reason == nil, "other students may still be asked")
        for night in nights {
            #expect(night.model.error?.contains("this student's limit") == true, "\(night.userID): \(night.model)")
        }
    }
}

/// Nights reported from the writer thread.
typealias NightsSeen = Shared<[UserNight]>
