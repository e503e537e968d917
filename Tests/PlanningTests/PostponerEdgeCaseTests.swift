import Testing
@testable import Planning

/// The postponer at the edges of planning.md §2–§6. Runs are at 03:00 in Asia/Taipei unless a
/// test needs a DST zone; 2025-01-06 is a Monday.
@Suite struct PostponerEdgeCaseTests {
    private func math(_ id: String, _ start: String, _ end: String, title: String = "Math") -> StudyTask {
        Fx.task(id, title, start, end, category: "Math")
    }

    private func series(_ id: String, _ title: String, _ start: String, _ end: String, until: String? = nil,
                        category: String = "English") -> StudyTask {
        Fx.task(id, title, start, end, category: category,
                repeat: RepeatRule(every: .daily, until: until.map(Fx.d)))
    }

    private func move(_ id: String, _ title: String, _ before: (String, String), _ after: (String, String),
                      _ reason: PlanEdit.Reason) -> PlanEdit {
        PlanEdit(op: .move, id: Fx.id(id), title: title, before: Fx.range(before.0, before.1),
                 after: Fx.range(after.0, after.1), reason: reason)
    }

    private func expectNoSecondRunEdits(_ r: PostponementResult) {
        let again = Postponer(localNow: r.now, zone: r.plan.zone).postpone(r.plan)
        #expect(again.edits.isEmpty, "second run: \(again.edits)")
    }

    // MARK: - Today's slot

    @Test func aChainWhoseTodaySlotIsTakenByAnotherCourseDoesNotShift() {
        let plan = Fx.plan([
            math("m1", "2025-01-06T09:00", "2025-01-06T10:00"),
            math("m2", "2025-01-07T09:30", "2025-01-07T10:30"),
            math("m3", "2025-01-08T09:30", "2025-01-08T10:30"),
            Fx.task("phy", "Physics", "2025-01-07T09:00", "2025-01-07T09:30", category: "Physics"),
        ])
        let r = Fx.postpone(plan, at: "2025-01-07T03:00")
        // The missed one gets the general search; the current members stay.
        #expect(r.edits == [move("m1", "Math", ("2025-01-06T09:00", "2025-01-06T10:00"), ("2025-01-07T10:30", "2025-01-07T11:30"), .makeUp)])
        #expect(r.summary == PlanSummary(dropped: 0, rescheduled: 1, chained: 1))
        expectNoSecondRunEdits(r)
    }

    /// A member whose re-laid day is full searches from that day; the later members, which
    /// are about to move too, do not block it (planning.md §1: busy excludes what is moving).
    @Test func aSearchedChainMemberMayTakeTheSlotOfALaterMember() {
        let plan = Fx.plan([
            math("m1", "2025-01-06T10:00", "2025-01-06T11:00"),
            math("m2", "2025-01-07T10:00", "2025-01-07T11:00"),
            math("m3", "2025-01-08T10:00", "2025-01-08T11:00"),
            math("m4", "2025-01-09T10:00", "2025-01-09T11:00"),
            Fx.task("lab", "Lab", "2025-01-08T08:00", "2025-01-08T22:00", category: "Physics"),
        ], settings: Fx.settings(enabled: false))
        let r = Fx.postpone(plan, at: "2025-01-07T03:00")
        // m1 → Tue; m2's target Wed is full (the lab), so m2 searches from Wed and takes
        // Thursday 10:00 — m4's slot, but m4 is moving on; m3 and m4 continue after it.
        #expect(r.place("m1") == Fx.range("2025-01-07T10:00", "2025-01-07T11:00"))
        #expect(r.place("m2") == Fx.range("2025-01-09T10:00", "2025-01-09T11:00"))
        #expect(r.place("m3") == Fx.range("2025-01-10T10:00", "2025-01-10T11:00"))
        #expect(r.place("m4") == Fx.range("2025-01-11T10:00", "2025-01-11T11:00"))
        expectNoSecondRunEdits(r)
    }

