import Foundation
import ReplanTestSupport
import Testing

@testable import Planning

/// The version-2 rules at their edges (docs/planning.md §2–§7), each the case that broke version 1
/// or a decision the spec leaves open. Runs are at 03:00 in Asia/Taipei unless a test needs a
/// DST zone; 2025-01-06 is a Monday. Every test also runs the guarantee checker.
@Suite struct PostponerEdgeCaseTests {
    private func math(_ id: String, _ start: String, _ end: String, title: String = "Math") -> StudyTask {
        Fx.task(id, title, start, end, category: "Math")
    }

    @discardableResult
    private func night(
        _ plan: UserPlan, at now: String, sourceLocation: SourceLocation = #_sourceLocation
    ) -> PostponementResult {
        Fx.checkedNight(plan, at: now, sourceLocation: sourceLocation)
    }

    // MARK: - Chains (§5)

    @Test func aChainWhoseTodaySlotIsTakenTakesTheNearestFreeTimeOfThatDay_notScattered() {
        // Version 1 scattered the missed part when today's slot was taken; version 2 shifted
        // the course a day further; version 3 (§11) uses the nearest free time of today.
        let plan = Fx.plan([
            math("m1", "2025-01-06T10:00", "2025-01-06T11:00", title: "Math [1/3]"),
            math("m2", "2025-01-07T10:00", "2025-01-07T11:00", title: "Math [2/3]"),
            math("m3", "2025-01-08T10:00", "2025-01-08T11:00", title: "Math [3/3]"),
            Fx.task("club", "Club", "2025-01-07T09:30", "2025-01-07T10:30", category: "社團"),
        ])
        let r = night(plan, at: "2025-01-07T03:00")
        #expect(r.place("m1") == range("2025-01-07T10:30", "2025-01-07T11:30"))
        #expect(r.place("m2") == range("2025-01-08T10:00", "2025-01-08T11:00"))
        #expect(r.place("m3") == range("2025-01-09T10:00", "2025-01-09T11:00"))
        #expect(r.summary == PlanSummary(rescheduled: 3, chained: 3))
    }

