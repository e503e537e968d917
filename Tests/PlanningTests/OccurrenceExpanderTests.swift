import ReplanTestSupport
import Testing

@testable import Planning

private func oneOff(_ start: String, _ end: String, id: String = "essay", allDay: Bool = false, completed: Bool = false)
    -> StudyTask
{
    StudyTask(
        id: id, userID: "mei", title: "Essay", category: "作業", start: at(start), end: at(end),
        allDay: allDay, completed: completed)
}

private func series(
    _ start: String, _ end: String, _ every: RepeatRule.Frequency, id: String = "vocab",
    until: String? = nil, allDay: Bool = false
) -> StudyTask {
    StudyTask(
        id: id, userID: "mei", title: "Vocab", category: "English", start: at(start), end: at(end),
        allDay: allDay, repeatRule: RepeatRule(every: every, until: until.map(date)))
}

private func expand(
    _ tasks: [StudyTask], in zone: String = "Asia/Taipei", overrides: [OccurrenceOverride] = [],
    slides: [SeriesSlide] = [], from: String, through: String
) -> [Occurrence] {
    OccurrenceExpander(zone: try! UserZone(identifier: zone))
        .occurrences(of: tasks, overrides: overrides, slides: slides, from: date(from), through: date(through))
}

/// "id start–end" lines: what a student would check on a calendar.
private func places(_ occurrences: [Occurrence]) -> [String] {
    occurrences.map { "\($0.id) \($0.start)–\($0.end)" }
}

private func starts(_ occurrences: [Occurrence]) -> [String] { occurrences.map { $0.start.description } }
private func dates(_ occurrences: [Occurrence]) -> [String] { occurrences.map { $0.start.date.description } }

@Suite("OccurrenceExpander: one-off tasks")
struct OneOffExpansionTests {
    @Test("a one-off task has one occurrence, id TASKID, when it touches the range")
    func insideRange() {
        let task = oneOff("2025-01-06T10:00", "2025-01-06T11:00")
        #expect(
            places(expand([task], from: "2025-01-06", through: "2025-01-06")) == [
                "essay 2025-01-06T10:00–2025-01-06T11:00"
            ])
        let o = expand([task], from: "2025-01-01", through: "2025-01-31")
        #expect(o.count == 1)
        #expect(o.first?.id == OccurrenceID(taskID: "essay"))
        #expect(o.first?.state == .open)
        #expect(o.first?.isSeriesOccurrence == false)
        #expect(o.first?.series == nil)
    }

    @Test("a one-off task outside the range has no occurrence there")
    func outsideRange() {
        let task = oneOff("2025-01-06T10:00", "2025-01-06T11:00")
        #expect(expand([task], from: "2025-01-07", through: "2025-01-10").isEmpty)
        #expect(expand([task], from: "2025-01-01", through: "2025-01-05").isEmpty)
    }

    @Test("a session past midnight touches the next day; one ending at midnight does not")
    func acrossMidnight() {
        #expect(
            expand([oneOff("2025-01-06T23:00", "2025-01-07T01:00")], from: "2025-01-07", through: "2025-01-07").count
                == 1)
        #expect(
            expand([oneOff("2025-01-06T23:00", "2025-01-07T00:00")], from: "2025-01-07", through: "2025-01-07").isEmpty)
    }

    @Test("an all-day task touches every day from its first to its last, inclusive")
    func allDay() {
        let trip = oneOff("2025-01-06T00:00", "2025-01-08T00:00", allDay: true)
        #expect(expand([trip], from: "2025-01-08", through: "2025-01-10").count == 1)
        #expect(expand([trip], from: "2025-01-09", through: "2025-01-10").isEmpty)
        #expect(expand([trip], from: "2025-01-01", through: "2025-01-06").first?.lastDate == date("2025-01-08"))
    }

    @Test("a completed one-off task is a completed occurrence")
    func completed() {
        let done = oneOff("2025-01-06T10:00", "2025-01-06T11:00", completed: true)
        #expect(expand([done], from: "2025-01-06", through: "2025-01-06").first?.state == .completed)
    }

    @Test("an empty or reversed range has nothing")
    func emptyRange() {
        let task = oneOff("2025-01-06T10:00", "2025-01-06T11:00")
        #expect(expand([task], from: "2025-01-07", through: "2025-01-06").isEmpty)
    }
}

