import Foundation
import JSON
import Planning

/// The `replan/1` import/export document (docs/data-format.md §3): any number of users, each with settings,
/// tasks (with their occurrence overrides and slides) and focus sessions.
package struct ReplanDocument: Hashable, Sendable {
    package static let format = "replan/1"

    /// One user's part of a document.
    package struct Entry: Hashable, Sendable {
        package var user: User
        package var tasks: [StudyTask]
        package var overrides: [OccurrenceOverride]
        package var slides: [SeriesSlide]
        package var focusSessions: [FocusSession]

        package init(
            user: User, tasks: [StudyTask], overrides: [OccurrenceOverride] = [], slides: [SeriesSlide] = [],
            focusSessions: [FocusSession] = []
        ) {
            self.user = user
            self.tasks = tasks
            self.overrides = overrides
            self.slides = slides
            self.focusSessions = focusSessions
        }
    }

    package var entries: [Entry]

    package init(entries: [Entry]) { self.entries = entries }

    /// The document as JSON: keys sorted, tasks by start then id, overrides and slides by date,
    /// so exporting the same data twice gives the same bytes.
    package var json: JSONValue {
        .object(["format": .string(ReplanDocument.format), "users": .array(entries.map(ReplanDocument.encode))])
    }

    private static func encode(_ e: Entry) -> JSONValue {
        let s = e.user.settings
        var windows: [String: JSONValue] = [:]
        for day in Weekday.allCases {
            let list = s.windows.windows(on: day)
            if !list.isEmpty { windows[day.rawValue] = .array(list.map { .string($0.description) }) }
        }
        let settings: JSONValue = [
            "windows": .object(windows), "windowsEnabled": .bool(s.windowsEnabled),
            "sessionMinutes": .int(s.sessionMinutes), "sessionMinutesEnabled": .bool(s.sessionMinutesEnabled),
            "tone": .string(s.tone), "instruction": .string(s.instruction), "autoUpdate": .bool(s.autoUpdate),
            "notificationsEnabled": .bool(s.notificationsEnabled), "reminderMinutes": .int(s.reminderMinutes),
            "deleteAfterDays": .int(s.deleteAfterDays), "horizonDays": .int(s.horizonDays),
            "keepCategories": .array(s.keepCategories.map { .string($0) }), "splitSessions": .bool(s.splitSessions),
            "morningTime": .string(s.morningTime.description),
        ]
        let overridesByTask = Dictionary(grouping: e.overrides, by: \.taskID)
        let slidesByTask = Dictionary(grouping: e.slides, by: \.taskID)
        let tasks = e.tasks.sorted { ($0.start, $0.id) < ($1.start, $1.id) }.map { t -> JSONValue in
            var o: [String: JSONValue] = [
                "id": .string(t.id), "title": .string(t.title), "note": .string(t.note),
                "category": .string(t.category),
                "color": .string(t.color.rawValue), "start": .string(text(t.start, allDay: t.allDay)),
                "end": .string(text(t.end, allDay: t.allDay)), "allDay": .bool(t.allDay),
                "completed": .bool(t.completed),
                "subtasks": .array(t.subtasks.map { ["title": .string($0.title), "done": .bool($0.done)] }),
            ]
            if let r = t.repeatRule {
                var rep: [String: JSONValue] = ["every": .string(r.every.rawValue)]
                if let u = r.until { rep["until"] = .string(u.description) }
                // Only when it differs from the kind's default (docs/data-format.md §3.2).
                if let m = r.explicitMissed { rep["missed"] = .string(m.rawValue) }
                o["repeat"] = .object(rep)
                // Only what the decoder reads back: a skipped occurrence has no new time (where it
                // had been moved to no longer matters), and an open one that was not moved is no
                // override at all.
                o["occurrences"] = .array(
                    (overridesByTask[t.id] ?? []).sorted { $0.originalDate < $1.originalDate }.compactMap {
                        ov -> JSONValue? in
                        var item: [String: JSONValue] = ["date": .string(ov.originalDate.description)]
                        if ov.state != .skipped, let s = ov.start, let e = ov.end {
                            item["start"] = .string(text(s, allDay: t.allDay))
                            item["end"] = .string(text(e, allDay: t.allDay))
                            item["state"] = .string(ov.state == .open ? "moved" : ov.state.rawValue)
                        } else if ov.state == .open {
                            return nil
                        } else {
                            item["state"] = .string(ov.state.rawValue)
                        }
                        return .object(item)
                    })
                o["slides"] = .array(
                    (slidesByTask[t.id] ?? []).sorted { $0.from < $1.from }.map {
                        ["from": .string($0.from.description), "days": .int($0.days)]
                    })
            }
            return .object(o)
        }
        var user: [String: JSONValue] = [
            "id": .string(e.user.id), "timeZone": .string(e.user.zone.identifier), "language": .string(e.user.language),
            "settings": settings, "tasks": .array(tasks),
            "focusSessions": .array(
                e.focusSessions.sorted { ($0.start, $0.category) < ($1.start, $1.category) }.map {
                    [
                        "category": .string($0.category), "start": .string($0.start.description),
                        "minutes": .int($0.minutes),
                    ]
                }),
        ]
        if let name = e.user.displayName { user["displayName"] = .string(name) }
        return .object(user)
    }

    private static func text(_ t: CivilDateTime, allDay: Bool) -> String { allDay ? t.date.description : t.description }
}