    /// The series version, at the edge of the busy view: a slid occurrence that collides
    /// searches from its new day, and the slid occurrences after it, still to be placed, do not
    /// block it — even when its search reaches past the days the pass had looked at, so the
    /// busy view grows in the middle of the slide (it once put them in at their slid places).
    @Test func aSlidSeriesOccurrenceMayTakeTheSlotOfALaterOneBeyondTheBusyView() {
        // horizonDays 2: the pass looks at today … today + 4 (Sun 1/12) before it grows.
        let plan = Fx.plan([
            series("v", "Vocab", "2025-01-06T20:00", "2025-01-06T21:00"),
            Fx.task("exam", "Exam day", "2025-01-12T08:00", "2025-01-12T22:00", category: "Physics"),
        ], settings: Fx.settings(enabled: false, horizonDays: 2))
        let r = Fx.postpone(plan, at: "2025-01-08T03:00")
        // Mon and Tue missed: the series slides by two days. 1/10 slides onto the exam day and
        // searches from there: Mon 1/13 at its own 20:00, where 1/11 has slid but is moving on.
        #expect(r.place("v@2025-01-09") == Fx.range("2025-01-11T20:00", "2025-01-11T21:00"))
        #expect(r.place("v@2025-01-10") == Fx.range("2025-01-13T20:00", "2025-01-13T21:00"))
        // 1/11 now collides there and takes the next free hour of its new day; 1/12 keeps its slid place.
        #expect(r.place("v@2025-01-11") == Fx.range("2025-01-13T21:00", "2025-01-13T22:00"))
        #expect(r.place("v@2025-01-12") == Fx.range("2025-01-14T20:00", "2025-01-14T21:00"))
        expectNoSecondRunEdits(r)
    }

    @Test func aLateRunFindsTodaysSlotPastAndSearchesInstead() {
        let plan = Fx.plan([math("m1", "2025-01-06T10:00", "2025-01-06T11:00"), math("m2", "2025-01-07T10:00", "2025-01-07T11:00")],
                           settings: Fx.settings(enabled: false))
        let r = Fx.postpone(plan, at: "2025-01-07T21:00")
        #expect(r.edits == [move("m1", "Math", ("2025-01-06T10:00", "2025-01-06T11:00"), ("2025-01-07T21:00", "2025-01-07T22:00"), .makeUp)])
        // Half an hour before the window closes, an hour no longer fits today.
        let later = Fx.postpone(plan, at: "2025-01-07T21:30")
        #expect(later.edits.map(\.after) == [Fx.range("2025-01-08T10:00", "2025-01-08T11:00")])
        #expect(later.place("m2") == Fx.range("2025-01-07T10:00", "2025-01-07T11:00"))
        expectNoSecondRunEdits(r)
    }

    // MARK: - Windows

