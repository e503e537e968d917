import Foundation
import ReplanTestSupport
import Testing

@testable import Planning

/// What version 2's code got wrong, found by reading nights as a student reads them (§11). Each
/// test failed before its fix. Runs are at 03:00 in Asia/Taipei; 2025-01-06 is a Monday.
@Suite struct PostponerVersion3FindingTests {
    @discardableResult
    private func night(
        _ plan: UserPlan, at now: String, sourceLocation: SourceLocation = #_sourceLocation
    ) -> PostponementResult {
        Fx.checkedNight(plan, at: now, sourceLocation: sourceLocation)
    }

    @Test("§11 series details: a shift append is at the series' time and length, not where the student had moved it")
    func aShiftAppendTakesTheSeriesTime() {
        let vocab = Fx.task(
            "vocab", "Vocab", "2025-01-01T20:00", "2025-01-01T20:30", category: "English",
            repeat: RepeatRule(every: .daily, until: date("2025-01-31")))
        let moved = OccurrenceOverride(
            taskID: "vocab", originalDate: date("2025-01-06"), state: .open, start: at("2025-01-06T07:00"),
            end: at("2025-01-06T08:00"))
        let plan = Fx.plan(
            [vocab], settings: Fx.settings(enabled: false),
            overrides: (1...5).map { Fx.completed("vocab", "2025-01-0\($0)") } + [moved])
        let r = night(plan, at: "2025-01-07T03:00")
        #expect(r.place("vocab@2025-01-06") == range("2025-02-01T20:00", "2025-02-01T20:30"))
        #expect(r.edit(for: id("vocab@2025-01-06"))?.reason == .seriesShift)
    }

    @Test("§11 push, never pull: a member on a day without windows that is still after its predecessor stays")
    func aMemberOutsideTheWindowsThatNeedNotMoveStays() {
        // Version 2 moved an unchanged member into the windows.
        let windows = Fx.windows([.mon: ["09:00-17:00"], .tue: ["09:00-17:00"], .wed: ["09:00-17:00"]])
        let plan = Fx.plan(
            [
                Fx.task("a", "Essay [1/2]", "2025-01-06T10:00", "2025-01-06T11:00"),
                Fx.task("b", "Essay [2/2]", "2025-01-10T10:00", "2025-01-10T11:00"),
            ], settings: Fx.settings(windows: windows))
        let r = night(plan, at: "2025-01-07T03:00")
        #expect(r.place("a") == range("2025-01-07T10:00", "2025-01-07T11:00"))
        #expect(r.place("b") == range("2025-01-10T10:00", "2025-01-10T11:00"))
        #expect(r.summary == PlanSummary(rescheduled: 1, chained: 1))
    }

    @Test("§11 push, never pull: a member still after its predecessor stays beside an overlap the student made")
    func aMemberInAnOverlapThatWasThereStays() {
        let plan = Fx.plan(
            [
                Fx.task("a", "Essay [1/2]", "2025-01-06T16:00", "2025-01-06T17:00"),
                Fx.task("b", "Essay [2/2]", "2025-01-09T16:00", "2025-01-09T17:00"),
                Fx.task("club", "Club", "2025-01-09T16:30", "2025-01-09T17:30", category: "社團"),
            ], settings: Fx.settings(enabled: false))
        let r = night(plan, at: "2025-01-07T03:00")
        #expect(r.place("b") == range("2025-01-09T16:00", "2025-01-09T17:00"))
        #expect(r.summary == PlanSummary(rescheduled: 1, chained: 1))
    }

    @Test("§11 flags: a could-not-fit flag names the session's title")
    func flagsNameTheTitle() {
        let plan = Fx.plan(
            [Fx.task("p", "Project", "2025-01-06T10:00", "2025-01-06T19:00")], settings: Fx.settings(enabled: true))
        let r = night(plan, at: "2025-01-07T03:00")
        #expect(r.flags == [PlanFlag(id: id("p"), kind: .couldNotFit, title: "Project")])
    }

    /// Two interleaved runs of one course with identical titles (property seed 4849): "History
    /// (1)" done Mon and missed Tue, "(2)" twice on Fri, "(3)" twice on Mon. The missed part links
    /// to the first Friday part, which shares its day with the second run's Friday part.
    private func interleavedRuns() -> UserPlan {
        Fx.plan(
            [
                Fx.task("h1", "History (1)", "2025-01-06T08:00", "2025-01-06T10:00", completed: true),
                Fx.task("h4", "History (1)", "2025-01-07T15:45", "2025-01-07T16:15"),
                Fx.task("h2", "History (2)", "2025-01-10T08:00", "2025-01-10T10:00"),
                Fx.task("h5", "History (2)", "2025-01-10T16:15", "2025-01-10T16:45"),
                Fx.task("h3", "History (3)", "2025-01-13T09:00", "2025-01-13T11:00"),
                Fx.task("h6", "History (3)", "2025-01-13T16:15", "2025-01-13T16:45"),
            ], settings: Fx.settings(enabled: false))
    }

