import Foundation
import Planning
import ReplanTestSupport
import Synchronization

@testable import Assistant

/// Small literal plans for the tool executor and the loop: one student in Asia/Taipei with the
/// default windows (Mon–Fri 09:00–17:00), planned on Tuesday 2025-01-07 at 03:00.
typealias PlanFixture = Fx

extension Fx {
    static let zone = Fx.taipei
    static let now = at("2025-01-07T03:00")

    /// A plan whose student gave the assistant `instruction`.
    static func plan(
        _ tasks: [StudyTask], overrides: [OccurrenceOverride] = [], instruction: String, user: String = "mei"
    ) -> UserPlan {
        var settings = UserSettings()
        settings.instruction = instruction
        return plan(tasks, settings: settings, overrides: overrides, user: user)
    }

    /// The plan most tests use:
    /// - `phy` Physics Tue 14:00–15:00 and `math` Math Tue 10:00–11:00 (open one-offs),
    /// - `essay` completed Wed 09:00–09:30, `old` completed Mon 10:00–11:00,
    /// - `vocab` a daily series at 20:00–20:30 from Jan 1 (Jan 5 skipped, Jan 6 completed),
    /// - `rev` an all-day revision day on Wed Jan 8.
    static let standard = plan(
        [
            task("phy", "Physics", "2025-01-07T14:00", "2025-01-07T15:00", category: "Physics"),
            task("math", "Math", "2025-01-07T10:00", "2025-01-07T11:00", category: "Math"),
            task("essay", "Essay", "2025-01-08T09:00", "2025-01-08T09:30", category: "English", completed: true),
            task("old", "Reading", "2025-01-06T10:00", "2025-01-06T11:00", category: "English", completed: true),
            task(
                "vocab", "Vocabulary", "2025-01-01T20:00", "2025-01-01T20:30", category: "English",
                repeat: RepeatRule(every: .daily)),
            task("rev", "Revision", "2025-01-08T00:00", "2025-01-08T00:00", category: "Exam", allDay: true),
        ],
        overrides: [
            OccurrenceOverride(taskID: "vocab", originalDate: date("2025-01-05"), state: .skipped),
            OccurrenceOverride(taskID: "vocab", originalDate: date("2025-01-06"), state: .completed),
        ])

    /// The repository's `prompts/`.
    static var promptDirectory: String { TestFiles.prompts }
}

/// Task ids `m-1`, `m-2`, … in order, so tests can name what the model creates.
final class SequentialIDs: Sendable {
    private let next = Mutex(1)
    private let prefix: String

    init(prefix: String = "m-") { self.prefix = prefix }

    var make: @Sendable () -> String {
        { [self] in
            next.withLock { n in
                defer { n += 1 }
                return "\(prefix)\(n)"
            }
        }
    }
}
