import Foundation
import JSON

/// A one-off session that a changeset deleted (the nightly rules drop stale ones; a student
/// may delete one): the iCalendar feed still lists it, as `STATUS:CANCELLED`, so a calendar
/// that kept the event removes it instead of showing a session that no longer exists.
package struct DroppedSession: Hashable, Sendable {
    package var id: String
    package var title: String
    package var category: String
    package var start: CivilDateTime
    package var end: CivilDateTime
    package var allDay: Bool
    /// The deleted row's version: the cancelled event's SEQUENCE is one more.
    package var version: Int
    package var droppedAt: Date

    package init(
        id: String, title: String, category: String, start: CivilDateTime, end: CivilDateTime, allDay: Bool,
        version: Int, droppedAt: Date
    ) {
        self.id = id
        self.title = title
        self.category = category
        self.start = start
        self.end = end
        self.allDay = allDay
        self.version = version
        self.droppedAt = droppedAt
    }

    /// The session from a task's before image (as changesets store it), or nil for a series
    /// (a deleted series' occurrences are not listed) or an image it cannot read.
    package init?(image: JSONValue, droppedAt: Date) {
        guard image["repeat"] == nil || image["repeat"] == .null,
            let id = image["id"]?.stringValue, let title = image["title"]?.stringValue,
            let startText = image["start"]?.stringValue, let endText = image["end"]?.stringValue
        else { return nil }
        let allDay = image["allDay"]?.boolValue ?? false
        func civil(_ text: String) -> CivilDateTime? {
            CivilDateTime(text) ?? CivilDate(text).map { CivilDateTime(date: $0, time: TimeOfDay(minutes: 0)) }
        }
        guard let start = civil(startText), let end = civil(endText) else { return nil }
        self.init(
            id: id, title: title, category: image["category"]?.stringValue ?? "", start: start, end: end,
            allDay: allDay, version: image["version"]?.intValue ?? 1, droppedAt: droppedAt)
    }
}