    @Test("§11 G9: a member that shared its day with another session of the course before the night stays")
    func aMemberSharingItsDayBeforeTheNightStays() {
        // Version 3's first code moved "(2)" off Friday: the day held another session of the
        // course, although both had been there before the night (G2 allows that).
        let r = night(interleavedRuns(), at: "2025-01-08T03:00")
        #expect(r.place("h4") == range("2025-01-08T15:45", "2025-01-08T16:15"))
        #expect(r.edits.map(\.id) == [id("h4")])
        #expect(r.summary == PlanSummary(rescheduled: 1, chained: 1))
    }

    @Test("§11 G9: the next run that shares the day of an unmoved member is not pushed (seed 4849)")
    func theNextRunOnTheDayOfAnUnmovedMemberStays() {
        // The missed part lands the day before Friday, so the second run's Friday part joins
        // the re-lay (§5.5) on the day its predecessor holds; that predecessor stayed.
        var plan = interleavedRuns()
        plan.put(Fx.task("club", "Club", "2025-01-08T08:00", "2025-01-08T22:00", category: "社團"))
        let r = night(plan, at: "2025-01-08T03:00")
        #expect(r.place("h4") == range("2025-01-09T15:45", "2025-01-09T16:15"))
        #expect(r.edits.map(\.id) == [id("h4")])
    }

    @Test("§11 G9: a member after an overnight part that stayed keeps the day that part ends on")
    func aMemberOnTheDayAnOvernightPartEndsStays() {
        // "[2/3]" runs past midnight into Thursday, where "[3/3]" is; both stay, so "[3/3]" was
        // pushed by nothing (property seed 750).
        let plan = Fx.plan(
            [
                Fx.task("e1", "Essay [1/3]", "2025-01-06T21:30", "2025-01-06T23:30"),
                Fx.task("e2", "Essay [2/3]", "2025-01-08T22:30", "2025-01-09T00:30"),
                Fx.task("e3", "Essay [3/3]", "2025-01-09T22:00", "2025-01-09T23:00"),
            ], settings: Fx.settings(enabled: false))
        let r = night(plan, at: "2025-01-07T03:00")
        #expect(r.place("e1") == range("2025-01-07T21:30", "2025-01-07T23:30"))
        #expect(r.edits.map(\.id) == [id("e1")])
    }

    @Test("§11 later passes: a run that reaches across a settled session does not lay its part after it (G2)")
    func aLaterPassKeepsTheOrderAroundASettledSession() {
        // Two runs of one course with different markers (multi-night property seed 106820).
        // The first pass finds no room for "- part 1" before "(2)" and moves "(1)" to Tuesday;
        // the second pass no longer sees the settled "(1)" between "- part 1" and "- part 2",
        // so "- part 1" links up with "(2)" and "- part 4". Laying that run put "- part 1"
        // after "(1)", which came after it.
        let windows = Fx.windows([
            .tue: ["11:00-12:30"], .wed: ["09:00-21:00"], .thu: ["09:00-21:00"], .fri: ["09:00-21:00"],
            .sat: ["09:00-21:00"], .sun: ["09:00-21:00"], .mon: ["09:00-21:00"],
        ])
        let plan = Fx.plan(
            [
                Fx.task("a1", "Math - part 1", "2025-01-02T17:45", "2025-01-02T19:45"),
                Fx.task("b1", "Math (1)", "2025-01-05T11:00", "2025-01-05T12:30"),
                Fx.task("a2", "Math - part 2", "2025-01-05T18:45", "2025-01-05T20:45", completed: true),
                Fx.task("a3", "Math - part 3", "2025-01-07T17:45", "2025-01-07T19:45", completed: true),
                Fx.task("b2", "Math (2)", "2025-01-08T10:45", "2025-01-08T12:15"),
                Fx.task("a4", "Math - part 4", "2025-01-09T17:45", "2025-01-09T19:45"),
            ], settings: Fx.settings(windows: windows))
        let r = night(plan, at: "2025-01-07T03:00")
        #expect(r.place("b1") == range("2025-01-07T11:00", "2025-01-07T12:30"))
        #expect(r.edits.map(\.id) == [id("b1")])
        #expect(r.flags == [PlanFlag(id: id("a1"), kind: .couldNotFit, title: "Math - part 1")])
    }

