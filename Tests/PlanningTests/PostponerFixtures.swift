import Foundation
import ReplanTestSupport
import Testing

@testable import Planning

// The scenes (settings, postponing) of the planning-engine tests (classifier, chains, slot
// finder, postponer, validator). Dates read like the spec: "2025-01-06", "2025-01-06T10:00".

extension Fx {
    /// Mon–Fri 09:00–17:00 (the docs/data-format.md §2.2 default).
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

    static func postpone(_ plan: UserPlan, at now: String) -> PostponementResult {
        Postponer(localNow: at(now), zone: plan.zone).postpone(plan)
    }

    /// A night at `now` whose guarantees are checked (any breach is a recorded issue).
    @discardableResult
    static func checkedNight(
        _ plan: UserPlan, at now: String, sourceLocation: SourceLocation = #_sourceLocation
    ) -> PostponementResult {
        let result = postpone(plan, at: now)
        let breaches = GuaranteeChecker(now: plan.zone.instant(at(now)))
            .check(before: plan, after: result.plan, edits: result.edits, summary: result.summary)
        #expect(breaches.isEmpty, "\(breaches)", sourceLocation: sourceLocation)
        return result
    }

    static func completed(_ taskID: String, _ date: String) -> OccurrenceOverride {
        OccurrenceOverride(taskID: taskID, originalDate: ReplanTestSupport.date(date), state: .completed)
    }
}

/// The edit moving occurrence `id` from `before` to `after`, as the postponer reports it.
func move(
    _ id: String, _ title: String, _ before: (String, String), _ after: (String, String), _ reason: PlanEdit.Reason
) -> PlanEdit {
    PlanEdit(
        op: .move, id: ReplanTestSupport.id(id), title: title, before: range(before.0, before.1),
        after: range(after.0, after.1), reason: reason)
}

extension PostponementResult {
    /// Where an occurrence sits in the resulting plan.
    func place(_ id: String) -> TimeRange? { plan.occurrence(OccurrenceID(id)!).map(TimeRange.init) }
}
