import ReplanTestSupport
import Testing

@testable import Planning

/// The placement rules the postponer, the model's tools and undo share, and their messages.
@Suite struct PlacementValidatorTests {
    let plan = Fx.plan(
        [
            Fx.task("phy", "Physics", "2025-01-07T14:00", "2025-01-07T15:00", category: "Physics"),
            Fx.task("math", "Math", "2025-01-07T10:00", "2025-01-07T11:00", category: "Math"),
            Fx.task("done", "Essay", "2025-01-06T10:00", "2025-01-06T11:00", category: "English", completed: true),
            Fx.task("rev", "Revision", "2025-01-08T00:00", "2025-01-08T00:00", category: "Exam", allDay: true),
            Fx.task(
                "vocab", "Vocab", "2025-01-01T20:00", "2025-01-01T20:30", category: "English",
                repeat: RepeatRule(every: .daily)),
        ], overrides: [OccurrenceOverride(taskID: "vocab", originalDate: date("2025-01-05"), state: .skipped)])
    var validator: PlacementValidator { PlacementValidator(plan: plan, now: at("2025-01-07T03:00")) }

    private func error(_ c: PlacementCandidate, _ rule: PlacementValidator.WindowRule = .required) -> String? {
        do {
            try validator.validate(c, windows: rule)
            return nil
        } catch { return error.description }
    }

    private func move(_ id: String, _ start: String, _ end: String, allDay: Bool = false) -> PlacementCandidate {
        PlacementCandidate(.occurrence(ReplanTestSupport.id(id)), start: at(start), end: at(end), allDay: allDay)
    }

    @Test func aFreeSlotInsideTheWindowsIsAccepted() {
        #expect(error(move("math", "2025-01-07T11:00", "2025-01-07T12:00")) == nil)
        #expect(error(move("math", "2025-01-07T10:30", "2025-01-07T11:30")) == nil) // its own old slot does not block
    }

