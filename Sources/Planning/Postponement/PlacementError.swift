/// Why a session cannot go where someone wants to put it. The description is written for the
/// reader who has to fix the request (the model in a tool result, or the student), so it names
/// the session in the way, the windows of that day, or the current time.
package enum PlacementError: Error, Hashable, Sendable, CustomStringConvertible {
    case endNotAfterStart(start: CivilDateTime, end: CivilDateTime)
    case completed(OccurrenceID)
    case skipped(OccurrenceID)
    case unknownOccurrence(OccurrenceID)
    case startsInPast(now: CivilDateTime)
    case outsideWindows(weekday: Weekday, windows: [StudyWindow])
    /// The start falls in the hour a spring-forward night skips.
    case nonexistentTime(start: CivilDateTime, zone: String)
    case overlaps(title: String, start: CivilDateTime, end: CivilDateTime)
    case overlapsAllDay(title: String, date: CivilDate)
    /// G2 (`CourseOrder`): the course's session `title` on `date` comes before this one.
    case beforeEarlierSession(title: String, date: CivilDate)
    /// G2: a session goes before its course's next session (`title` on `date`).
    case notBeforeNextSession(title: String, date: CivilDate)
    /// G2: `date` already holds `title` of the same course.
    case courseDayTaken(title: String, date: CivilDate)
    /// G3: the student skipped this series on `date`.
    case skippedDay(date: CivilDate)

    package var description: String {
        switch self {
        case .endNotAfterStart:
            return "end must be after start"
        case .completed:
            return "completed sessions cannot be changed"
        case .skipped(let id):
            return "skipped sessions cannot be moved ('\(id)' was skipped)"
        case .unknownOccurrence(let id):
            return "there is no session '\(id)' in this plan"
        case .startsInPast(let now):
            return "starts in the past (now is \(now))"
        case .outsideWindows(let weekday, let windows):
            let list =
                windows.isEmpty ? "no windows that day" : windows.map(PlacementError.rangeText).joined(separator: ", ")
            return "outside the study windows of \(weekday.englishName) (\(list))"
        case .nonexistentTime(let start, let zone):
            return "\(start.time) on \(start.date) does not exist in \(zone) (the clocks skip it)"
        case .overlaps(let title, let start, let end):
            if start.date == end.date || (end.time.minutes == 0 && end.date == start.date.adding(days: 1)) {
                let endText = end.date == start.date ? end.time.description : "24:00"
                return "overlaps '\(title)' \(start.time)–\(endText) on \(start.date)"
            }
            return "overlaps '\(title)' \(start)–\(end)"
        case .overlapsAllDay(let title, let date):
            return "overlaps the all-day '\(title)' on \(date)"
        case .beforeEarlierSession(let title, let date):
            return "a course keeps its order: this session comes after '\(title)' on \(date), so it goes after that day"
        case .notBeforeNextSession(let title, let date):
            return
                "a course keeps its order and pace: this session goes before the next session of the course, '\(title)' on \(date)"
        case .courseDayTaken(let title, let date):
            return "\(date) already holds '\(title)' of the same course, and a course gets one session a day"
        case .skippedDay(let date):
            return "the student skipped this series on \(date), so that day gets none of its sessions"
        }
    }

    static func rangeText(_ w: StudyWindow) -> String { "\(w.start)–\(w.end)" }
}