@Suite("OccurrenceExpander: series")
struct SeriesExpansionTests {
    @Test("a daily series has one occurrence per day, id TASKID@date")
    func daily() {
        let o = expand(
            [series("2025-01-06T10:00", "2025-01-06T11:00", .daily, until: "2025-01-10")],
            from: "2025-01-01", through: "2025-01-31")
        #expect(
            places(o) == [
                "vocab@2025-01-06 2025-01-06T10:00–2025-01-06T11:00",
                "vocab@2025-01-07 2025-01-07T10:00–2025-01-07T11:00",
                "vocab@2025-01-08 2025-01-08T10:00–2025-01-08T11:00",
                "vocab@2025-01-09 2025-01-09T10:00–2025-01-09T11:00",
                "vocab@2025-01-10 2025-01-10T10:00–2025-01-10T11:00",
            ])
        #expect(o.allSatisfy { $0.series == .daily && $0.state == .open && $0.isSeriesOccurrence })
    }

    @Test(
        "until is inclusive: an occurrence on the until date exists, the next does not",
        arguments: [
            (RepeatRule.Frequency.daily, "2025-01-10", "2025-01-11"),
            (.weekly, "2025-01-20", "2025-01-27"),
            (.monthly, "2025-03-06", "2025-04-06"),
        ])
    func untilInclusive(_ every: RepeatRule.Frequency, _ until: String, _ next: String) {
        let task = series("2025-01-06T10:00", "2025-01-06T11:00", every, until: until)
        let o = expand([task], from: "2025-01-01", through: "2025-12-31")
        #expect(o.last?.id.description == "vocab@\(until)")
        #expect(expand([task], from: next, through: next).isEmpty)
        #expect(!OccurrenceExpander.isRecurrenceDate(date(next), of: task))
        #expect(OccurrenceExpander.isRecurrenceDate(date(until), of: task))
    }

    @Test("a series without until goes on")
    func noUntil() {
        let task = series("2025-01-06T10:00", "2025-01-06T11:00", .weekly)
        #expect(dates(expand([task], from: "2030-01-01", through: "2030-01-14")) == ["2030-01-07", "2030-01-14"])
    }

    @Test("nothing before the first session")
    func beforeStart() {
        let task = series("2025-01-06T10:00", "2025-01-06T11:00", .daily)
        #expect(expand([task], from: "2024-12-01", through: "2025-01-05").isEmpty)
        #expect(dates(expand([task], from: "2024-12-01", through: "2025-01-07")) == ["2025-01-06", "2025-01-07"])
    }

    @Test("weekly keeps the weekday")
    func weeklyKeepsWeekday() {
        let task = series("2025-01-06T10:00", "2025-01-06T11:00", .weekly) // a Monday
        let o = expand([task], from: "2025-01-01", through: "2025-03-31")
        #expect(o.count == 13)
        #expect(o.allSatisfy { $0.start.date.weekday == .mon && $0.start.time == TimeOfDay(hour: 10, minute: 0) })
        #expect(expand([task], from: "2025-01-07", through: "2025-01-12").isEmpty)
        #expect(dates(expand([task], from: "2025-02-28", through: "2025-03-10")) == ["2025-03-03", "2025-03-10"])
    }

    @Test("monthly on the 31st falls on the last day of shorter months and returns to the 31st")
    func monthlyOn31st() {
        let task = series("2025-01-31T18:00", "2025-01-31T19:00", .monthly)
        #expect(
            dates(expand([task], from: "2025-01-01", through: "2025-12-31")) == [
                "2025-01-31", "2025-02-28", "2025-03-31", "2025-04-30", "2025-05-31", "2025-06-30",
                "2025-07-31", "2025-08-31", "2025-09-30", "2025-10-31", "2025-11-30", "2025-12-31",
            ])
        #expect(dates(expand([task], from: "2028-02-01", through: "2028-03-31")) == ["2028-02-29", "2028-03-31"])
        #expect(OccurrenceExpander.isRecurrenceDate(date("2025-02-28"), of: task))
        #expect(!OccurrenceExpander.isRecurrenceDate(date("2025-03-28"), of: task))
        #expect(!OccurrenceExpander.isRecurrenceDate(date("2025-04-29"), of: task))
    }

    @Test("until on a clamped month end includes it; the day before excludes the month")
    func monthlyUntilMonthEnd() {
        let through = series("2025-01-31T18:00", "2025-01-31T19:00", .monthly, until: "2025-04-30")
        #expect(dates(expand([through], from: "2025-01-01", through: "2025-12-31")).last == "2025-04-30")
        let before = series("2025-01-31T18:00", "2025-01-31T19:00", .monthly, until: "2025-04-29")
        #expect(dates(expand([before], from: "2025-01-01", through: "2025-12-31")).last == "2025-03-31")
    }

    @Test("ids of a clamped monthly occurrence use the date it actually falls on")
    func monthlyIDs() {
        let task = series("2025-01-31T18:00", "2025-01-31T19:00", .monthly)
        #expect(expand([task], from: "2025-02-01", through: "2025-02-28").map(\.id.description) == ["vocab@2025-02-28"])
    }

    @Test("monthly on the 30th: Jan 30 → Feb 28 → Mar 30")
    func monthlyOn30th() {
        let task = series("2025-01-30T18:00", "2025-01-30T19:00", .monthly)
        #expect(
            dates(expand([task], from: "2025-01-01", through: "2025-04-30")) == [
                "2025-01-30", "2025-02-28", "2025-03-30", "2025-04-30",
            ])
    }

    @Test("monthly from Feb 29 of a leap year: the 29th, and Feb 28 in common years")
    func monthlyFromLeapDay() {
        let task = series("2024-02-29T09:00", "2024-02-29T10:00", .monthly)
        #expect(
            dates(expand([task], from: "2024-02-01", through: "2024-05-31")) == [
                "2024-02-29", "2024-03-29", "2024-04-29", "2024-05-29",
            ])
        #expect(
            dates(expand([task], from: "2025-01-01", through: "2025-03-31")) == [
                "2025-01-29", "2025-02-28", "2025-03-29",
            ])
        #expect(dates(expand([task], from: "2028-02-01", through: "2028-02-29")) == ["2028-02-29"])
        #expect(expand([task], from: "2024-02-01", through: "2028-02-29").count == 49)
    }

    @Test("an all-day series repeats its days; a two-day one touches the range from the day before")
    func allDaySeries() {
        let task = series("2025-01-04T00:00", "2025-01-05T00:00", .weekly, allDay: true) // Sat–Sun
        let o = expand([task], from: "2025-01-12", through: "2025-01-12")
        #expect(places(o) == ["vocab@2025-01-11 2025-01-11T00:00–2025-01-12T00:00"])
        #expect(o.first?.allDay == true)
        #expect(o.first?.lengthMinutes == 2 * 1440)
    }

    @Test("a session past midnight touches the range from the day before")
    func seriesAcrossMidnight() {
        let task = series("2025-01-06T23:00", "2025-01-07T01:00", .daily)
        #expect(
            places(expand([task], from: "2025-01-08", through: "2025-01-08")) == [
                "vocab@2025-01-07 2025-01-07T23:00–2025-01-08T01:00",
                "vocab@2025-01-08 2025-01-08T23:00–2025-01-09T01:00",
            ])
    }

    @Test("occurrences of several tasks are sorted by start, then id")
    func sorted() {
        let a = series("2025-01-06T10:00", "2025-01-06T11:00", .daily, id: "a")
        let b = series("2025-01-06T09:00", "2025-01-06T10:00", .daily, id: "b")
        let c = oneOff("2025-01-07T10:00", "2025-01-07T11:00", id: "c")
        #expect(
            expand([c, a, b], from: "2025-01-06", through: "2025-01-07").map(\.id.description) == [
                "b@2025-01-06", "a@2025-01-06", "b@2025-01-07", "a@2025-01-07", "c",
            ])
    }
}

