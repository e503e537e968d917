import Foundation
import Planning

/// The one builder of tasks and plans from literal text, for every test target. Defaults
/// describe the tests' usual student: `mei` in Asia/Taipei with the default settings (study
/// windows Mon–Fri 09:00–17:00). Test targets add their own scenes in extensions.
package enum Fx {
    package static let taipei = zone("Asia/Taipei")
    package static let utc = zone("UTC")
    package static let newYork = zone("America/New_York")
    package static let berlin = zone("Europe/Berlin")

    /// A task from literal times: `Fx.task("eng-1", "English reading", "2025-01-06T10:00", "2025-01-06T11:00")`.
    package static func task(
        _ id: String, _ title: String, _ start: String, _ end: String, category: String = "Study",
        color: TaskColor = .green, note: String = "", allDay: Bool = false, completed: Bool = false,
        subtasks: [Subtask] = [], repeat rule: RepeatRule? = nil, user: String = "mei",
        createdAt: Date = Date(timeIntervalSince1970: 0), updatedAt: Date? = nil, version: Int = 1
    ) -> StudyTask {
        StudyTask(
            id: id, userID: user, title: title, note: note, category: category, color: color, start: at(start),
            end: at(end), allDay: allDay, completed: completed, subtasks: subtasks, repeatRule: rule,
            createdAt: createdAt, updatedAt: updatedAt, version: version)
    }

    /// A repeating task: `Fx.series("vocab", "Vocab", "2025-01-06T20:00", "2025-01-06T20:30", .daily)`.
    package static func series(
        _ id: String, _ title: String, _ start: String, _ end: String, _ every: RepeatRule.Frequency,
        until: String? = nil, category: String = "English", allDay: Bool = false, user: String = "mei"
    ) -> StudyTask {
        task(
            id, title, start, end, category: category, allDay: allDay,
            repeat: RepeatRule(every: every, until: until.map(date)), user: user)
    }

    /// A student's plan: `Fx.plan([Fx.task(…)], overrides: […])`.
    package static func plan(
        _ tasks: [StudyTask], settings: UserSettings = UserSettings(), zone: UserZone = Fx.taipei,
        overrides: [OccurrenceOverride] = [], slides: [SeriesSlide] = [], user: String = "mei",
        language: String = "en"
    ) -> UserPlan {
        let owner = try! User(id: user, zone: zone, language: language, settings: settings)
        return UserPlan(user: owner, tasks: tasks, overrides: overrides, slides: slides)
    }
}
