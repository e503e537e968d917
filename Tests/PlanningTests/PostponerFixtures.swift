import Foundation
import Testing

@testable import Planning

// Small literal-plan builders shared by the planning-engine tests (classifier, chains, slot
// finder, postponer, validator). Dates read like the spec: "2025-01-06", "2025-01-06T10:00".

enum Fx {
    static let taipei = try! UserZone(identifier: "Asia/Taipei")
    static let utc = try! UserZone(identifier: "UTC")
    static let newYork = try! UserZone(identifier: "America/New_York")
    static let berlin = try! UserZone(identifier: "Europe/Berlin")

    static func d(_ s: String) -> CivilDate { CivilDate(s)! }
    static func t(_ s: String) -> CivilDateTime { CivilDateTime(s)! }
    static func tod(_ s: String) -> TimeOfDay { TimeOfDay(s)! }
    static func range(_ a: String, _ b: String) -> TimeRange { TimeRange(start: t(a), end: t(b)) }

    /// Mon–Fri 09:00–17:00 (the data.md default).
    static let weekdays9to5 = WeeklyWindows.standard

    static func windows(_ text: [Weekday: [String]]) -> WeeklyWindows { try! WeeklyWindows(text: text) }

    static func settings(
        windows: WeeklyWindows = .standard, enabled: Bool = true, deleteAfterDays: Int = 7,
        horizonDays: Int = 14, keep: [String] = [], split: Bool = false,
        sessionMinutes: Int = 60
    ) -> UserSettings {
        var s = UserSettings()
        s.windows = windows
        s.windowsEnabled = enabled
        s.deleteAfterDays = deleteAfterDays
        s.horizonDays = horizonDays
        s.keepCategories = keep
        s.splitSessions = split
        s.sessionMinutes = sessionMinutes
        return s
    }

    static func task(
        _ id: String, _ title: String, _ start: String, _ end: String, category: String = "Study",
        allDay: Bool = false, completed: Bool = false, repeat rule: RepeatRule? = nil
    ) -> StudyTask {
        StudyTask(
            id: id, userID: "mei", title: title, category: category, start: t(start), end: t(end),
            allDay: allDay, completed: completed, repeatRule: rule)
    }

    static func plan(
        _ tasks: [StudyTask], settings: UserSettings = Fx.settings(), zone: UserZone = Fx.taipei,
        overrides: [OccurrenceOverride] = [], slides: [SeriesSlide] = []
    ) -> UserPlan {
        let user = try! User(id: "mei", zone: zone, settings: settings)
        return UserPlan(user: user, tasks: tasks, overrides: overrides, slides: slides)
    }

    static func postpone(_ plan: UserPlan, at now: String) -> PostponementResult {
        Postponer(localNow: t(now), zone: plan.zone).postpone(plan)
    }

    static func id(_ s: String) -> OccurrenceID { OccurrenceID(s)! }

    static func completed(_ taskID: String, _ date: String) -> OccurrenceOverride {
        OccurrenceOverride(taskID: taskID, originalDate: d(date), state: .completed)
    }
}

extension PostponementResult {
    /// Where an occurrence sits in the resulting plan.
    func place(_ id: String) -> TimeRange? { plan.occurrence(OccurrenceID(id)!).map(TimeRange.init) }
}
