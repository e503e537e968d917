import Foundation
import Nightly
import Planning
import Store

/// A temporary database with students whose five-day course started yesterday (Monday
/// 2025-01-06, 10:00, missed): each night plan is worked example 2 of planning.md.
final class NightlyFixture {
    /// Tuesday 2025-01-07 03:00 in Taipei.
    static let now = Date(timeIntervalSince1970: 1_736_190_000)

    let directory: URL
    let path: String

    init() throws {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("replan-nightly-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        path = directory.appendingPathComponent("replan.db").path
    }

    deinit { try? FileManager.default.removeItem(at: directory) }

    func open() throws -> Database { try Database.open(path: path) }

    /// Adds students `s0`, `s1`, … each with the missed course (and an instruction when asked).
    func addStudents(_ count: Int, instruction: String = "", zone: String = "Asia/Taipei") throws {
        let db = try open()
        for i in 0..<count {
            var settings = UserSettings()
            settings.instruction = instruction
            let user = try User(id: "s\(i)", zone: UserZone(identifier: zone), settings: settings)
            try UserRepository(db).add(user, now: NightlyFixture.now)
            _ = try UserRepository(db).saveSettings(settings, for: user.id)
            let tasks = (0..<5).map { d in
                StudyTask(
                    id: "s\(i)-eng-\(d)", userID: user.id, title: "English reading", category: "English",
                    start: CivilDateTime("2025-01-06T10:00")!.adding(days: d),
                    end: CivilDateTime("2025-01-06T11:00")!.adding(days: d))
            }
            let changes = PlanDiff.changes(
                from: UserPlan(user: user, tasks: []), to: UserPlan(user: user, tasks: tasks),
                now: NightlyFixture.now
            ) { _, _ in "import" }
            _ = try ChangesetStore(db).commit(
                NewChangeset(
                    userID: user.id, origin: .import, planDate: nil,
                    createdAt: NightlyFixture.now, changes: changes))
        }
    }

    /// Every task row of every student, as text: compares whole plans.
    func taskRows() throws -> [String] {
        try open().query("SELECT id, start, \"end\", version FROM tasks ORDER BY id", []) { s in
            "\(s.text(0)) \(s.text(1)) \(s.text(2)) v\(s.int(3))"
        }
    }
}

/// A scripted model stage: moves nothing, or fails, or runs out of quota, as told.
struct FakeReviewer: ModelReviewer {
    enum Behaviour: Sendable { case endAtOnce, fail, quota, createSession }
    let behaviour: Behaviour
    let calls: Counter

    func review(_ working: UserPlan, local: PostponementResult, now: Date) -> ModelReview {
        calls.increment()
        switch behaviour {
        case .endAtOnce:
            return ModelReview(
                plan: working, ending: .endConversation, requests: 1, turns: 1,
                usage: TokenCounts(prompt: 100, completion: 10))
        case .fail:
            return ModelReview(plan: working, ending: .failed, requests: 5, turns: 0, error: "HTTP 503 after 4 retries")
        case .quota:
            return ModelReview(
                plan: working, ending: .failed, requests: 1, error: "insufficient_quota", quotaExhausted: true)
        case .createSession:
            var plan = working
            let id = "m-\(working.user.id)"
            plan.put(
                StudyTask(
                    id: id, userID: working.user.id, title: "Grammar", category: "English",
                    start: CivilDateTime("2025-01-08T14:00")!, end: CivilDateTime("2025-01-08T15:00")!))
            return ModelReview(
                plan: plan, ending: .endConversation, touched: [OccurrenceID(taskID: id): "as asked"], requests: 2,
                turns: 2)
        }
    }
}

/// A thread-safe count.
final class Counter: @unchecked Sendable {
    private let lock = NSLock()
    private var value = 0
    func increment() { lock.withLock { value += 1 } }
    var count: Int { lock.withLock { value } }
}
