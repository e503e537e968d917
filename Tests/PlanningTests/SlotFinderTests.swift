import ReplanTestSupport
import Testing

@testable import Planning

/// docs/planning.md §6: the general search.
@Suite struct SlotFinderTests {
    // Tuesday 2025-01-07, 03:00.
    let now = at("2025-01-07T03:00")

    private func finder(
        _ windows: WeeklyWindows = .standard, horizon: Int = 14, now: CivilDateTime? = nil,
        zone: UserZone? = nil
    ) -> SlotFinder {
        SlotFinder(windows: windows, horizonDays: horizon, now: now ?? self.now, zone: zone)
    }

    private func busy(_ ranges: [(String, String)], title: String = "Physics") -> BusyIndex {
        BusyIndex(
            ranges.enumerated().map { i, r in
                Occurrence(
                    id: OccurrenceID(taskID: "b\(i)"), title: title, category: "Physics", start: at(r.0),
                    end: at(r.1))
            })
    }

    @Test func keepsTheOriginalTimeOfDayWhenItIsFree() {
        let r = finder().slot(
            length: 60, preferredTime: timeOfDay("10:00"), from: date("2025-01-07"), busy: BusyIndex())
        #expect(r == range("2025-01-07T10:00", "2025-01-07T11:00"))
    }

    @Test func clampsTheTimeIntoTheWindow() {
        let r = finder().slot(
            length: 60, preferredTime: timeOfDay("20:00"), from: date("2025-01-07"), busy: BusyIndex())
        #expect(r == range("2025-01-07T16:00", "2025-01-07T17:00"))
    }

    @Test func theEarliestDayWinsOverABetterTime() {
        let b = busy([("2025-01-07T09:00", "2025-01-07T16:30")])
        let r = finder().slot(length: 60, preferredTime: timeOfDay("10:00"), from: date("2025-01-07"), busy: b)
        #expect(r == range("2025-01-08T10:00", "2025-01-08T11:00"))
    }

    @Test func theClosestTimeWinsWithinADay() {
        let b = busy([("2025-01-07T10:00", "2025-01-07T12:00")])
        let r = finder().slot(length: 60, preferredTime: timeOfDay("11:30"), from: date("2025-01-07"), busy: b)
        #expect(r == range("2025-01-07T12:00", "2025-01-07T13:00")) // 30 min away, 09:00 would be 150
    }

    @Test func tiesGoToTheSmallerGap() {
        // 10:00 is busy; 09:00 (gap 09–10) and 11:00 (gap 11–17) are both 60 minutes away.
        let b = busy([("2025-01-07T10:00", "2025-01-07T11:00")])
        let r = finder().slot(length: 60, preferredTime: timeOfDay("10:00"), from: date("2025-01-07"), busy: b)
        #expect(r == range("2025-01-07T09:00", "2025-01-07T10:00"))
    }

    @Test func thenToTheEarlierStart() {
        let w = Fx.windows([.tue: ["09:00-10:00", "11:00-12:00"]])
        let r = finder(w).slot(
            length: 60, preferredTime: timeOfDay("10:00"), from: date("2025-01-07"), busy: BusyIndex())
        #expect(r == range("2025-01-07T09:00", "2025-01-07T10:00")) // 11:00 is as close, in as large a gap
    }

    @Test func daysWithoutWindowsAreSkipped() {
        let r = finder().slot(
            length: 60, preferredTime: timeOfDay("10:00"), from: date("2025-01-11"), busy: BusyIndex())
        #expect(r == range("2025-01-13T10:00", "2025-01-13T11:00"))
    }

    @Test func nothingStartsBeforeNow() {
        let r = finder(now: at("2025-01-07T15:20")).slot(
            length: 60, preferredTime: timeOfDay("10:00"),
            from: date("2025-01-07"), busy: BusyIndex())
        #expect(r == range("2025-01-07T15:20", "2025-01-07T16:20"))
    }

    @Test func nothingStartsBeforeNotBefore() {
        let r = finder().slot(
            length: 60, preferredTime: timeOfDay("10:00"), from: date("2025-01-07"),
            notBefore: at("2025-01-07T12:00"), busy: BusyIndex())
        #expect(r == range("2025-01-07T12:00", "2025-01-07T13:00"))
    }

