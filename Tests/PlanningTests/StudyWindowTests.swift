import Planning
import ReplanTestSupport
import Testing

@Suite("StudyWindow")
struct StudyWindowTests {
    @Test(
        "parses HH:MM-HH:MM",
        arguments: [("09:00-17:00", 540, 1020), ("00:00-00:15", 0, 15), ("14:30-15:45", 870, 945)])
    func parses(_ text: String, _ start: Int, _ end: Int) throws {
        let w = try StudyWindow(text)
        #expect(w.start.minutes == start)
        #expect(w.end.minutes == end)
        #expect(w.minutes == end - start)
        #expect(w.description == text)
    }

    @Test("24:00 is allowed as an end, not as a start")
    func endOfDay() throws {
        let w = try StudyWindow("20:00-24:00")
        #expect(w.end.minutes == 1440)
        #expect(w.minutes == 240)
        #expect(w.description == "20:00-24:00")
        #expect(throws: DataError.self) { try StudyWindow("24:00-24:00") }
    }

    @Test("spaces around the times are allowed, as ever")
    func spaces() throws {
        #expect(try StudyWindow(" 09:00 - 17:00").description == "09:00-17:00")
    }

    @Test("start must be before end", arguments: ["17:00-09:00", "09:00-09:00"])
    func startBeforeEnd(_ text: String) {
        #expect(throws: DataError.self) { try StudyWindow(text) }
    }

    @Test(
        "garbage is not a window",
        arguments: [
            "", "09:00", "9:00-17:00", "09:00-17", "09:00–17:00", "09:00-17:00-18:00", "09:60-10:00", "ab:cd-ef:gh",
            "09:00-24:30", "25:00-26:00", "09:00_17:00",
        ])
    func garbage(_ text: String) {
        #expect(throws: DataError(path: "", message: "window '\(text)' is not HH:MM-HH:MM")) { try StudyWindow(text) }
    }

    @Test("windows of a day are kept sorted by start")
    func sortedByStart() throws {
        let week = try WeeklyWindows(text: [.mon: ["14:00-17:00", "09:00-12:00"]])
        #expect(week.windows(on: .mon).map(\.description) == ["09:00-12:00", "14:00-17:00"])
        #expect(week.windows(on: .tue).isEmpty)
    }

    @Test("touching windows do not overlap")
    func touchingWindows() throws {
        let week = try WeeklyWindows(text: [.wed: ["09:00-12:00", "12:00-14:00"]])
        #expect(week.windows(on: .wed).count == 2)
    }

    @Test("overlapping windows are rejected with the weekday in the error path")
    func overlapNamesTheWeekday() {
        #expect(throws: DataError(path: "tue", message: "windows 09:00-12:00 and 11:00-13:00 overlap")) {
            try WeeklyWindows(text: [.mon: ["09:00-12:00"], .tue: ["11:00-13:00", "09:00-12:00"]])
        }
        // A window inside another overlaps too.
        #expect(throws: DataError(path: "fri", message: "windows 09:00-17:00 and 10:00-11:00 overlap")) {
            try WeeklyWindows(text: [.fri: ["09:00-17:00", "12:00-13:00", "10:00-11:00"]])
        }
    }

    @Test("a bad range is reported at weekday[index]")
    func badRangePath() {
        #expect(throws: DataError(path: "thu[1]", message: "window 17:00-09:00 must start before it ends")) {
            try WeeklyWindows(text: [.thu: ["08:00-09:00", "17:00-09:00"]])
        }
    }

    @Test("of several bad days the first weekday is reported, every time")
    func firstBadDayIsReported() {
        for _ in 0..<20 {
            #expect(throws: DataError(path: "mon", message: "windows 09:00-12:00 and 10:00-11:00 overlap")) {
                try WeeklyWindows(text: [
                    .sun: ["09:00-12:00", "10:00-11:00"], .mon: ["09:00-12:00", "10:00-11:00"],
                    .thu: ["09:00-12:00", "10:00-11:00"],
                ])
            }
        }
    }

    @Test("defaults are Mon–Fri 09:00–17:00 and nothing on the weekend")
    func standardWindows() {
        let week = WeeklyWindows.standard
        for day in [Weekday.mon, .tue, .wed, .thu, .fri] {
            #expect(week.windows(on: day).map(\.description) == ["09:00-17:00"])
        }
        #expect(week.windows(on: .sat).isEmpty)
        #expect(week.windows(on: .sun).isEmpty)
    }

    @Test("with windows off every day has 08:00–22:00", arguments: Weekday.allCases)
    func windowsOff(_ day: Weekday) {
        #expect(
            WeeklyWindows.windowsOff.windows(on: day) == [
                try! StudyWindow(start: timeOfDay("08:00"), end: timeOfDay("22:00"))
            ])
    }
}