@Suite("OccurrenceExpander: DST nights")
struct DSTExpansionTests {
    @Test("a 02:30 series sits at 03:30 on New York's spring-forward night and back at 02:30 the next day")
    func springForwardGap() {
        let task = series("2025-03-07T02:30", "2025-03-07T03:00", .daily)
        #expect(
            places(expand([task], in: "America/New_York", from: "2025-03-08", through: "2025-03-10")) == [
                "vocab@2025-03-08 2025-03-08T02:30–2025-03-08T03:00",
                "vocab@2025-03-09 2025-03-09T03:30–2025-03-09T04:00",
                "vocab@2025-03-10 2025-03-10T02:30–2025-03-10T03:00",
            ])
    }

    @Test("a series across New York's spring-forward gap lasts its length in elapsed minutes and never ends in it")
    func springForwardLength() {
        // 01:30–03:00 is 90 minutes; on 03-09 the clock skips 02:00–03:00, so it ends at 04:00
        // (a plain 03:00 would be 30 minutes). 01:00–02:30 would end at a time that does not exist.
        let late = series("2025-03-07T01:30", "2025-03-07T03:00", .daily)
        #expect(
            places(expand([late], in: "America/New_York", from: "2025-03-08", through: "2025-03-10")) == [
                "vocab@2025-03-08 2025-03-08T01:30–2025-03-08T03:00",
                "vocab@2025-03-09 2025-03-09T01:30–2025-03-09T04:00",
                "vocab@2025-03-10 2025-03-10T01:30–2025-03-10T03:00",
            ])
        let early = series("2025-03-07T01:00", "2025-03-07T02:30", .daily)
        #expect(
            places(expand([early], in: "America/New_York", from: "2025-03-09", through: "2025-03-09")) == [
                "vocab@2025-03-09 2025-03-09T01:00–2025-03-09T03:30"
            ])
    }

    @Test("a 02:30 series sits at 03:30 on Berlin's spring-forward night")
    func springForwardBerlin() {
        let task = series("2025-03-01T02:30", "2025-03-01T03:00", .daily)
        #expect(
            starts(expand([task], in: "Europe/Berlin", from: "2025-03-29", through: "2025-03-31")) == [
                "2025-03-29T02:30", "2025-03-30T03:30", "2025-03-31T02:30",
            ])
    }

    @Test(
        "a daily 20:00 session stays at 20:00 across DST changes",
        arguments: [
            ("America/New_York", "2025-03-05", "2025-03-12"), ("America/New_York", "2025-10-29", "2025-11-05"),
            ("Europe/Berlin", "2025-03-26", "2025-04-02"), ("Europe/Berlin", "2025-10-22", "2025-10-29"),
            ("Asia/Taipei", "2025-03-05", "2025-03-12"),
        ])
    func eveningStaysPut(_ zone: String, _ from: String, _ through: String) {
        let task = series("2025-01-01T20:00", "2025-01-01T20:30", .daily)
        let o = expand([task], in: zone, from: from, through: through)
        #expect(o.count == 8)
        #expect(
            o.allSatisfy {
                $0.start.time == TimeOfDay(hour: 20, minute: 0) && $0.end.time == TimeOfDay(hour: 20, minute: 30)
            })
    }

    @Test("on the fall-back night 01:30 happens twice but the session exists once")
    func fallBackOnce() {
        let task = series("2025-10-30T01:30", "2025-10-30T02:00", .daily)
        let o = expand([task], in: "America/New_York", from: "2025-11-02", through: "2025-11-02")
        #expect(places(o) == ["vocab@2025-11-02 2025-11-02T01:30–2025-11-02T02:00"])
        let berlin = series("2025-10-20T02:30", "2025-10-20T03:00", .daily)
        #expect(
            places(expand([berlin], in: "Europe/Berlin", from: "2025-10-26", through: "2025-10-26")) == [
                "vocab@2025-10-26 2025-10-26T02:30–2025-10-26T03:00"
            ])
    }

    @Test("Taipei has no DST: 02:30 stays 02:30 on New York's and Berlin's nights")
    func taipeiUnaffected() {
        let task = series("2025-03-01T02:30", "2025-03-01T03:00", .daily)
        let o = expand([task], in: "Asia/Taipei", from: "2025-03-09", through: "2025-03-30")
        #expect(o.count == 22)
        #expect(o.allSatisfy { $0.start.time == TimeOfDay(hour: 2, minute: 30) })
    }
}

