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
}