    @Test func overlapsNameTheSessionInTheWay() {
        #expect(
            error(move("math", "2025-01-07T14:30", "2025-01-07T15:30"))
                == "overlaps 'Physics' 14:00–15:00 on 2025-01-07")
    }

    @Test func outsideTheWindowsNamesTheDaysWindows() {
        #expect(
            error(move("math", "2025-01-08T17:00", "2025-01-08T18:00"))
                == "outside the study windows of Wednesday (09:00–17:00)")
        #expect(
            error(move("math", "2025-01-11T10:00", "2025-01-11T11:00"))
                == "outside the study windows of Saturday (no windows that day)")
    }

    @Test func thePastIsRefused() {
        #expect(
            error(move("math", "2025-01-07T02:00", "2025-01-07T02:30"))
                == "starts in the past (now is 2025-01-07T03:00)")
    }

    @Test func endMustBeAfterStart() {
        #expect(error(move("math", "2025-01-07T12:00", "2025-01-07T12:00")) == "end must be after start")
        #expect(error(move("rev", "2025-01-09T00:00", "2025-01-08T00:00", allDay: true)) == "end must be after start")
    }

    @Test func completedSessionsCannotBeChanged() {
        #expect(error(move("done", "2025-01-08T10:00", "2025-01-08T11:00")) == "completed sessions cannot be changed")
        #expect(throws: PlacementError.completed(id("done"))) {
            try validator.validate(move("done", "2025-01-08T10:00", "2025-01-08T11:00"))
        }
    }

    @Test func skippedAndUnknownSessionsAreRefused() {
        #expect(
            error(move("vocab@2025-01-05", "2025-01-08T10:00", "2025-01-08T10:30"))?.hasPrefix(
                "skipped sessions cannot be moved") == true)
        #expect(
            error(move("nope", "2025-01-08T10:00", "2025-01-08T10:30")) == "there is no session 'nope' in this plan")
    }

    @Test func windowRulesForOwnTimesAndSeriesDays() {
        let evening = move("math", "2025-01-08T21:00", "2025-01-08T22:00")
        #expect(error(evening, .anyDayWithWindow) == nil)
        #expect(
            error(move("math", "2025-01-11T21:00", "2025-01-11T22:00"), .anyDayWithWindow)
                == "outside the study windows of Saturday (no windows that day)")
        #expect(error(move("math", "2025-01-11T21:00", "2025-01-11T22:00"), .ignored) == nil)
    }

    @Test func newTasksAreCheckedLikeMoves() {
        let c = PlacementCandidate(
            .newTask(title: "Chemistry", category: "Chemistry"),
            start: at("2025-01-07T10:30"), end: at("2025-01-07T11:30"))
        #expect(error(c) == "overlaps 'Math' 10:00–11:00 on 2025-01-07")
    }

    @Test func allDaySessionsOnlyMeetAllDaySessionsOfTheirKey() {
        let same = PlacementCandidate(
            .newTask(title: "Revision 2", category: "Exam"),
            start: at("2025-01-08T00:00"), end: at("2025-01-08T00:00"), allDay: true)
        #expect(error(same) == "overlaps the all-day 'Revision' on 2025-01-08")
        let other = PlacementCandidate(
            .newTask(title: "Holiday", category: "Exam"),
            start: at("2025-01-07T00:00"), end: at("2025-01-08T00:00"), allDay: true)
        #expect(error(other) == nil) // today is not past for a whole day; timed sessions never block
        let yesterday = PlacementCandidate(
            .newTask(title: "Holiday", category: "Exam"),
            start: at("2025-01-06T00:00"), end: at("2025-01-06T00:00"), allDay: true)
        #expect(error(yesterday) == "starts in the past (now is 2025-01-07T03:00)")
    }

    @Test func timesTheClocksSkipAreRefused() {
        var settings = Fx.settings(enabled: false)
        settings.windowsEnabled = false
        let ny = Fx.plan([], settings: settings, zone: Fx.newYork)
        let v = PlacementValidator(plan: ny, now: at("2025-03-01T00:00"))
        #expect(throws: PlacementError.self) {
            try v.validate(
                PlacementCandidate(
                    .newTask(title: "x", category: "y"), start: at("2025-03-09T02:30"),
                    end: at("2025-03-09T03:30")), windows: .ignored)
        }
        do {
            try v.validate(
                PlacementCandidate(
                    .newTask(title: "x", category: "y"), start: at("2025-03-09T02:30"),
                    end: at("2025-03-09T03:30")), windows: .ignored)
        } catch {
            #expect(error.description == "02:30 on 2025-03-09 does not exist in America/New_York (the clocks skip it)")
        }
    }

    @Test func busyOccurrencesOfADay() {
        let day = validator.busyOccurrences(on: date("2025-01-07"))
        #expect(day.map(\.id.description) == ["math", "phy", "vocab@2025-01-07"])
        #expect(validator.busyOccurrences(on: date("2025-01-05")).isEmpty) // the skipped one is free
        #expect(validator.busyOccurrences(on: date("2025-01-07"), excluding: [id("phy")]).count == 2)
    }

    @Test func everySlotTheSearchFindsPassesTheValidator() {
        for seed in 0..<40 {
            var generator = StudentGenerator(seed: UInt64(seed))
            let (_, p, instant) = generator.makeStudent()
            let now = Postponer(now: instant).civilNow(in: p.zone)
            let v = PlacementValidator(plan: p, now: now)
            let finder = SlotFinder(settings: p.settings, now: now, zone: p.zone)
            let busy = BusyIndex(
                p.occurrences(from: now.date, through: now.date.adding(days: p.settings.horizonDays + 2)))
            for length in [30, 60, 120] {
                guard let r = finder.slot(length: length, preferredTime: timeOfDay("10:00"), from: now.date, busy: busy)
                else { continue }
                #expect(throws: Never.self) {
                    try v.validate(
                        PlacementCandidate(.newTask(title: "New", category: "New"), start: r.start, end: r.end))
                }
            }
        }
    }
}