@Suite("OccurrenceExpander: overrides")
struct OverrideExpansionTests {
    let task = series("2025-01-06T10:00", "2025-01-06T11:00", .daily, until: "2025-01-10")

    @Test("completed and skipped overrides set the state and keep the place")
    func states() {
        let o = expand(
            [task],
            overrides: [
                OccurrenceOverride(taskID: "vocab", originalDate: date("2025-01-06"), state: .completed),
                OccurrenceOverride(taskID: "vocab", originalDate: date("2025-01-07"), state: .skipped),
            ], from: "2025-01-06", through: "2025-01-08")
        #expect(o.map(\.state) == [.completed, .skipped, .open])
        #expect(starts(o) == ["2025-01-06T10:00", "2025-01-07T10:00", "2025-01-08T10:00"])
    }

    @Test("a moved occurrence appears at its new place under its original id")
    func moved() {
        let move = OccurrenceOverride(
            taskID: "vocab", originalDate: date("2025-01-08"), state: .open,
            start: at("2025-01-08T15:00"), end: at("2025-01-08T16:00"))
        #expect(
            places(expand([task], overrides: [move], from: "2025-01-08", through: "2025-01-08")) == [
                "vocab@2025-01-08 2025-01-08T15:00–2025-01-08T16:00"
            ])
    }

    @Test("an occurrence moved into the range from outside it appears")
    func movedIn() {
        let move = OccurrenceOverride(
            taskID: "vocab", originalDate: date("2025-01-06"), state: .open,
            start: at("2025-01-20T15:00"), end: at("2025-01-20T16:00"))
        #expect(
            places(expand([task], overrides: [move], from: "2025-01-20", through: "2025-01-26")) == [
                "vocab@2025-01-06 2025-01-20T15:00–2025-01-20T16:00"
            ])
    }

    @Test("an occurrence moved out of the range disappears from it")
    func movedOut() {
        let move = OccurrenceOverride(
            taskID: "vocab", originalDate: date("2025-01-08"), state: .open,
            start: at("2025-01-20T15:00"), end: at("2025-01-20T16:00"))
        #expect(
            dates(expand([task], overrides: [move], from: "2025-01-06", through: "2025-01-10")) == [
                "2025-01-06", "2025-01-07", "2025-01-09", "2025-01-10",
            ])
    }

    @Test("a moved occurrence can be completed")
    func movedAndCompleted() {
        let move = OccurrenceOverride(
            taskID: "vocab", originalDate: date("2025-01-08"), state: .completed,
            start: at("2025-01-08T15:00"), end: at("2025-01-08T16:00"))
        let o = expand([task], overrides: [move], from: "2025-01-08", through: "2025-01-08")
        #expect(o.map(\.state) == [.completed])
        #expect(starts(o) == ["2025-01-08T15:00"])
    }

    @Test("overrides of dates that are not occurrences, or of other tasks, change nothing")
    func strayOverrides() {
        let weekly = series("2025-01-06T10:00", "2025-01-06T11:00", .weekly)
        let o = expand(
            [weekly],
            overrides: [
                OccurrenceOverride(
                    taskID: "vocab", originalDate: date("2025-01-07"), state: .open,
                    start: at("2025-01-08T15:00"), end: at("2025-01-08T16:00")),
                OccurrenceOverride(
                    taskID: "vocab", originalDate: date("2025-01-30"), state: .open,
                    start: at("2025-01-08T15:00"), end: at("2025-01-08T16:00")),
                OccurrenceOverride(taskID: "other", originalDate: date("2025-01-06"), state: .skipped),
            ], from: "2025-01-06", through: "2025-01-12")
        #expect(places(o) == ["vocab@2025-01-06 2025-01-06T10:00–2025-01-06T11:00"])
        #expect(o.first?.state == .open)
        // 2025-01-30 is past until for a series ending 01-10: its move does not bring it back.
        #expect(
            expand(
                [task],
                overrides: [
                    OccurrenceOverride(
                        taskID: "vocab", originalDate: date("2025-01-11"), state: .open,
                        start: at("2025-01-08T15:00"), end: at("2025-01-08T16:00"))
                ], from: "2025-01-08", through: "2025-01-08"
            ).count == 1)
    }
}