    @Test("§11 series details: a session re-laid onto a DST day lasts its length in elapsed minutes")
    func aSessionOnASpringForwardDayKeepsItsElapsedLength() {
        // New York skips 02:00–03:00 on 2025-03-09. The class of 03-08 (01:30–03:00, already
        // past at 03:00) goes to its own time on 03-09: 90 minutes end at 04:00, not at 03:00.
        let plan = Fx.plan(
            [
                Fx.task("a", "Night class", "2025-03-07T01:30", "2025-03-07T03:00", category: "Math"),
                Fx.task("b", "Night class", "2025-03-08T01:30", "2025-03-08T03:00", category: "Math"),
            ], settings: Fx.settings(enabled: false), zone: Fx.newYork)
        let r = night(plan, at: "2025-03-08T03:00")
        #expect(r.place("b") == range("2025-03-09T01:30", "2025-03-09T04:00"))
    }

    @Test("§11 series details: a session moved off a DST day keeps its elapsed length, not its wall-clock span")
    func aSessionMovedOffASpringForwardDayKeepsItsElapsedLength() {
        // 01:30–04:00 on 2025-03-09 is 90 minutes; on 03-10 it takes 90 minutes, not 150.
        let plan = Fx.plan(
            [Fx.task("e", "Essay", "2025-03-09T01:30", "2025-03-09T04:00")], settings: Fx.settings(enabled: false),
            zone: Fx.newYork)
        let r = night(plan, at: "2025-03-10T03:00")
        #expect(r.place("e") == range("2025-03-10T08:00", "2025-03-10T09:30"))
    }

    private func course(until: String) -> StudyTask {
        Fx.task(
            "c", "Course", "2025-01-01T10:00", "2025-01-01T11:00", category: "Math",
            repeat: RepeatRule(every: .daily, until: date(until)))
    }

    @Test(
        "§11 series details: after downtime a shift course with a tiny horizon is appended past taken dates, not left open"
    )
    func aShiftAppendIsNotBoundedByTheHorizon() {
        // No night ran 3–6 January; horizonDays 1 let version 2 try two dates after the end,
        // both taken, so all four stayed open in the past.
        let taken = ["2025-01-11", "2025-01-12"].enumerated().map { i, d in
            Fx.task("x\(i)", "Dentist", d + "T09:30", d + "T10:30", category: "Life")
        }
        let plan = Fx.plan(
            [course(until: "2025-01-10")] + taken, settings: Fx.settings(enabled: false, horizonDays: 1),
            overrides: (1...2).map { Fx.completed("c", "2025-01-0\($0)") })
        let r = night(plan, at: "2025-01-07T03:00")
        #expect(r.edits.map(\.id.description) == ["c@2025-01-03", "c@2025-01-04", "c@2025-01-05", "c@2025-01-06"])
        #expect(
            r.edits.map { $0.after!.start.description } == [
                "2025-01-13T10:00", "2025-01-14T10:00", "2025-01-15T10:00", "2025-01-16T10:00",
            ])
        #expect(r.flags.isEmpty)
    }

    @Test("§11 series details: past the plan's last named date a shift append skips the days a weekly series takes")
    func aShiftAppendBeyondThePlanReadsTheRepeatingSeries() {
        // Piano every Tuesday at 10:00, no end: 14 January (a Tuesday) is taken.
        let piano = Fx.task(
            "p", "Piano", "2025-01-07T09:30", "2025-01-07T10:30", category: "Music", repeat: RepeatRule(every: .weekly))
        let plan = Fx.plan(
            [course(until: "2025-01-10"), piano], settings: Fx.settings(enabled: false),
            overrides: (1...2).map { Fx.completed("c", "2025-01-0\($0)") })
        let r = night(plan, at: "2025-01-07T03:00")
        #expect(
            r.edits.filter { $0.reason == .seriesShift }.map { $0.after!.start.date.description } == [
                "2025-01-11", "2025-01-12", "2025-01-13", "2025-01-15",
            ])
    }

    @Test(
        "§11 series details: a daily habit at the course's time for ever leaves the course flagged, and the night ends")
    func aShiftAppendThatCanNeverFitIsFlagged() {
        let gym = Fx.task(
            "g", "Gym", "2025-01-01T09:45", "2025-01-01T10:15", category: "Health", repeat: RepeatRule(every: .daily))
        let plan = Fx.plan(
            [course(until: "2025-01-10"), gym], settings: Fx.settings(enabled: false),
            overrides: (1...5).map { Fx.completed("c", "2025-01-0\($0)") }
                + (1...6).map { Fx.completed("g", "2025-01-0\($0)") })
        let r = night(plan, at: "2025-01-07T03:00")
        #expect(r.edits.isEmpty)
        #expect(r.flags == [PlanFlag(id: id("c@2025-01-06"), kind: .couldNotFit, title: "Course")])
    }
}
