import ReplanTestSupport
import Testing

@testable import Planning

/// docs/planning.md §2: current / overdue / stale in local dates, with keepCategories.
@Suite struct OverdueClassifierTests {
    let classifier = OverdueClassifier(now: at("2025-01-08T03:00"), deleteAfterDays: 7, keepCategories: ["Exam"])

    private func session(
        _ start: String, _ end: String, state: OccurrenceState = .open, category: String = "Study",
        allDay: Bool = false
    ) -> Occurrence {
        Occurrence(
            id: OccurrenceID(taskID: "x"), title: "x", category: category, start: at(start), end: at(end),
            allDay: allDay, state: state)
    }

    @Test func yesterdayIsOverdue() {
        #expect(classifier.classify(session("2025-01-07T10:00", "2025-01-07T11:00")) == .overdue)
    }

    @Test func exactlyDeleteAfterDaysAgoIsStillOverdue() {
        #expect(classifier.classify(session("2025-01-01T10:00", "2025-01-01T11:00")) == .overdue)
    }

    @Test func oneDayMoreIsStale() {
        #expect(classifier.classify(session("2024-12-31T23:00", "2024-12-31T23:30")) == .stale)
    }

    @Test func earlierTodayIsCurrent() {
        #expect(classifier.classify(session("2025-01-08T00:30", "2025-01-08T01:00")) == .current)
    }

    @Test func laterIsCurrent() {
        #expect(classifier.classify(session("2025-01-20T10:00", "2025-01-20T11:00")) == .current)
    }

    @Test func aSessionStillRunningAtNowIsCurrent() {
        #expect(classifier.classify(session("2025-01-07T23:00", "2025-01-08T04:00")) == .current)
        #expect(classifier.classify(session("2025-01-07T23:00", "2025-01-08T01:00")) == .overdue)
    }

    @Test func aMultiDayAllDayBlockCoveringTodayIsCurrent() {
        #expect(classifier.classify(session("2025-01-06T00:00", "2025-01-09T00:00", allDay: true)) == .current)
        #expect(classifier.classify(session("2025-01-06T00:00", "2025-01-07T00:00", allDay: true)) == .overdue)
    }

    @Test func completedAndSkippedNeverChange() {
        #expect(classifier.classify(session("2025-01-07T10:00", "2025-01-07T11:00", state: .completed)) == nil)
        #expect(classifier.classify(session("2024-12-01T10:00", "2024-12-01T11:00", state: .skipped)) == nil)
    }

    @Test func theClassCountsCivilDaysNotHoursAcrossDST() {
        // 2025-03-09 has 23 hours in New York; still exactly one day before 2025-03-10.
        let c = OverdueClassifier(now: at("2025-03-10T00:10"), deleteAfterDays: 1)
        #expect(c.classify(session("2025-03-09T00:00", "2025-03-09T00:05")) == .overdue)
        #expect(c.classify(session("2025-03-08T23:55", "2025-03-09T00:00")) == .stale)
    }

    @Test func deleteAfterZeroMakesEveryMissedSessionStale() {
        let c = OverdueClassifier(now: at("2025-01-08T03:00"), deleteAfterDays: 0)
        #expect(c.classify(session("2025-01-07T10:00", "2025-01-07T11:00")) == .stale)
    }

    @Test func keptCategoriesAreFlaggedNotDropped() {
        let list = [
            session("2024-12-20T10:00", "2024-12-20T11:00", category: "Exam"),
            session("2024-12-20T10:00", "2024-12-20T11:00", category: " Exam "),
            session("2024-12-20T10:00", "2024-12-20T11:00", category: "Math"),
        ]
        let result = classifier.classify(list)
        #expect(result.kept.count == 2)
        #expect(result.stale.map(\.category) == ["Math"])
        #expect(classifier.keeps(category: "Exam"))
        #expect(!classifier.keeps(category: "exam")) // categories are compared as written
    }

    @Test func settingsProvideTheKnobs() {
        let c = OverdueClassifier(
            now: at("2025-01-08T03:00"), settings: Fx.settings(deleteAfterDays: 2, keep: ["Exam"]))
        #expect(c.deleteAfterDays == 2)
        #expect(c.keepCategories == ["Exam"])
        #expect(c.today == date("2025-01-08"))
    }
}
