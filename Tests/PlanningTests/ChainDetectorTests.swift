import ReplanTestSupport
import Testing

@testable import Planning

/// docs/planning.md §5.1–5.2: links, runs, chains and members.
@Suite struct ChainDetectorTests {
    let today = date("2025-01-08")
    let detector = ChainDetector()

    private func occ(
        _ id: String, _ start: String, minutes: Int = 60, title: String = "Math", category: String = "Math",
        state: OccurrenceState = .open, allDay: Bool = false
    ) -> Occurrence {
        let s = at(start)
        return Occurrence(
            id: ReplanTestSupport.id(id), title: title, category: category, start: s,
            end: allDay ? s : s.adding(minutes: minutes), allDay: allDay, state: state)
    }

    private func chains(_ list: [Occurrence]) -> [Chain] {
        let classes = OverdueClassifier(now: CivilDateTime(date: today, time: timeOfDay("03:00"))).classify(list)
            .classes
        return detector.chains(in: list, classes: classes)
    }

    @Test func consecutiveDaysAtTheSameTimeLink() {
        #expect(detector.linked(occ("a", "2025-01-06T10:00"), occ("b", "2025-01-07T10:00")))
    }

    @Test func timesOfDayDoNotMatter() {
        #expect(detector.linked(occ("a", "2025-01-06T10:00"), occ("b", "2025-01-07T21:30")))
    }

    @Test func consecutivePartNumbersLinkUpToSevenDaysApart() {
        #expect(
            detector.linked(
                occ("a", "2025-01-06T10:00", title: "Math [1/5]"), occ("b", "2025-01-09T10:00", title: "Math [2/5]")))
        #expect(
            detector.linked(
                occ("a", "2025-01-06T10:00", title: "Math Part 1"), occ("b", "2025-01-13T10:00", title: "Math Part 2")))
        #expect(
            !detector.linked(
                occ("a", "2025-01-06T10:00", title: "Math Part 1"), occ("b", "2025-01-14T10:00", title: "Math Part 2")))
        #expect(
            !detector.linked(
                occ("a", "2025-01-06T10:00", title: "Math [1/5]"), occ("b", "2025-01-09T10:00", title: "Math [3/5]")))
        #expect(
            detector.linked(
                occ("a", "2025-01-06T10:00", title: "數學 第一課"), occ("b", "2025-01-09T10:00", title: "數學 第二課")))
    }

    @Test func aGapDayOrTheSameDayBreaksTheLink() {
        #expect(!detector.linked(occ("a", "2025-01-06T10:00"), occ("b", "2025-01-08T10:00")))
        #expect(!detector.linked(occ("a", "2025-01-06T10:00"), occ("b", "2025-01-06T11:00")))
    }

    @Test func allDayNeighboursLinkByDateOnly_andNeverWithTimedOnes() {
        #expect(detector.linked(occ("a", "2025-01-06T00:00", allDay: true), occ("b", "2025-01-07T00:00", allDay: true)))
        #expect(!detector.linked(occ("a", "2025-01-06T00:00", allDay: true), occ("b", "2025-01-07T00:00")))
    }

    @Test func aRunWithAMissedSessionIsAChain_membersFromTheFirstMissedOne() {
        let found = chains([
            occ("a", "2025-01-06T10:00"), occ("b", "2025-01-07T10:00"),
            occ("c", "2025-01-08T10:00"), occ("d", "2025-01-09T10:00"),
        ])
        #expect(found.count == 1)
        #expect(found[0].members.map(\.id.description) == ["a", "b", "c", "d"])
        #expect(found[0].first.id == id("a"))
    }

    @Test func aRunWithoutAMissedSessionIsNoChain() {
        #expect(chains([occ("c", "2025-01-08T10:00"), occ("d", "2025-01-09T10:00")]).isEmpty)
    }

    @Test func aSingleOpenSessionIsNoChain() {
        #expect(chains([occ("a", "2025-01-07T10:00"), occ("b", "2025-01-08T10:00", state: .completed)]).isEmpty)
    }

    @Test func completedSessionsLinkTheRunButAreNotMembers() {
        let found = chains([
            occ("a", "2025-01-05T10:00"), occ("b", "2025-01-06T10:00", state: .completed),
            occ("c", "2025-01-07T10:00"), occ("d", "2025-01-08T10:00"),
        ])
        #expect(found.count == 1)
        #expect(found[0].run.count == 4)
        #expect(found[0].members.map(\.id.description) == ["a", "c", "d"])
    }

    @Test func skippedSessionsBreakTheRun() {
        let found = chains([
            occ("a", "2025-01-06T10:00"), occ("b", "2025-01-07T10:00", state: .skipped),
            occ("c", "2025-01-08T10:00"),
        ])
        #expect(found.isEmpty)
    }

    @Test func staleSessionsKeptForADecisionLinkButAreNotMembers() {
        let list = [occ("old", "2024-12-31T10:00"), occ("a", "2025-01-01T10:00"), occ("b", "2025-01-02T10:00")]
        let found = chains(list)
        #expect(found.count == 1)
        #expect(found[0].members.map(\.id.description) == ["a", "b"])
    }

    @Test func differentCategoriesNeverChain_normalisedTitlesDo() {
        #expect(
            chains([occ("a", "2025-01-07T10:00", category: "Math"), occ("b", "2025-01-08T10:00", category: "Physics")])
                .isEmpty)
        let found = chains([
            occ("a", "2025-01-07T10:00", title: "Math [1/2]"), occ("b", "2025-01-08T10:00", title: "ＭＡＴＨ [2/2]"),
        ])
        #expect(found.count == 1)
    }

    @Test func seriesNeverChain_theirPolicyDecides() {
        let s1 = occ("s@2025-01-07", "2025-01-07T10:00")
        let s2 = occ("s@2025-01-08", "2025-01-08T10:00")
        #expect(chains([s1, s2]).isEmpty)
        #expect(chains([s1, occ("oneoff", "2025-01-08T10:00")]).isEmpty)
    }

    @Test func theOpenSessionsAfterTheRunAreItsNextRuns() {
        let found = chains([
            occ("a", "2025-01-06T10:00"), occ("b", "2025-01-07T10:00"),
            occ("c", "2025-01-09T10:00"), occ("d", "2025-01-10T10:00", state: .completed),
            occ("e", "2025-01-11T10:00"),
        ])
        #expect(found.count == 1)
        #expect(found[0].members.map(\.id.description) == ["a", "b"])
        #expect(found[0].later.map(\.id.description) == ["c", "e"])
    }

    @Test func chainsAreOrderedByTheirFirstMember() {
        let found = chains([
            occ("p1", "2025-01-06T14:00", title: "Physics"), occ("p2", "2025-01-07T14:00", title: "Physics"),
            occ("m1", "2025-01-05T09:00"), occ("m2", "2025-01-06T09:00"),
        ])
        #expect(found.map(\.first.id.description) == ["m1", "p1"])
    }

    @Test func aWiderPartGapCanBeConfigured() {
        #expect(
            ChainDetector(maxPartGap: 9).linked(
                occ("a", "2025-01-06T10:00", title: "Math #1"),
                occ("b", "2025-01-15T10:00", title: "Math #2")))
    }
}