    @Test func theSessionBeingPlacedDoesNotBlockItself() {
        let b = busy([("2025-01-07T10:00", "2025-01-07T11:00")])
        let r = finder().slot(
            length: 60, preferredTime: timeOfDay("10:00"), from: date("2025-01-07"), busy: b,
            ignoring: [OccurrenceID(taskID: "b0")])
        #expect(r == range("2025-01-07T10:00", "2025-01-07T11:00"))
    }

    @Test func aSessionLongerThanEveryGapFitsNowhere() {
        #expect(
            finder().slot(
                length: 9 * 60, preferredTime: timeOfDay("10:00"), from: date("2025-01-07"), busy: BusyIndex())
                == nil)
    }

    @Test func theHorizonBoundsTheSearch() {
        let b = busy((7...9).map { ("2025-01-0\($0)T09:00", "2025-01-0\($0)T17:00") })
        #expect(
            finder(horizon: 2).slot(length: 60, preferredTime: timeOfDay("10:00"), from: date("2025-01-07"), busy: b)
                == nil)
        #expect(
            finder(horizon: 3).slot(length: 60, preferredTime: timeOfDay("10:00"), from: date("2025-01-07"), busy: b)
                == range("2025-01-10T10:00", "2025-01-10T11:00"))
    }

    @Test func aLunchGapSplitsTheDay() {
        let w = Fx.windows([.tue: ["09:00-12:00", "13:00-17:00"]])
        let r = finder(w).slot(
            length: 60, preferredTime: timeOfDay("12:15"), from: date("2025-01-07"), busy: BusyIndex())
        #expect(r == range("2025-01-07T13:00", "2025-01-07T14:00"))
        #expect(finder(w).gaps(on: date("2025-01-07"), notBefore: 0, busy: BusyIndex()).count == 2)
    }

    @Test func minutesSkippedByTheClocksAreNotFree() {
        // New York springs forward at 02:00 on 2025-03-09; 02:00–03:00 never shows.
        let w = Fx.windows(Dictionary(uniqueKeysWithValues: Weekday.allCases.map { ($0, ["00:00-24:00"]) }))
        let f = finder(w, now: at("2025-03-09T00:00"), zone: Fx.newYork)
        let r = f.slot(length: 30, preferredTime: timeOfDay("02:45"), from: date("2025-03-09"), busy: BusyIndex())
        #expect(r == range("2025-03-09T03:00", "2025-03-09T03:30"))
        #expect(
            Fx.newYork.skippedMinutes(on: date("2025-03-09")) == at("2025-03-09T02:00")
                .minuteNumber..<at("2025-03-09T03:00").minuteNumber)
        #expect(Fx.newYork.skippedMinutes(on: date("2025-11-02")) == nil) // falling back skips nothing
        #expect(
            Fx.berlin.skippedMinutes(on: date("2025-03-30")) == at("2025-03-30T02:00")
                .minuteNumber..<at("2025-03-30T03:00").minuteNumber)
        #expect(Fx.taipei.skippedMinutes(on: date("2025-03-09")) == nil)
    }

    @Test func allDaySessionsGoToTheFirstDayWithoutAnotherOfTheirKey() {
        let exam = { (id: String, day: String, title: String) in
            Occurrence(
                id: OccurrenceID(taskID: id), title: title, category: "Exam", start: at("\(day)T00:00"),
                end: at("\(day)T00:00"), allDay: true)
        }
        var b = BusyIndex([
            exam("a", "2025-01-07", "Revision"), exam("b", "2025-01-08", "Revision"),
            exam("c", "2025-01-09", "Holiday"),
        ])
        b.insert(
            Occurrence(
                id: OccurrenceID(taskID: "t"), title: "Revision", category: "Exam",
                start: at("2025-01-09T10:00"), end: at("2025-01-09T11:00")))
        let key = ChainKey(title: "Revision", category: "Exam")
        // Another key's all-day session and a timed session of the same key do not block.
        #expect(finder().allDaySlot(days: 1, key: key, from: date("2025-01-07"), busy: b) == date("2025-01-09"))
        // never before today
        #expect(finder().allDaySlot(days: 1, key: key, from: date("2025-01-06"), busy: b) == date("2025-01-09"))
        #expect(
            finder().allDaySlot(
                days: 1, key: key, from: date("2025-01-07"), busy: b, ignoring: [OccurrenceID(taskID: "a")])
                == date("2025-01-07"))
    }
}
