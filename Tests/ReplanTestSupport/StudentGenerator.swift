import Foundation
import Planning

/// The adversarial families of students the guarantee checker is run on (docs/planning.md §3).
package enum StudentFamily: String, CaseIterable, Sendable {
    /// Numbered daily courses, every part-marker spelling, some parts missed, some done.
    case numberedCourses
    /// Parts a few days apart linked only by their part numbers.
    case partLinks
    /// Runs of a course crossing free days and weekends under weekday windows (cascades).
    case chainsAcrossFreeDays
    /// Long courses and 30-day series with fixed appointments weeks away (far collisions).
    case farCollisions
    /// Series with every missed policy, skipped and completed days, sessions appended before.
    case seriesPolicies
    /// History left open for months (downtime, imports), kept categories.
    case staleHistory
    /// Sessions around the DST changes of six zones, early in the morning.
    case dstNights
    /// Days booked solid, long sessions, splitting on and off, tiny horizons.
    case fullPlans
    /// All-day sessions, one-off and series, one day and several.
    case allDay
    /// Runs late in the evening, after today's slots have passed.
    case lateRuns
    /// A bit of everything.
    case mixed
    /// deleteAfterDays and horizonDays at their smallest.
    case tightSettings
}

/// A deterministic generator of students (SplitMix64): the same seed gives the same student.
package struct StudentGenerator {
    private var random: SeededRandom
    private var taskNumber = 0

    package init(seed: UInt64) { random = SeededRandom(seed: seed &* 0x9E37_79B9_7F4A_7C15 &+ 0x1234_5678) }

    mutating func next() -> UInt64 { random.next() }

    mutating func int(_ r: ClosedRange<Int>) -> Int { r.lowerBound + Int(next() % UInt64(r.count)) }
    mutating func chance(_ p: Double) -> Bool { Double(next() % 10_000) < p * 10_000 }
    mutating func pick<T>(_ list: [T]) -> T { list[int(0...(list.count - 1))] }

    static let zones = [
        "America/New_York", "Europe/Berlin", "Australia/Sydney", "America/Santiago", "America/Havana",
        "Pacific/Chatham", "Asia/Taipei", "UTC",
    ].map { try! UserZone(identifier: $0) }
    /// A day near a DST change of each of the first six zones (the change is that night).
    static let dstDays = [
        "2025-03-09", "2025-03-30", "2025-10-05", "2025-09-07", "2025-03-09", "2025-09-28",
        "2025-11-02", "2025-10-26", "2025-04-06", "2025-04-06", "2025-11-02", "2025-04-06",
    ]
    /// Every part-marker spelling of docs/planning.md §1.6 (and none, the last).
    static func marker(_ style: Int, _ n: Int, _ m: Int) -> String {
        switch style {
        case 0: return " [\(n)/\(m)]"
        case 1: return " (\(n)/\(m))"
        case 2: return " (\(n))"
        case 3: return " #\(n)"
        case 4: return " Part \(n)"
        case 5: return " - part \(n)"
        case 6: return " 第\(n)課"
        case 7: return " 第\(cjk(n))章"
        case 8: return ": \(n)"
        case 9: return " ch.\(n)"
        case 10: return " Day \(n)"
        default: return ""
        }
    }
    static let courses = [
        "Linear algebra", "English reading", "Physics", "數學", "Chemistry lab", "Vocab", "Essay",
        "MATH101", "Piano", "歷史",
    ]

    static func cjk(_ n: Int) -> String {
        let digits = Array("〇一二三四五六七八九")
        if n < 10 { return String(digits[n]) }
        if n < 20 { return "十" + (n % 10 == 0 ? "" : String(digits[n % 10])) }
        return String(digits[n / 10]) + "十" + (n % 10 == 0 ? "" : String(digits[n % 10]))
    }

    // MARK: - A student

    private var tasks: [StudyTask] = []
    private var overrides: [OccurrenceOverride] = []
    private var today = CivilDate(year: 2025, month: 1, day: 8)!

    package mutating func makeStudent() -> (StudentFamily, UserPlan, Date) {
        let family = StudentFamily.allCases[Int(next() % UInt64(StudentFamily.allCases.count))]
        tasks = []
        overrides = []
        var zone = pick(Self.zones)
        var settings = UserSettings()
        settings.windowsEnabled = chance(0.7)
        settings.windows = makeWindows()
        settings.deleteAfterDays = pick([7, 7, 7, 3, 14])
        settings.horizonDays = pick([14, 14, 7, 3, 30])
        settings.splitSessions = chance(0.2)
        settings.sessionMinutes = pick([30, 60, 90])
        today = CivilDate(year: 2025, month: int(1...12), day: int(1...28))!
        var time = pick(["03:00", "03:00", "12:00", "23:30", String(format: "%02d:%02d", int(0...23), int(0...59))])

        switch family {
        case .numberedCourses:
            for _ in 0..<int(1...3) { course(partsIn: 1...1, markers: true) }
            fillers(int(0...4))
        case .partLinks:
            for _ in 0..<int(1...3) { course(partsIn: 2...4, markers: true) }
            fillers(int(0...3))
        case .chainsAcrossFreeDays:
            settings.windowsEnabled = true
            settings.windows = WeeklyWindows.standard
            for _ in 0..<int(1...2) { runsWithFreeDays() }
            fillers(int(0...4))
        case .farCollisions:
            settings.windowsEnabled = chance(0.5)
            course(partsIn: 1...1, markers: chance(0.5), count: int(30...45))
            challengeSeries()
            for _ in 0..<int(3...8) { appointment(daysAhead: int(20...70)) }
        case .seriesPolicies:
            for _ in 0..<int(2...4) { series() }
            fillers(int(0...3))
        case .staleHistory:
            settings.keepCategories = chance(0.4) ? ["Exam"] : []
            for _ in 0..<int(1...3) { series(startDaysAgo: int(30...400), marked: 0.3) }
            for _ in 0..<int(2...8) { oneOff(daysFromToday: -int(8...200), category: pick(["Exam", "Reading", "作業"])) }
            fillers(int(0...3))
        case .dstNights:
            let i = int(0...5)
            zone = Self.zones[i]
            today = CivilDate(Self.dstDays[pick([i, i + 6])])!.adding(days: int(-1...2))
            time = pick(["00:30", "01:30", "02:30", "03:00", "03:30", "12:00", "23:30"])
            for _ in 0..<int(1...3) { course(partsIn: 1...1, markers: chance(0.5), early: true) }
            for _ in 0..<int(1...2) { series(early: true) }
            fillers(int(0...3), early: true)
        case .fullPlans:
            settings.horizonDays = pick([1, 2, 3, 14])
            settings.splitSessions = chance(0.6)
            settings.windowsEnabled = true
            settings.windows = try! WeeklyWindows(
                text: Dictionary(uniqueKeysWithValues: Weekday.allCases.map { ($0, ["09:00-12:00"]) }))
            for day in -3...10 { for h in [9, 10, 11] where chance(0.7) { fixed(day: day, hour: h, minutes: 60) } }
            for _ in 0..<int(2...5) { oneOff(daysFromToday: -int(1...5), minutes: pick([60, 120, 240, 300])) }
            course(partsIn: 1...1, markers: true)
        case .allDay:
            for _ in 0..<int(1...3) { course(partsIn: 1...2, markers: chance(0.5), allDay: true) }
            for _ in 0..<int(1...4) { oneOff(daysFromToday: int(-6...4), allDay: true, days: int(1...3)) }
            if chance(0.5) { series(allDay: true) }
        case .lateRuns:
            time = pick(["22:00", "23:30", "23:59", "21:15"])
            for _ in 0..<int(1...3) { course(partsIn: 1...1, markers: true) }
            fillers(int(1...4))
        case .mixed:
            for _ in 0..<int(0...2) { course(partsIn: 1...3, markers: chance(0.5)) }
            for _ in 0..<int(0...2) { series() }
            for _ in 0..<int(0...3) { appointment(daysAhead: int(1...40)) }
            fillers(int(0...6))
        case .tightSettings:
            settings.deleteAfterDays = int(0...2)
            settings.horizonDays = int(1...3)
            for _ in 0..<int(1...2) { course(partsIn: 1...2, markers: true) }
            for _ in 0..<int(1...2) { series() }
            fillers(int(0...4))
        }
        let user = try! User(id: "s", zone: zone, settings: settings)
        let plan = UserPlan(user: user, tasks: tasks, overrides: overrides)
        let now = zone.instant(CivilDateTime(date: today, time: TimeOfDay(time) ?? TimeOfDay(minutes: 180)))
        return (family, plan, now)
    }

    // MARK: - Pieces

    private mutating func id() -> String {
        taskNumber += 1
        return "t\(taskNumber)"
    }

    private mutating func makeWindows() -> WeeklyWindows {
        var text: [Weekday: [String]] = [:]
        for day in Weekday.allCases where chance(0.75) {
            text[day] = pick([
                ["09:00-17:00"], ["08:00-12:00", "14:00-18:00"], ["18:00-22:00"], ["06:00-09:00", "19:00-23:00"],
                ["10:00-11:00"],
            ])
        }
        return try! WeeklyWindows(text: text)
    }

    private func at(_ day: CivilDate, _ minutes: Int) -> CivilDateTime {
        CivilDateTime(date: day, time: TimeOfDay(minutes: minutes))
    }

    private mutating func startMinute(early: Bool = false) -> Int {
        early ? pick([0, 30, 60, 90, 120, 150, 180]) + int(0...3) * 5 : int(7...21) * 60 + pick([0, 15, 30, 45])
    }

    private mutating func state(daysFromToday d: Int) -> Bool {
        // Done? Past sessions are done more often than not, future ones rarely.
        d < 0 ? chance(0.35) : chance(0.05)
    }

    /// A course of one-off sessions: `count` parts, every `partsIn` days apart, starting a few
    /// days back, some missed.
    private mutating func course(
        partsIn gap: ClosedRange<Int>, markers: Bool, count: Int? = nil, early: Bool = false,
        allDay: Bool = false
    ) {
        let n = count ?? int(2...8)
        let title = pick(Self.courses)
        let style = markers ? int(0...11) : 11
        let category = pick(["Math", "English", "Science", "數學"])
        var day = today.adding(days: -int(0...6))
        let minute = startMinute(early: early)
        let length = pick([30, 45, 60, 90, 120])
        for part in 1...n {
            let offset = day.days(until: today) * -1
            let start = allDay ? at(day, 0) : at(day, max(0, minute + (chance(0.2) ? pick([-30, 30, 60]) : 0)))
            let end = allDay ? start : start.adding(minutes: length)
            tasks.append(
                StudyTask(
                    id: id(), userID: "s", title: title + Self.marker(style, part, n), category: category,
                    start: start, end: end, allDay: allDay, completed: state(daysFromToday: offset)))
            day = day.adding(days: int(gap))
        }
    }

    /// Two or three runs of daily sessions of one course with free days between them.
    private mutating func runsWithFreeDays() {
        let title = pick(Self.courses)
        var day = today.adding(days: -int(1...5))
        let minute = pick([10, 14, 16]) * 60
        for _ in 0..<int(2...3) {
            for _ in 0..<int(1...4) {
                tasks.append(
                    StudyTask(
                        id: id(), userID: "s", title: title, category: "Study", start: at(day, minute),
                        end: at(day, minute + 60), completed: state(daysFromToday: today.days(until: day))))
                day = day.adding(days: 1)
            }
            day = day.adding(days: int(1...3))
        }
    }

    /// A 30-day daily challenge (policy shift) that ends soon, with something fixed right after
    /// its end, so an appended session must pass over it.
    private mutating func challengeSeries() {
        let start = today.adding(days: -int(5...25))
        let until = start.adding(days: 29)
        let minute = startMinute()
        let taskID = id()
        tasks.append(
            StudyTask(
                id: taskID, userID: "s", title: "30-day challenge", category: "Health",
                start: at(start, minute), end: at(start, minute + 30),
                repeatRule: RepeatRule(every: .daily, until: until)))
        for d in 0..<start.days(until: today) where chance(0.5) {
            overrides.append(OccurrenceOverride(taskID: taskID, originalDate: start.adding(days: d), state: .completed))
        }
        for after in 1...3 where chance(0.7) {
            let day = until.adding(days: after)
            tasks.append(
                StudyTask(
                    id: id(), userID: "s", title: "Dentist", category: "Life", start: at(day, minute - 15),
                    end: at(day, minute + 45)))
        }
    }

    private mutating func appointment(daysAhead: Int) {
        let day = today.adding(days: daysAhead)
        let minute = int(8...20) * 60
        tasks.append(
            StudyTask(
                id: id(), userID: "s", title: pick(["Dentist", "Meeting", "Exam"]), category: "Life",
                start: at(day, minute), end: at(day, minute + pick([30, 60, 120]))))
    }

    /// A series of any kind and policy, with some days done, some skipped, and maybe a session
    /// an earlier night appended after its end.
    private mutating func series(
        startDaysAgo: Int? = nil, marked: Double = 0.6, early: Bool = false, allDay: Bool = false
    ) {
        let every = pick([RepeatRule.Frequency.daily, .daily, .weekly, .monthly])
        let start = today.adding(days: -(startDaysAgo ?? int(1...40)))
        let until: CivilDate? = chance(0.6) ? today.adding(days: int(-2...30)) : nil
        let missed: RepeatRule.MissedPolicy? = chance(0.3) ? pick(RepeatRule.MissedPolicy.allCases) : nil
        let minute = startMinute(early: early)
        let taskID = id()
        let task = StudyTask(
            id: taskID, userID: "s", title: pick(["Vocab", "Stretch", "Piano lesson", "Review"]),
            category: pick(["English", "Health", "Music"]),
            start: allDay ? at(start, 0) : at(start, minute),
            end: allDay ? at(start, 0) : at(start, minute + pick([15, 30, 60])),
            allDay: allDay, repeatRule: RepeatRule(every: every, until: until.map { max($0, start) }, missed: missed))
        tasks.append(task)
        var n = 0
        while true {
            let date = OccurrenceExpander.recurrenceDate(of: task, index: n)
            n += 1
            if date >= today.adding(days: 20) || (task.repeatRule?.until.map { date > $0 } ?? false) { break }
            if chance(marked) {
                let past = date < today
                overrides.append(
                    OccurrenceOverride(
                        taskID: taskID, originalDate: date,
                        state: past && chance(0.8) ? .completed : .skipped))
            } else if date >= today, chance(0.1), !allDay {
                // Moved by the student a day later.
                let s = at(date.adding(days: 1), minute + 60)
                overrides.append(
                    OccurrenceOverride(
                        taskID: taskID, originalDate: date, state: .open, start: s,
                        end: s.adding(minutes: task.lengthMinutes)))
            }
        }
    }

    private mutating func oneOff(
        daysFromToday d: Int, minutes: Int = 60, category: String = "Study", allDay: Bool = false,
        days: Int = 1
    ) {
        let day = today.adding(days: d)
        let start = allDay ? at(day, 0) : at(day, startMinute())
        let end = allDay ? at(day.adding(days: days - 1), 0) : start.adding(minutes: minutes)
        tasks.append(
            StudyTask(
                id: id(), userID: "s", title: pick(["Essay", "Lab report", "Old reading", "Exam prep"]),
                category: category, start: start, end: end, allDay: allDay,
                completed: state(daysFromToday: d)))
    }

    private mutating func fixed(day: Int, hour: Int, minutes: Int) {
        let d = today.adding(days: day)
        tasks.append(
            StudyTask(
                id: id(), userID: "s", title: "Fixed \(taskNumber)", category: "Fixed",
                start: at(d, hour * 60), end: at(d, hour * 60 + minutes), completed: day < 0 && chance(0.5)))
    }

    /// Unrelated sessions around today: they block slots.
    private mutating func fillers(_ count: Int, early: Bool = false) {
        for _ in 0..<count {
            let d = int(-4...10)
            let day = today.adding(days: d)
            let start = at(day, startMinute(early: early))
            tasks.append(
                StudyTask(
                    id: id(), userID: "s", title: pick(["Club", "Lab", "Seminar", "Group work"]),
                    category: pick(["社團", "Lab", "Seminar"]), start: start,
                    end: start.adding(minutes: pick([30, 60, 90])),
                    completed: state(daysFromToday: d)))
        }
    }
}