@Suite("OccurrenceExpander: slides")
struct SlideExpansionTests {
    let task = series("2025-01-06T10:00", "2025-01-06T11:00", .daily, until: "2025-01-10")

    @Test("a slide of +1 from a date moves that and later occurrences a day; earlier ones stay")
    func oneSlide() {
        let o = expand(
            [task], slides: [SeriesSlide(taskID: "vocab", from: date("2025-01-08"), days: 1)],
            from: "2025-01-01", through: "2025-01-31")
        #expect(
            places(o) == [
                "vocab@2025-01-06 2025-01-06T10:00–2025-01-06T11:00",
                "vocab@2025-01-07 2025-01-07T10:00–2025-01-07T11:00",
                "vocab@2025-01-08 2025-01-09T10:00–2025-01-09T11:00",
                "vocab@2025-01-09 2025-01-10T10:00–2025-01-10T11:00",
                "vocab@2025-01-10 2025-01-11T10:00–2025-01-11T11:00",
            ])
    }

    @Test("slides add up")
    func slidesAddUp() {
        let o = expand(
            [task],
            slides: [
                SeriesSlide(taskID: "vocab", from: date("2025-01-08"), days: 1),
                SeriesSlide(taskID: "vocab", from: date("2025-01-09"), days: 2),
            ], from: "2025-01-01", through: "2025-01-31")
        #expect(
            o.map { "\($0.id.originalDate!)→\($0.start.date)" } == [
                "2025-01-06→2025-01-06", "2025-01-07→2025-01-07", "2025-01-08→2025-01-09",
                "2025-01-09→2025-01-12", "2025-01-10→2025-01-13",
            ])
    }

    @Test("a slid occurrence is found in the range it slid into, and not in the one it left")
    func slidAcrossRangeEdge() {
        let slides = [SeriesSlide(taskID: "vocab", from: date("2025-01-06"), days: 3)]
        #expect(
            expand([task], slides: slides, from: "2025-01-13", through: "2025-01-20").map(\.id.description) == [
                "vocab@2025-01-10"
            ])
        #expect(expand([task], slides: slides, from: "2025-01-06", through: "2025-01-08").isEmpty)
        #expect(
            expand([task], slides: slides, from: "2025-01-09", through: "2025-01-09").map(\.id.description) == [
                "vocab@2025-01-06"
            ])
    }

    @Test("a negative slide (an undone shift) pulls occurrences earlier, and they are found there")
    func negativeSlide() {
        let o = expand(
            [task], slides: [SeriesSlide(taskID: "vocab", from: date("2025-01-10"), days: -2)],
            from: "2025-01-08", through: "2025-01-08")
        #expect(o.map(\.id.description) == ["vocab@2025-01-08", "vocab@2025-01-10"])
    }

    @Test("slides of other series do not apply")
    func otherSeries() {
        let o = expand(
            [task], slides: [SeriesSlide(taskID: "other", from: date("2025-01-06"), days: 5)],
            from: "2025-01-06", through: "2025-01-06")
        #expect(dates(o) == ["2025-01-06"])
    }

    @Test("a slid occurrence keeps its overrides, keyed by original date")
    func slidWithOverride() {
        let o = expand(
            [task],
            overrides: [OccurrenceOverride(taskID: "vocab", originalDate: date("2025-01-08"), state: .completed)],
            slides: [SeriesSlide(taskID: "vocab", from: date("2025-01-08"), days: 1)],
            from: "2025-01-09", through: "2025-01-09")
        #expect(o.map(\.id.description) == ["vocab@2025-01-08"])
        #expect(o.map(\.state) == [.completed])
    }

    @Test("worked example 5: one +1 slide from 1/6 moves 1/6…1/31 to 1/7…2/1 at 20:00, history stays")
    func workedExample5() {
        let vocab = series("2025-01-01T20:00", "2025-01-01T20:30", .daily, until: "2025-01-31")
        let done = (1...5).map {
            OccurrenceOverride(taskID: "vocab", originalDate: date("2025-01-0\($0)"), state: .completed)
        }
        let o = expand(
            [vocab], overrides: done, slides: [SeriesSlide(taskID: "vocab", from: date("2025-01-06"), days: 1)],
            from: "2025-01-01", through: "2025-02-28")
        #expect(o.count == 31)
        #expect(o.prefix(5).map(\.state) == Array(repeating: .completed, count: 5))
        #expect(dates(Array(o.prefix(5))) == ["2025-01-01", "2025-01-02", "2025-01-03", "2025-01-04", "2025-01-05"])
        #expect(o.dropFirst(5).allSatisfy { $0.state == .open && $0.start.date == $0.id.originalDate!.adding(days: 1) })
        #expect(o.allSatisfy { $0.start.time == TimeOfDay(hour: 20, minute: 0) })
        #expect(places([o.last!]) == ["vocab@2025-01-31 2025-02-01T20:00–2025-02-01T20:30"])
        #expect(!o.contains { $0.start.date == date("2025-01-06") })
    }
}

