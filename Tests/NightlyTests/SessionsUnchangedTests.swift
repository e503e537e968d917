import Foundation
import Planning
import ReplanTestSupport
import Store
import Testing

@testable import Nightly

@Suite("Whether tonight's changes leave the settled days' sessions alone (so the stored base still holds)")
struct SessionsUnchangedTests {
    static let settled = CivilDate("2025-01-01")!
    let user = try! User(id: "u", zone: UserZone(identifier: "Asia/Taipei"))

    func plan(slides: [SeriesSlide] = [], overrides: [OccurrenceOverride] = [], extra: [StudyTask] = []) -> UserPlan {
        let vocab = StudyTask(
            id: "vocab", userID: "u", title: "Vocabulary", category: "English", start: at("2024-12-15T07:00"),
            end: at("2024-12-15T07:30"), repeatRule: RepeatRule(every: .weekly))
        return UserPlan(user: user, tasks: [vocab] + extra, overrides: overrides, slides: slides)
    }

    func unchanged(_ before: UserPlan, _ after: UserPlan) -> Bool {
        let changes = PlanDiff.changes(from: before, to: after, now: Date(timeIntervalSince1970: 1_736_190_000)) {
            _, _ in "test"
        }
        return StatisticsRefresh.sessionsUnchanged(before, after, by: changes, through: SessionsUnchangedTests.settled)
    }

    @Test func movingAgainASessionFirstMissedLongAgoLeavesTheSettledDaysAlone() {
        let id = OccurrenceID(taskID: "vocab", originalDate: CivilDate("2024-12-15")!)
        var before = plan()
        before.move(id, start: at("2025-01-08T07:00"), end: at("2025-01-08T07:30"))
        var after = before
        after.move(id, start: at("2025-01-09T07:00"), end: at("2025-01-09T07:30"))
        #expect(unchanged(before, after))
    }

    @Test func movingASessionOutOfASettledDayChangesIt() {
        let before = plan()
        var after = before
        after.move(
            OccurrenceID(taskID: "vocab", originalDate: CivilDate("2024-12-29")!), start: at("2025-01-08T07:00"),
            end: at("2025-01-08T07:30"))
        #expect(!unchanged(before, after))
    }

    @Test func droppingAnOldOpenSessionChangesTheSettledDays() {
        let old = StudyTask(
            id: "essay", userID: "u", title: "Essay", category: "Writing", start: at("2024-12-30T18:00"),
            end: at("2024-12-30T19:00"))
        let before = plan(extra: [old])
        var after = before
        after.deleteTask("essay")
        #expect(!unchanged(before, after))
    }

    @Test func growingASlideWhoseSettledSessionWasMovedAwayLeavesThemAlone() {
        // The slide starts on 12-29, but that session was moved to January: the slide moves
        // only sessions after the settled days.
        let moved = OccurrenceOverride(
            taskID: "vocab", originalDate: CivilDate("2024-12-29")!, state: .open,
            start: at("2025-01-07T07:00"), end: at("2025-01-07T07:30"))
        let before = plan(
            slides: [SeriesSlide(taskID: "vocab", from: CivilDate("2024-12-29")!, days: 1)], overrides: [moved])
        var after = before
        after.addSlide(taskID: "vocab", from: CivilDate("2024-12-29")!, days: 1)
        #expect(unchanged(before, after))
    }

    @Test func aSlideThatMovesASettledSessionChangesIt() {
        let before = plan()
        var after = before
        after.addSlide(taskID: "vocab", from: CivilDate("2024-12-29")!, days: 5)
        #expect(!unchanged(before, after))
    }

    @Test func aBackwardSlideThatPullsASessionIntoTheSettledDaysChangesThem() {
        let before = plan()
        var after = before
        // The session of 01-05 slides back to 12-31.
        after.addSlide(taskID: "vocab", from: CivilDate("2025-01-05")!, days: -5)
        #expect(!unchanged(before, after))
    }
}