    @Test func partsAFewDaysApartLinkByTheirNumbers_andLaterPartsAreNotPulledBack() {
        // §11 push, never pull: version 2 laid the course out daily, pulling 第3課 back.
        let plan = Fx.plan([
            math("p1", "2025-01-06T10:00", "2025-01-06T11:00", title: "數學 第1課"),
            math("p2", "2025-01-08T10:00", "2025-01-08T11:00", title: "數學 第2課"),
            math("p3", "2025-01-10T10:00", "2025-01-10T11:00", title: "數學 第3課"),
        ])
        let r = night(plan, at: "2025-01-07T03:00")
        #expect(
            [r.place("p1"), r.place("p2"), r.place("p3")] == [
                range("2025-01-07T10:00", "2025-01-07T11:00"), range("2025-01-08T10:00", "2025-01-08T11:00"),
                range("2025-01-10T10:00", "2025-01-10T11:00"),
            ])
        #expect(r.summary == PlanSummary(rescheduled: 1, chained: 1))
    }

    @Test func aCourseLongerThanTheHorizonIsReLaidOntoItsOwnLaterPartsWithoutOverlap() {
        // Version 1 checked nothing past today + 2 × horizonDays: a 40-part course landed on itself.
        let parts = (0..<40).map { i -> StudyTask in
            let day = date("2025-01-06").adding(days: i)
            return math("c\(i)", "\(day)T19:00", "\(day)T20:00", title: "Course [\(i + 1)/40]")
        }
        let r = night(Fx.plan(parts, settings: Fx.settings(enabled: false)), at: "2025-01-08T03:00")
        #expect(r.summary.chained == 40)
        #expect(r.place("c39") == range("2025-02-16T19:00", "2025-02-16T20:00"))
    }

    @Test func allOrNothing_aChainThatCannotBeLaidOutStaysAndItsMissedPartsAreFlagged() {
        // One window a week-day hour and a horizon of one day: m3 has nowhere to go.
        let windows = Fx.windows([.tue: ["10:00-11:00"], .wed: ["10:00-11:00"]])
        let plan = Fx.plan(
            [
                math("m1", "2025-01-06T10:00", "2025-01-06T11:00"),
                math("m2", "2025-01-07T10:00", "2025-01-07T11:00"),
                math("m3", "2025-01-08T10:00", "2025-01-08T11:00"),
            ], settings: Fx.settings(windows: windows, horizonDays: 1))
        let r = night(plan, at: "2025-01-07T03:00")
        #expect(r.edits.isEmpty)
        #expect(r.flags == [PlanFlag(id: id("m1"), kind: .couldNotFit, title: "Math")])
    }

    @Test func aMemberPlacedOutsideTheWindowsKeepsItsTimeOnDaysWithAWindow() {
        let plan = Fx.plan([
            math("m1", "2025-01-06T20:00", "2025-01-06T21:00"),
            math("m2", "2025-01-07T20:00", "2025-01-07T21:00"),
        ])
        let r = night(plan, at: "2025-01-07T03:00")
        #expect(r.place("m1") == range("2025-01-07T20:00", "2025-01-07T21:00"))
        #expect(r.place("m2") == range("2025-01-08T20:00", "2025-01-08T21:00"))
    }

    @Test func allDaySessionsChainByDate() {
        let plan = Fx.plan([
            Fx.task("r1", "Reading day", "2025-01-06T00:00", "2025-01-06T00:00", category: "English", allDay: true),
            Fx.task("r2", "Reading day", "2025-01-07T00:00", "2025-01-07T00:00", category: "English", allDay: true),
        ])
        let r = night(plan, at: "2025-01-07T03:00")
        #expect(
            r.edits == [
                move(
                    "r1", "Reading day", ("2025-01-06T00:00", "2025-01-06T00:00"),
                    ("2025-01-07T00:00", "2025-01-07T00:00"), .makeUp),
                move(
                    "r2", "Reading day", ("2025-01-07T00:00", "2025-01-07T00:00"),
                    ("2025-01-08T00:00", "2025-01-08T00:00"), .chainShift),
            ])
    }

    // MARK: - Series (§4)

    @Test func shiftPassesOverAFixedAppointmentWeeksAway() {
        let challenge = Fx.task(
            "ch", "30-day challenge", "2025-01-01T18:00", "2025-01-01T18:30", category: "Health",
            repeat: RepeatRule(every: .daily, until: date("2025-01-30")))
        let dentist = Fx.task("dentist", "Dentist", "2025-01-31T17:45", "2025-01-31T18:45", category: "Life")
        let done = (1...5).map { Fx.completed("ch", "2025-01-0\($0)") }
        let r = night(Fx.plan([challenge, dentist], overrides: done), at: "2025-01-07T03:00")
        #expect(r.edits.map(\.after) == [range("2025-02-01T18:00", "2025-02-01T18:30")])
    }

    @Test func shiftNeverPutsASessionOnADateTheStudentSkipped() {
        // Version 1's slide turned "not on 6 January" into "not on 8 January".
        let course = Fx.task(
            "c", "Course", "2025-01-01T18:00", "2025-01-01T18:30", category: "Math",
            repeat: RepeatRule(every: .daily, until: date("2025-01-10")))
        // Done 1–5, missed 6; the student already skipped 8. Appended after 10 → 11.
        let marks =
            (1...5).map { Fx.completed("c", "2025-01-0\($0)") }
            + [OccurrenceOverride(taskID: "c", originalDate: date("2025-01-08"), state: .skipped)]
        let r = night(Fx.plan([course], overrides: marks), at: "2025-01-07T03:00")
        #expect(r.edits.map(\.after) == [range("2025-01-11T18:00", "2025-01-11T18:30")])
        #expect(r.plan.occurrence(id("c@2025-01-08"))?.state == .skipped)
        #expect(r.edits.allSatisfy { $0.reason == .seriesShift })
    }

    @Test func severalMissedSessionsOfACourseAreAppendedInOrder_oneADate() {
        let course = Fx.task(
            "c", "Course", "2025-01-01T18:00", "2025-01-01T18:30", category: "Math",
            repeat: RepeatRule(every: .daily, until: date("2025-01-10")))
        let r = night(
            Fx.plan([course], overrides: (1...3).map { Fx.completed("c", "2025-01-0\($0)") }), at: "2025-01-07T03:00")
        #expect(r.edits.map(\.id.description) == ["c@2025-01-04", "c@2025-01-05", "c@2025-01-06"])
        #expect(r.edits.map { $0.after!.start.date.description } == ["2025-01-11", "2025-01-12", "2025-01-13"])
    }

    @Test func anOpenEndedSeriesSetToShiftIsMadeUpInstead() {
        let drill = Fx.task(
            "d", "Drill", "2025-01-06T10:00", "2025-01-06T11:00", category: "Math",
            repeat: RepeatRule(every: .weekly, missed: .shift))
        #expect(drill.repeatRule?.effectiveMissed == .makeUp)
        let r = night(Fx.plan([drill]), at: "2025-01-07T03:00")
        #expect(r.edits.map(\.reason) == [.rescheduled])
        #expect(r.edits.first?.after.map { $0.start.date < date("2025-01-13") } == true)
    }

    @Test func makeUpThatFindsNothingBeforeTheNextSessionIsFlaggedAndStays() {
        // A daily series set to make-up: the next session is today, so nothing is before it.
        let daily = Fx.task(
            "d", "Drill", "2025-01-05T10:00", "2025-01-05T11:00", category: "Math",
            repeat: RepeatRule(every: .daily, missed: .makeUp))
        let r = night(Fx.plan([daily], overrides: [Fx.completed("d", "2025-01-05")]), at: "2025-01-07T03:00")
        #expect(r.edits.isEmpty)
        #expect(r.flags == [PlanFlag(id: id("d@2025-01-06"), kind: .couldNotFit, title: "Drill")])
    }

    @Test func slideRowsOfVersionOneAreReadAsBefore_andTheRulesWriteNoNewOnes() {
        // A course slid by one day from 1/3 by a version-1 night: 1/3 sits on 1/4, and so on.
        let course = Fx.task(
            "c", "Course", "2025-01-01T18:00", "2025-01-01T18:30", category: "Math",
            repeat: RepeatRule(every: .daily, until: date("2025-01-20")))
        let slide = SeriesSlide(taskID: "c", from: date("2025-01-03"), days: 1)
        let done = ["2025-01-01", "2025-01-02", "2025-01-03", "2025-01-04"].map { Fx.completed("c", $0) }
        let plan = Fx.plan([course], overrides: done, slides: [slide])
        #expect(plan.occurrence(id("c@2025-01-05"))?.start == at("2025-01-06T18:00"))
        let r = night(plan, at: "2025-01-08T03:00")
        // 1/5 (on 1/6) and 1/6 (on 1/7) were missed: appended after the last one (1/20, on 1/21).
        #expect(r.edits.map(\.id.description) == ["c@2025-01-05", "c@2025-01-06"])
        #expect(r.edits.map { $0.after?.start.date.description } == ["2025-01-22", "2025-01-23"])
        #expect(r.plan.allSlides == [slide])
    }

    // MARK: - Stale sessions (§2)

    @Test func everyStaleSessionIsDroppedHoweverOld_whereTheHistoryIsKnown() {
        let drill = Fx.task(
            "drill", "Drill", "2024-12-20T10:00", "2024-12-20T11:00", category: "Math",
            repeat: RepeatRule(every: .daily))
        let done = (0...6).map {
            OccurrenceOverride(taskID: "drill", originalDate: date("2024-12-31").adding(days: $0), state: .completed)
        }
        let whole = Fx.plan([drill], overrides: done)
        let r = night(whole, at: "2025-01-07T03:00")
        // 12-20 … 12-30 are stale (eleven), none of them left; a window read (history known from
        // 12-28 on) drops only what it knows of, the rest was an earlier night's.
        #expect(r.edits.filter { $0.reason == .droppedStale }.count == 11)
        var window = whole
        window.historyFrom = date("2024-12-28")
        #expect(Fx.postpone(window, at: "2025-01-07T03:00").edits.filter { $0.reason == .droppedStale }.count == 3)
    }

    /// Issue 28, item 8: one daily series far in the past made a first night write a row per
    /// day of its history. A night drops at most `StaleLimits.dropsPerNight`, the oldest
    /// first, and says how many are left; the next night (on the result) goes on, and the
    /// nights together drop every one exactly once.
    @Test func aNightDropsAtMostTheLimitOldestFirstAndTheNextNightsGoOn() {
        let habit = Fx.task(
            "vocab", "Vocab", "1990-01-01T10:00", "1990-01-01T10:30", category: "English",
            repeat: RepeatRule(every: .daily))
        var plan = Fx.plan([habit])
        let staleDays = date("1990-01-01").days(until: date("2025-01-07")) - 7
        var dropped: [OccurrenceID] = []
        var nights = 0
        while true {
            let r = night(plan, at: "2025-01-07T03:00")
            let drops = r.edits.filter { $0.reason == .droppedStale }
            #expect(drops.count <= StaleLimits.dropsPerNight)
            #expect(r.staleLeft == staleDays - dropped.count - drops.count, "night \(nights)")
            dropped += drops.map(\.id)
            plan = r.plan
            nights += 1
            if r.staleLeft == 0 || nights > 10 { break }
        }
        #expect(nights == (staleDays + StaleLimits.dropsPerNight - 1) / StaleLimits.dropsPerNight)
        #expect(dropped.count == staleDays && Set(dropped).count == staleDays)
        #expect(dropped.first == id("vocab@1990-01-01"), "the oldest first")
        #expect(night(plan, at: "2025-01-07T03:00").edits.filter { $0.reason == .droppedStale }.isEmpty)
    }

    @Test func keptCategoriesAreFlaggedOncePerTaskWithTheirCount() {
        let exam = Fx.task(
            "exam", "Exam drill", "2024-12-01T10:00", "2024-12-01T11:00", category: "Exam",
            repeat: RepeatRule(every: .weekly))
        let plan = Fx.plan(
            [exam, Fx.task("old", "Old reading", "2024-12-20T10:00", "2024-12-20T11:00", category: "Reading")],
            settings: Fx.settings(keep: ["Exam"]))
        let r = night(plan, at: "2025-01-07T03:00")
        // 12-01, 12-08, 12-15, 12-22 and 12-29 are more than seven days back.
        #expect(r.flags.contains(PlanFlag(id: id("exam"), kind: .needsDecision, count: 5, title: "Exam drill")))
        #expect(r.edits.filter { $0.reason == .droppedStale }.map(\.id) == [id("old")])
    }

    @Test func aSessionEarlierTodayIsCurrentAndStays() {
        let r = night(Fx.plan([math("m", "2025-01-07T01:00", "2025-01-07T02:00")]), at: "2025-01-07T03:00")
        #expect(r.edits.isEmpty && r.flags.isEmpty)
    }

    // MARK: - Wall times (§1, G7)

    @Test func aReLaidSessionNeverEndsInASkippedHour() {
        // New York springs forward on 2025-03-09 at 02:00. The missed class takes the nearest
        // free time of 03-08 (§11: 08:00, the window's start); the class of 03-08, already past
        // at 03:00, goes to its own 01:30–02:30 on 03-09: its end moves forward by the gap, to 03:30.
        let plan = Fx.plan(
            [
                Fx.task("a", "Night class", "2025-03-07T01:30", "2025-03-07T02:30", category: "Math"),
                Fx.task("b", "Night class", "2025-03-08T01:30", "2025-03-08T02:30", category: "Math"),
            ], settings: Fx.settings(enabled: false), zone: Fx.newYork)
        let r = night(plan, at: "2025-03-08T03:00")
        #expect(r.place("a") == range("2025-03-08T08:00", "2025-03-08T09:00"))
        #expect(r.place("b") == range("2025-03-09T01:30", "2025-03-09T03:30"))
    }

    @Test func theSearchNeverEndsASessionAtTheFirstSkippedMinute() {
        let finder = SlotFinder(
            windows: WeeklyWindows.windowsOff, horizonDays: 0, now: at("2025-03-09T00:00"), zone: Fx.newYork)
        let gaps = finder.gaps(on: date("2025-03-09"), notBefore: 0, busy: BusyIndex())
        #expect(
            gaps.allSatisfy { gap in
                let skipped = Fx.newYork.skippedMinutes(on: date("2025-03-09"))!
                return !skipped.contains(gap.upperBound) && !skipped.contains(gap.lowerBound)
            })
    }

    // MARK: - Long sessions and the order of work (§6, §7)

    @Test func aSessionLongerThanAnyGapIsFlaggedAndStays() {
        let project = Fx.task("project", "Project", "2025-01-06T09:00", "2025-01-06T18:00", category: "作業")
        let r = night(Fx.plan([project]), at: "2025-01-07T03:00")
        #expect(r.edits.isEmpty)
        #expect(r.flags == [PlanFlag(id: id("project"), kind: .couldNotFit, title: "Project")])
    }

    @Test func withSplitSessionsALongSessionBecomesNumberedParts() {
        let project = Fx.task("project", "Project", "2025-01-06T09:00", "2025-01-06T18:00", category: "作業")
        let r = night(
            Fx.plan([project], settings: Fx.settings(split: true, sessionMinutes: 120)), at: "2025-01-07T03:00")
        #expect(r.plan.tasks["project"] == nil)
        #expect(r.edits.first?.detail == "split into 5 sessions")
        #expect(r.edits.dropFirst().map(\.title) == (1...5).map { "Project [\($0)/5]" })
        #expect(r.summary == PlanSummary(rescheduled: 1))
    }

    @Test func missedSessionsOfOneCourseAreMadeUpInTheirOrder() {
        // Two missed parts that do not link (parts 1 and 3, five days apart): the earlier one goes
        // first, then the later, both before the course's next session (part 5).
        let plan = Fx.plan([
            math("a", "2024-12-31T10:00", "2024-12-31T11:00", title: "Essay part 1"),
            math("b", "2025-01-05T10:00", "2025-01-05T11:00", title: "Essay part 3"),
            math("c", "2025-01-10T10:00", "2025-01-10T11:00", title: "Essay part 5"),
        ])
        let r = night(plan, at: "2025-01-07T03:00")
        let a = r.place("a")!.start
        let b = r.place("b")!.start
        let c = r.place("c")!.start
        #expect(a < b && b < c && a.date != b.date)
    }

    @Test func eachPlacementIsBusyForTheNextItem() {
        let plan = Fx.plan([
            Fx.task("a", "Essay", "2025-01-06T10:00", "2025-01-06T11:00", category: "English"),
            Fx.task("b", "Lab", "2025-01-06T10:00", "2025-01-06T11:00", category: "Chemistry"),
        ])
        let r = night(plan, at: "2025-01-07T03:00")
        #expect(
            r.edits.map(\.after) == [
                range("2025-01-07T10:00", "2025-01-07T11:00"), range("2025-01-07T09:00", "2025-01-07T10:00"),
            ])
    }

    @Test func aSecondsFractionOfNowRoundsUp() {
        let zone = Fx.taipei
        let p = Postponer(now: zone.instant(at("2025-01-07T15:20")).addingTimeInterval(1))
        #expect(p.civilNow(in: zone) == at("2025-01-07T15:21"))
        #expect(Postponer(now: zone.instant(at("2025-01-07T15:20"))).civilNow(in: zone) == at("2025-01-07T15:20"))
    }
}