@Suite("OccurrenceExpander: bounded work")
struct BoundedExpansionTests {
    @Test("a ten-year daily series over two weeks gives 14 occurrences")
    func tenYearsTwoWeeks() {
        let task = series("2025-01-01T20:00", "2025-01-01T20:30", .daily, until: "2034-12-31")
        let o = expand([task], from: "2030-06-03", through: "2030-06-16")
        #expect(o.count == 14)
        #expect(o.first?.id.description == "vocab@2030-06-03")
        #expect(o.last?.id.description == "vocab@2030-06-16")
        #expect(expand([task], from: "2025-01-01", through: "2034-12-31").count == 3652)
    }

    @Test(
        "only the recurrence dates near the range are visited, however long the series",
        arguments: [
            RepeatRule.Frequency.daily, .weekly, .monthly,
        ])
    func visitsOnlyNearbyDates(_ every: RepeatRule.Frequency) throws {
        let task = series("2025-01-31T20:00", "2025-01-31T20:30", every, until: "3025-01-31")
        let expander = OccurrenceExpander(zone: try UserZone(identifier: "Asia/Taipei"))
        let c = try #require(
            expander.candidates(of: task, slides: [], from: date("2900-06-02"), through: date("2900-06-15")))
        #expect(c.indexes.count <= 16)
    }

    @Test("a thousand-year daily series over two weeks, far from its start, is exact")
    func thousandYears() {
        let task = series("2025-01-06T10:00", "2025-01-06T11:00", .daily, until: "3025-01-06")
        let o = expand(
            [task], overrides: [OccurrenceOverride(taskID: "vocab", originalDate: date("2900-06-05"), state: .skipped)],
            slides: [SeriesSlide(taskID: "vocab", from: date("2900-06-10"), days: 1)],
            from: "2900-06-02", through: "2900-06-15")
        #expect(o.count == 13) // 06-15 slid to 06-16
        #expect(dates(o).first == "2900-06-02")
        #expect(dates(o).last == "2900-06-15")
        #expect(o.map(\.id.description).last == "vocab@2900-06-14")
        #expect(o.first { $0.id.description == "vocab@2900-06-05" }?.state == .skipped)
    }

    @Test("a thousand-year monthly series on the 31st still lands on month ends")
    func thousandYearsMonthly() {
        let task = series("2025-01-31T10:00", "2025-01-31T11:00", .monthly)
        #expect(
            dates(expand([task], from: "2900-02-01", through: "2900-04-30")) == [
                "2900-02-28", "2900-03-31", "2900-04-30",
            ])
        #expect(dates(expand([task], from: "3024-02-01", through: "3024-02-29")) == ["3024-02-29"])
    }
}

@Suite("OccurrenceID")
struct OccurrenceIDTests {
    @Test("one-off ids are the task id; series ids add @ and the original date")
    func text() {
        #expect(OccurrenceID(taskID: "essay").description == "essay")
        #expect(OccurrenceID(taskID: "eng-1", originalDate: date("2025-01-08")).description == "eng-1@2025-01-08")
        #expect(OccurrenceID("eng-1@2025-01-08") == OccurrenceID(taskID: "eng-1", originalDate: date("2025-01-08")))
        #expect(OccurrenceID("essay") == OccurrenceID(taskID: "essay"))
    }

    @Test(
        "malformed ids do not parse",
        arguments: ["", "@2025-01-08", "eng-1@", "eng-1@2025-02-30", "a@b@2025-01-08", "eng-1@2025-1-8"])
    func malformed(_ text: String) {
        #expect(OccurrenceID(text) == nil)
    }
}