    @Test func aChainCrossingTheWeekendWithWeekdayWindows() {
        let plan = Fx.plan([
            Fx.task("thu", "English reading", "2025-01-09T10:00", "2025-01-09T11:00", category: "English"),
            Fx.task("fri", "English reading", "2025-01-10T10:00", "2025-01-10T11:00", category: "English"),
            Fx.task("mon", "English reading", "2025-01-13T10:00", "2025-01-13T11:00", category: "English"),
        ])
        let r = Fx.postpone(plan, at: "2025-01-10T03:00")
        // Friday's member would land on Saturday (no window); the search finds Monday, where
        // 10:00 is taken, and 09:00 wins over 11:00 (as close, smaller gap).
        #expect(r.edits == [
            move("thu", "English reading", ("2025-01-09T10:00", "2025-01-09T11:00"), ("2025-01-10T10:00", "2025-01-10T11:00"), .makeUp),
            move("fri", "English reading", ("2025-01-10T10:00", "2025-01-10T11:00"), ("2025-01-13T09:00", "2025-01-13T10:00"), .chainShift),
        ])
        #expect(r.summary == PlanSummary(dropped: 0, rescheduled: 2, chained: 2))
        expectNoSecondRunEdits(r)
    }

    @Test func twoWindowsADayWithALunchGap() {
        let windows = Fx.windows(Dictionary(uniqueKeysWithValues: [Weekday.mon, .tue, .wed, .thu, .fri].map { ($0, ["09:00-12:00", "13:00-17:00"]) }))
        let plan = Fx.plan([
            Fx.task("essay", "Essay", "2025-01-06T11:30", "2025-01-06T13:00", category: "English"),
            Fx.task("lab", "Lab report", "2025-01-06T11:00", "2025-01-06T14:30", category: "Chemistry"),
        ], settings: Fx.settings(windows: windows))
        let r = Fx.postpone(plan, at: "2025-01-07T03:00")
        // Never across lunch: the 90 minutes end at noon; 3.5 hours only fit the afternoon.
        #expect(r.edits == [
            move("lab", "Lab report", ("2025-01-06T11:00", "2025-01-06T14:30"), ("2025-01-07T13:00", "2025-01-07T16:30"), .rescheduled),
            move("essay", "Essay", ("2025-01-06T11:30", "2025-01-06T13:00"), ("2025-01-07T10:30", "2025-01-07T12:00"), .rescheduled),
        ])
        expectNoSecondRunEdits(r)
    }

    @Test func noWindowsOnAnyDay_nothingFitsAndNothingIsLost() {
        let plan = Fx.plan([
            Fx.task("essay", "Essay", "2025-01-06T10:00", "2025-01-06T11:00", category: "English"),
            math("m1", "2025-01-06T10:00", "2025-01-06T11:00"),
            math("m2", "2025-01-07T10:00", "2025-01-07T11:00"),
            math("m3", "2025-01-08T10:00", "2025-01-08T11:00"),
            math("later", "2025-01-09T15:00", "2025-01-09T16:00", title: "Algebra"),
        ], settings: Fx.settings(windows: try! WeeklyWindows([:])))
        let r = Fx.postpone(plan, at: "2025-01-07T03:00")
        #expect(r.edits.isEmpty)
        #expect(r.flags == [PlanFlag(id: Fx.id("essay"), kind: .couldNotFit), PlanFlag(id: Fx.id("m1"), kind: .couldNotFit)])
        for task in plan.sortedTasks { #expect(r.plan.tasks[task.id] == task) }
        #expect(r.summary == PlanSummary())
        expectNoSecondRunEdits(r)
    }

    @Test func noWindowsOnAnyDay_aSeriesChainStillSlidesOnItsOwnDays() {
        let vocab = series("vocab", "Vocab", "2025-01-05T20:00", "2025-01-05T20:30", until: "2025-01-10")
        let plan = Fx.plan([vocab], settings: Fx.settings(windows: try! WeeklyWindows([:])),
                           overrides: [Fx.completed("vocab", "2025-01-05")])
        let r = Fx.postpone(plan, at: "2025-01-07T03:00")
        #expect(r.plan.allSlides == [SeriesSlide(taskID: "vocab", from: Fx.d("2025-01-06"), days: 1, version: 0)])
        #expect(r.edits.count == 5)
        #expect(r.flags.isEmpty)
    }

    @Test func theWindowsPreferenceOffMeansEightToTenEveryDay() {
        let essay = Fx.task("essay", "Essay", "2025-01-10T20:00", "2025-01-10T21:00", category: "English")
        let off = Fx.postpone(Fx.plan([essay], settings: Fx.settings(enabled: false)), at: "2025-01-11T03:00")
        #expect(off.edits.map(\.after) == [Fx.range("2025-01-11T20:00", "2025-01-11T21:00")]) // a Saturday
        let on = Fx.postpone(Fx.plan([essay]), at: "2025-01-11T03:00")
        #expect(on.edits.map(\.after) == [Fx.range("2025-01-13T16:00", "2025-01-13T17:00")])
    }

    @Test func aMemberPlacedOutsideTheWindowsKeepsItsTimeOnDaysWithAWindow() {
        let plan = Fx.plan([
            Fx.task("p1", "Piano", "2025-01-09T19:00", "2025-01-09T20:00", category: "Music"),
            Fx.task("p2", "Piano", "2025-01-10T19:00", "2025-01-10T20:00", category: "Music"),
        ])
        let r = Fx.postpone(plan, at: "2025-01-10T03:00")
        // Friday 19:00 is outside Friday's window but Friday has one; Saturday has none, so the
        // second member is searched inside the windows of Monday.
        #expect(r.edits == [
            move("p1", "Piano", ("2025-01-09T19:00", "2025-01-09T20:00"), ("2025-01-10T19:00", "2025-01-10T20:00"), .makeUp),
            move("p2", "Piano", ("2025-01-10T19:00", "2025-01-10T20:00"), ("2025-01-13T16:00", "2025-01-13T17:00"), .chainShift),
        ])
        expectNoSecondRunEdits(r)
    }

    // MARK: - Series chains

    @Test func aSeriesChainOnTheSpringForwardNightInBerlin() {
        let vocab = series("vocab", "Vocab", "2025-03-25T20:00", "2025-03-25T20:30", until: "2025-04-05")
        let history = ["2025-03-25", "2025-03-26", "2025-03-27", "2025-03-28"].map { Fx.completed("vocab", $0) }
        let plan = Fx.plan([vocab], zone: Fx.berlin, overrides: history)
        let r = Fx.postpone(plan, at: "2025-03-30T03:00") // 02:00–03:00 did not exist tonight
        #expect(r.plan.allSlides == [SeriesSlide(taskID: "vocab", from: Fx.d("2025-03-29"), days: 1, version: 0)])
        #expect(r.edits.first == move("vocab@2025-03-29", "Vocab", ("2025-03-29T20:00", "2025-03-29T20:30"),
                                      ("2025-03-30T20:00", "2025-03-30T20:30"), .makeUp))
        #expect(r.place("vocab@2025-03-30") == Fx.range("2025-03-31T20:00", "2025-03-31T20:30"))
        #expect(r.summary == PlanSummary(dropped: 0, rescheduled: 8, chained: 8))
        expectNoSecondRunEdits(r)
    }

    @Test func aSeriesInsideTheSkippedHourStillChainsAndSlides() {
        // 02:30 does not exist in New York on 2025-03-09: that occurrence shows at 03:30.
        let early = series("early", "Early drill", "2025-03-05T02:30", "2025-03-05T03:00", until: "2025-03-12", category: "Math")
        let history = ["2025-03-05", "2025-03-06", "2025-03-07"].map { Fx.completed("early", $0) }
        let plan = Fx.plan([early], settings: Fx.settings(enabled: false), zone: Fx.newYork, overrides: history)
        #expect(plan.occurrence(Fx.id("early@2025-03-09")).map(TimeRange.init) == Fx.range("2025-03-09T03:30", "2025-03-09T04:00"))
        let r = Fx.postpone(plan, at: "2025-03-09T03:00")
        #expect(r.plan.allSlides.count == 1)
        #expect(Array(r.edits.prefix(2)) == [
            move("early@2025-03-08", "Early drill", ("2025-03-08T02:30", "2025-03-08T03:00"), ("2025-03-09T03:30", "2025-03-09T04:00"), .makeUp),
            move("early@2025-03-09", "Early drill", ("2025-03-09T03:30", "2025-03-09T04:00"), ("2025-03-10T02:30", "2025-03-10T03:00"), .chainShift),
        ])
        expectNoSecondRunEdits(r)
    }

    @Test func aCompletedSessionInsideTheTailStaysAndBlocksItsSlot() {
        let drill = series("drill", "Drill", "2025-01-01T10:00", "2025-01-01T11:00", until: "2025-01-10", category: "Math")
        let history = ["2025-01-01", "2025-01-02", "2025-01-03", "2025-01-04", "2025-01-05", "2025-01-08"].map { Fx.completed("drill", $0) }
        let plan = Fx.plan([drill], overrides: history)
        let r = Fx.postpone(plan, at: "2025-01-07T03:00")
        #expect(r.place("drill@2025-01-08") == Fx.range("2025-01-08T10:00", "2025-01-08T11:00"))
        #expect(r.plan.occurrence(Fx.id("drill@2025-01-08"))?.state == .completed)
        #expect(r.edits == [
            move("drill@2025-01-06", "Drill", ("2025-01-06T10:00", "2025-01-06T11:00"), ("2025-01-07T10:00", "2025-01-07T11:00"), .makeUp),
            move("drill@2025-01-07", "Drill", ("2025-01-07T10:00", "2025-01-07T11:00"), ("2025-01-08T09:00", "2025-01-08T10:00"), .chainShift),
            move("drill@2025-01-09", "Drill", ("2025-01-09T10:00", "2025-01-09T11:00"), ("2025-01-10T10:00", "2025-01-10T11:00"), .chainShift),
            move("drill@2025-01-10", "Drill", ("2025-01-10T10:00", "2025-01-10T11:00"), ("2025-01-11T10:00", "2025-01-11T11:00"), .chainShift),
        ])
        expectNoSecondRunEdits(r)
    }

    @Test func aMemberMovedByHandIsCarriedAlongWithTheSlide() {
        let drill = series("drill", "Drill", "2025-01-06T10:00", "2025-01-06T11:00", until: "2025-01-09", category: "Math")
        let moved = OccurrenceOverride(taskID: "drill", originalDate: Fx.d("2025-01-08"), state: .open,
                                       start: Fx.t("2025-01-08T10:20"), end: Fx.t("2025-01-08T11:20"))
        let r = Fx.postpone(Fx.plan([drill], overrides: [moved]), at: "2025-01-07T03:00")
        #expect(r.place("drill@2025-01-08") == Fx.range("2025-01-09T10:20", "2025-01-09T11:20"))
        #expect(r.place("drill@2025-01-09") == Fx.range("2025-01-10T10:00", "2025-01-10T11:00"))
        #expect(r.summary.chained == 4)
        expectNoSecondRunEdits(r)
    }

    @Test func aRunMixingAOneOffAndASeriesIsReLaid() {
        let plan = Fx.plan([
            math("intro", "2025-01-06T10:00", "2025-01-06T11:00"),
            Fx.task("drill", "Math", "2025-01-07T10:00", "2025-01-07T11:00", category: "Math",
                    repeat: RepeatRule(every: .daily, until: Fx.d("2025-01-09"))),
        ])
        let r = Fx.postpone(plan, at: "2025-01-07T03:00")
        #expect(r.plan.allSlides.isEmpty)
        #expect(r.edits == [
            move("intro", "Math", ("2025-01-06T10:00", "2025-01-06T11:00"), ("2025-01-07T10:00", "2025-01-07T11:00"), .makeUp),
            move("drill@2025-01-07", "Math", ("2025-01-07T10:00", "2025-01-07T11:00"), ("2025-01-08T10:00", "2025-01-08T11:00"), .chainShift),
            move("drill@2025-01-08", "Math", ("2025-01-08T10:00", "2025-01-08T11:00"), ("2025-01-09T10:00", "2025-01-09T11:00"), .chainShift),
            move("drill@2025-01-09", "Math", ("2025-01-09T10:00", "2025-01-09T11:00"), ("2025-01-10T10:00", "2025-01-10T11:00"), .chainShift),
        ])
        expectNoSecondRunEdits(r)
    }

    // MARK: - Long sessions

    @Test func aSessionLongerThanAnyGapIsFlaggedAndStays() {
        let project = Fx.task("project", "Project", "2025-01-06T09:00", "2025-01-06T18:00", category: "作業")
        let r = Fx.postpone(Fx.plan([project]), at: "2025-01-07T03:00")
        #expect(r.edits.isEmpty)
        #expect(r.flags == [PlanFlag(id: Fx.id("project"), kind: .couldNotFit)])
        #expect(r.plan.tasks["project"] == project)
    }

    @Test func withSplitSessionsALongSessionBecomesNumberedParts() {
        let project = Fx.task("project", "Project", "2025-01-06T09:00", "2025-01-06T18:00", category: "作業")
        let r = Fx.postpone(Fx.plan([project], settings: Fx.settings(split: true, sessionMinutes: 120)), at: "2025-01-07T03:00")
        #expect(r.plan.tasks["project"] == nil)
        #expect(r.edits.first == PlanEdit(op: .delete, id: Fx.id("project"), title: "Project",
                                          before: Fx.range("2025-01-06T09:00", "2025-01-06T18:00"), after: nil,
                                          reason: .rescheduled, detail: "split into 5 sessions"))
        let parts = r.edits.dropFirst()
        #expect(parts.map(\.op) == Array(repeating: .create, count: 5))
        #expect(parts.map(\.title) == (1...5).map { "Project [\($0)/5]" })
        #expect(parts.map(\.after) == [
            Fx.range("2025-01-07T09:00", "2025-01-07T11:00"), Fx.range("2025-01-07T11:00", "2025-01-07T13:00"),
            Fx.range("2025-01-07T13:00", "2025-01-07T15:00"), Fx.range("2025-01-07T15:00", "2025-01-07T17:00"),
            Fx.range("2025-01-08T16:00", "2025-01-08T17:00"),
        ])
        #expect(parts.allSatisfy { r.plan.tasks[$0.id.taskID]?.category == "作業" })
        #expect(r.summary == PlanSummary(dropped: 0, rescheduled: 1, chained: 0))
        expectNoSecondRunEdits(r)
    }

    @Test func aSplitSeriesOccurrenceIsSkippedNotDeleted() {
        let long = Fx.task("long", "Long read", "2025-01-06T09:00", "2025-01-06T13:00", category: "English",
                           repeat: RepeatRule(every: .weekly))
        let r = Fx.postpone(Fx.plan([long], settings: Fx.settings(windows: Fx.windows([.tue: ["09:00-11:00", "13:00-15:00"]]), split: true,
                                                                  sessionMinutes: 120)), at: "2025-01-07T03:00")
        #expect(r.plan.tasks["long"] != nil)
        #expect(r.plan.occurrence(Fx.id("long@2025-01-06"))?.state == .skipped)
        #expect(r.edits.map(\.op) == [.skip, .create, .create])
        #expect(r.edits.dropFirst().map(\.id.taskID) == ["long-20250106-1of2", "long-20250106-2of2"])
    }

    // MARK: - Stale sessions

    @Test func keptCategoriesAreFlaggedForADecisionInsteadOfDropped() {
        let plan = Fx.plan([
            Fx.task("prep", "Exam prep", "2024-12-20T10:00", "2024-12-20T11:00", category: "Exam"),
            Fx.task("old", "Old reading", "2024-12-20T10:00", "2024-12-20T11:00", category: "Reading"),
        ], settings: Fx.settings(keep: ["Exam"]))
        let r = Fx.postpone(plan, at: "2025-01-07T03:00")
        #expect(r.flags == [PlanFlag(id: Fx.id("prep"), kind: .needsDecision)])
        #expect(r.plan.tasks["prep"] != nil)
        #expect(r.edits.map(\.id) == [Fx.id("old")])
        #expect(r.summary == PlanSummary(dropped: 1, rescheduled: 0, chained: 0))
        expectNoSecondRunEdits(r)
    }

    @Test func aStaleSeriesOccurrenceIsSkipped_olderHistoryIsLeftAlone() {
        let drill = series("drill", "Drill", "2024-12-28T10:00", "2024-12-28T11:00", category: "Math")
        let done = (0...6).map { OccurrenceOverride(taskID: "drill", originalDate: Fx.d("2024-12-31").adding(days: $0), state: .completed) }
        let r = Fx.postpone(Fx.plan([drill], overrides: done), at: "2025-01-07T03:00")
        #expect(r.edits == [PlanEdit(op: .skip, id: Fx.id("drill@2024-12-30"), title: "Drill",
                                     before: Fx.range("2024-12-30T10:00", "2024-12-30T11:00"), after: nil, reason: .droppedStale)])
        #expect(r.plan.occurrence(Fx.id("drill@2024-12-30"))?.state == .skipped)
        #expect(r.plan.occurrence(Fx.id("drill@2024-12-29"))?.state == .open) // before the look-back: a past night's business
        #expect(r.plan.tasks["drill"] == drill)
        expectNoSecondRunEdits(r)
    }

    @Test func aSessionEarlierTodayIsCurrentAndStays() {
        let r = Fx.postpone(Fx.plan([math("m", "2025-01-07T01:00", "2025-01-07T02:00")]), at: "2025-01-07T03:00")
        #expect(r.edits.isEmpty && r.flags.isEmpty)
    }

    // MARK: - All-day sessions

    @Test func allDaySessionsChainAndMoveByDate() {
        let plan = Fx.plan([
            Fx.task("r1", "Reading day", "2025-01-06T00:00", "2025-01-06T00:00", category: "English", allDay: true),
            Fx.task("r2", "Reading day", "2025-01-07T00:00", "2025-01-07T00:00", category: "English", allDay: true),
            Fx.task("x", "Exam", "2025-01-05T00:00", "2025-01-05T00:00", category: "Exam", allDay: true),
            Fx.task("x2", "Exam", "2025-01-07T00:00", "2025-01-07T00:00", category: "Exam", allDay: true),
        ])
        let r = Fx.postpone(plan, at: "2025-01-07T03:00")
        #expect(r.edits == [
            move("x", "Exam", ("2025-01-05T00:00", "2025-01-05T00:00"), ("2025-01-08T00:00", "2025-01-08T00:00"), .rescheduled),
            move("r1", "Reading day", ("2025-01-06T00:00", "2025-01-06T00:00"), ("2025-01-07T00:00", "2025-01-07T00:00"), .makeUp),
            move("r2", "Reading day", ("2025-01-07T00:00", "2025-01-07T00:00"), ("2025-01-08T00:00", "2025-01-08T00:00"), .chainShift),
        ])
        expectNoSecondRunEdits(r)
    }

    // MARK: - Order of work and the second run

    @Test func aMissedSessionTakesTheRoomALaterChainShiftFrees() {
        // Only one hour a day. The essay is handled first and finds Tuesday full; the Math
        // chain then shifts, and its shorter first member leaves Tuesday 10:00–10:30 free.
        let windows = Fx.windows([.tue: ["10:00-11:00"], .wed: ["10:00-11:00"], .thu: ["10:00-11:00"]])
        let plan = Fx.plan([
            Fx.task("essay", "Essay", "2025-01-04T10:00", "2025-01-04T10:30", category: "English"),
            math("m1", "2025-01-06T10:30", "2025-01-06T11:00"),
            math("m2", "2025-01-07T10:00", "2025-01-07T11:00"),
            math("m3", "2025-01-08T10:00", "2025-01-08T11:00"),
        ], settings: Fx.settings(windows: windows, horizonDays: 1))
        let r = Fx.postpone(plan, at: "2025-01-07T03:00")
        #expect(r.edits == [
            move("m1", "Math", ("2025-01-06T10:30", "2025-01-06T11:00"), ("2025-01-07T10:30", "2025-01-07T11:00"), .makeUp),
            move("m2", "Math", ("2025-01-07T10:00", "2025-01-07T11:00"), ("2025-01-08T10:00", "2025-01-08T11:00"), .chainShift),
            move("m3", "Math", ("2025-01-08T10:00", "2025-01-08T11:00"), ("2025-01-09T10:00", "2025-01-09T11:00"), .chainShift),
            PlanEdit(op: .move, id: Fx.id("essay"), title: "Essay", before: Fx.range("2025-01-04T10:00", "2025-01-04T10:30"),
                     after: Fx.range("2025-01-07T10:00", "2025-01-07T10:30"), reason: .rescheduled,
                     detail: Postponer.laterPassDetail),
        ])
        #expect(r.flags.isEmpty)
        expectNoSecondRunEdits(r)
    }

    @Test func aChainThatWouldLeaveAMemberOnTopOfAnotherDoesNotShift() {
        // Thursday has no window and the horizon is one day, so m3 could go nowhere and would
        // stay under m2. The chain keeps its place; m1 finds no room and is flagged.
        let windows = Fx.windows([.tue: ["10:00-11:00"], .wed: ["10:00-11:00"]])
        let plan = Fx.plan([
            math("m1", "2025-01-06T10:00", "2025-01-06T11:00"),
            math("m2", "2025-01-07T10:00", "2025-01-07T11:00"),
            math("m3", "2025-01-08T10:00", "2025-01-08T11:00"),
        ], settings: Fx.settings(windows: windows, horizonDays: 1))
        let r = Fx.postpone(plan, at: "2025-01-07T03:00")
        #expect(r.edits.isEmpty)
        #expect(r.flags == [PlanFlag(id: Fx.id("m1"), kind: .couldNotFit)])
        expectNoSecondRunEdits(r)
    }

    @Test func eachPlacementIsBusyForTheNextItem() {
        let plan = Fx.plan([
            Fx.task("a", "Essay", "2025-01-06T10:00", "2025-01-06T11:00", category: "English"),
            Fx.task("b", "Lab", "2025-01-06T10:00", "2025-01-06T11:00", category: "Chemistry"),
        ])
        let r = Fx.postpone(plan, at: "2025-01-07T03:00")
        #expect(r.edits.map(\.after) == [Fx.range("2025-01-07T10:00", "2025-01-07T11:00"), Fx.range("2025-01-07T09:00", "2025-01-07T10:00")])
    }

    @Test func aSecondsFractionOfNowRoundsUp() {
        let zone = Fx.taipei
        let p = Postponer(now: zone.instant(Fx.t("2025-01-07T15:20")).addingTimeInterval(1))
        #expect(p.civilNow(in: zone) == Fx.t("2025-01-07T15:21"))
        #expect(Postponer(now: zone.instant(Fx.t("2025-01-07T15:20"))).civilNow(in: zone) == Fx.t("2025-01-07T15:20"))
    }
}
