import Exchange
import Foundation
import JSON
import Planning

/// The sample student of `replan demo`: a week, relative to today, with missed sessions, a
/// five-day course chain, a daily series with a missed evening, a stale session and a full day.
package enum DemoScenario {
    package static let userID = "mei"
    package static let zoneID = "Asia/Taipei"

    /// The demo student as a replan/1 document, for `import`.
    package static func document(today: CivilDate, now: Date) throws -> JSONValue {
        ReplanDocument(entries: [try entry(today: today, now: now)]).json
    }

    /// The demo student's plan around the local date `today`.
    package static func entry(today: CivilDate, now: Date) throws -> ReplanDocument.Entry {
        var settings = UserSettings()
        let weekday = ["09:00-12:00", "14:00-18:00"]
        let weekend = ["10:00-16:00"]
        settings.windows = try WeeklyWindows(text: [
            .mon: weekday, .tue: weekday, .wed: weekday, .thu: weekday, .fri: weekday,
            .sat: weekend, .sun: weekend,
        ])
        settings.instruction = "Keep my evenings after 20:30 free."
        let user = try User(
            id: userID, zone: UserZone(identifier: zoneID), language: "en", displayName: "Mei", settings: settings)

        func at(_ dayOffset: Int, _ time: String) -> CivilDateTime {
            CivilDateTime(date: today.adding(days: dayOffset), time: TimeOfDay(time)!)
        }
        func task(
            _ id: String, _ title: String, _ category: String, _ color: TaskColor, _ day: Int, _ from: String,
            _ to: String,
            completed: Bool = false, repeatRule: RepeatRule? = nil
        ) -> StudyTask {
            StudyTask(
                id: id, userID: userID, title: title, category: category, color: color, start: at(day, from),
                end: at(day, to), completed: completed, repeatRule: repeatRule, createdAt: now)
        }

        var tasks: [StudyTask] = []
        // A five-day course, one part a day at 10:00; the first two parts were missed.
        for part in 1...5 {
            tasks.append(
                task("linalg-\(part)", "Linear algebra [\(part)/5]", "Math", .green, part - 3, "10:00", "11:00"))
        }
        tasks += [
            task("essay", "Essay draft", "English", .red, -3, "15:00", "17:00"),
            task("old-reading", "Old reading list", "English", .blue, -12, "14:00", "15:00"),
            task("chem-quiz", "Chemistry quiz prep", "Chemistry", .yellow, -1, "14:00", "15:00", completed: true),
            // Tomorrow is full: a lab all morning and a group project all afternoon.
            task("physics-lab", "Physics lab", "Physics", .yellow, 1, "09:00", "12:00"),
            task("group-project", "Group project", "Physics", .yellow, 1, "14:00", "18:00"),
            task(
                "vocab", "Vocabulary", "English", .green, -10, "20:00", "20:30",
                repeatRule: RepeatRule(every: .daily, until: today.adding(days: 20))),
        ]
        // The vocabulary series was done every evening but yesterday's.
        let done = (-10 ... -2).map {
            OccurrenceOverride(taskID: "vocab", originalDate: today.adding(days: $0), state: .completed)
        }
        let focus = [
            FocusSession(category: "English", start: at(-2, "20:00"), minutes: 25),
            FocusSession(category: "Chemistry", start: at(-1, "14:00"), minutes: 55),
        ]
        return ReplanDocument.Entry(user: user, tasks: tasks, overrides: done, focusSessions: focus)
    }
}
