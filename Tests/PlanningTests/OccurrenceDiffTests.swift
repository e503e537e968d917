import Foundation
import Planning
import ReplanTestSupport
import Testing

private let now = Date(timeIntervalSince1970: 1_736_218_800) // 2025-01-07T03:00:00Z

/// Mei in Taipei: a daily "Vocab" series 20:00–20:30 from Mon 1/6 to Fri 1/31, a weekly "Club"
/// on Wednesdays 16:00–18:00 and a one-off "Essay" Tue 1/7 15:00–17:00.
private func plan() -> UserPlan {
    let mei = try! User(id: "mei", zone: try! UserZone(identifier: "Asia/Taipei"))
    return UserPlan(
        user: mei,
        tasks: [
            StudyTask(
                id: "vocab", userID: "mei", title: "Vocab", category: "English",
                start: at("2025-01-06T20:00"), end: at("2025-01-06T20:30"),
                repeatRule: RepeatRule(every: .daily, until: date("2025-01-31"))),
            StudyTask(
                id: "club", userID: "mei", title: "Club", category: "Clubs",
                start: at("2025-01-08T16:00"), end: at("2025-01-08T18:00"), repeatRule: RepeatRule(every: .weekly)),
            StudyTask(
                id: "essay", userID: "mei", title: "Essay", category: "Writing",
                start: at("2025-01-07T15:00"), end: at("2025-01-07T17:00")),
        ])
}

private func text(_ r: TimeRange?) -> String {
    guard let r else { return "-" }
    return r.start.date == r.end.date ? "\(r.start)–\(r.end.time)" : "\(r.start)–\(r.end)"
}

/// The edits behind the row changes from `original` to `working`, one line each.
private func edits(
    _ original: UserPlan, _ working: UserPlan, through: String = "2025-01-14",
    reason: (OccurrenceID) -> PlanEdit.Reason = { _ in .manual }
) -> [String] {
    let changes = PlanDiff.changes(from: original, to: working, now: now) { _, _ in "" }
    return OccurrenceDiff.edits(from: original, to: working, changes: changes, through: date(through), reason: reason)
        .map { "\($0.op) \($0.id) \($0.title): \(text($0.before)) → \(text($0.after))" }
}

@Suite("OccurrenceDiff")
struct OccurrenceDiffTests {
    @Test("no row changes, no edits")
    func unchanged() {
        #expect(edits(plan(), plan()).isEmpty)
    }

    @Test("a one-off task moved is a move of its occurrence")
    func moveOneOff() {
        var working = plan()
        working.move(id("essay"), start: at("2025-01-08T09:00"), end: at("2025-01-08T11:00"))
        #expect(edits(plan(), working) == ["move essay Essay: 2025-01-07T15:00–17:00 → 2025-01-08T09:00–11:00"])
    }

    @Test("a series occurrence moved (an override) is a move of that occurrence only")
    func moveSeriesOccurrence() {
        var working = plan()
        working.move(id("vocab@2025-01-08"), start: at("2025-01-09T07:00"), end: at("2025-01-09T07:30"))
        #expect(
            edits(plan(), working) == ["move vocab@2025-01-08 Vocab: 2025-01-08T20:00–20:30 → 2025-01-09T07:00–07:30"])
    }

    @Test("a skipped series occurrence is a skip, with no after")
    func skip() {
        var working = plan()
        working.skip(id("vocab@2025-01-09"))
        #expect(edits(plan(), working) == ["skip vocab@2025-01-09 Vocab: 2025-01-09T20:00–20:30 → -"])
    }

    @Test("a deleted one-off task is a delete; a deleted series one delete by its task id")
    func delete() {
        var working = plan()
        working.deleteTask("essay")
        #expect(edits(plan(), working) == ["delete essay Essay: 2025-01-07T15:00–17:00 → -"])

        var withOverride = plan()
        withOverride.skip(id("vocab@2025-01-07"))
        working = withOverride
        working.deleteTask("vocab")
        #expect(edits(withOverride, working) == ["delete vocab Vocab: 2025-01-06T20:00–20:30 → -"])
    }

    @Test("a created one-off task is a create; a created series one create by its task id")
    func create() {
        var working = plan()
        working.put(
            StudyTask(
                id: "quiz", userID: "mei", title: "Quiz", category: "Maths",
                start: at("2025-01-09T10:00"), end: at("2025-01-09T10:30")))
        working.put(
            StudyTask(
                id: "art", userID: "mei", title: "Art", category: "Art", start: at("2025-01-10T13:00"),
                end: at("2025-01-10T14:00"), repeatRule: RepeatRule(every: .daily)))
        working.move(id("art@2025-01-11"), start: at("2025-01-11T15:00"), end: at("2025-01-11T16:00"))
        #expect(
            edits(plan(), working) == [
                "create quiz Quiz: - → 2025-01-09T10:00–10:30",
                "create art Art: - → 2025-01-10T13:00–14:00",
            ])
    }

    @Test("a changed title is an update; of a series, one update by its task id")
    func updateTitle() {
        var working = plan()
        var essay = working.tasks["essay"]!
        essay.title = "Essay draft"
        working.put(essay)
        var vocab = working.tasks["vocab"]!
        vocab.title = "Vocabulary"
        working.put(vocab)
        #expect(
            edits(plan(), working) == [
                "update vocab Vocabulary: 2025-01-06T20:00–20:30 → 2025-01-06T20:00–20:30",
                "update essay Essay draft: 2025-01-07T15:00–17:00 → 2025-01-07T15:00–17:00",
            ])
    }

    @Test("completing an occurrence in place is an update")
    func complete() {
        var working = plan()
        working.complete(id("essay"))
        working.complete(id("vocab@2025-01-06"))
        #expect(
            edits(plan(), working) == [
                "update vocab@2025-01-06 Vocab: 2025-01-06T20:00–20:30 → 2025-01-06T20:00–20:30",
                "update essay Essay: 2025-01-07T15:00–17:00 → 2025-01-07T15:00–17:00",
            ])
    }

    @Test("a slide of +1 on a daily series reports every shifted occurrence up to `through` as a move")
    func slideDaily() {
        var working = plan()
        working.addSlide(taskID: "vocab", from: date("2025-01-10"), days: 1)
        #expect(
            edits(plan(), working, through: "2025-01-14") == [
                "move vocab@2025-01-10 Vocab: 2025-01-10T20:00–20:30 → 2025-01-11T20:00–20:30",
                "move vocab@2025-01-11 Vocab: 2025-01-11T20:00–20:30 → 2025-01-12T20:00–20:30",
                "move vocab@2025-01-12 Vocab: 2025-01-12T20:00–20:30 → 2025-01-13T20:00–20:30",
                "move vocab@2025-01-13 Vocab: 2025-01-13T20:00–20:30 → 2025-01-14T20:00–20:30",
                "move vocab@2025-01-14 Vocab: 2025-01-14T20:00–20:30 → 2025-01-15T20:00–20:30",
            ])
    }

    @Test("a slide stops at the series' last date, and reports nothing before its start")
    func slideToTheEnd() {
        var working = plan()
        working.addSlide(taskID: "vocab", from: date("2025-01-30"), days: 1)
        #expect(
            edits(plan(), working, through: "2025-03-01") == [
                "move vocab@2025-01-30 Vocab: 2025-01-30T20:00–20:30 → 2025-01-31T20:00–20:30",
                "move vocab@2025-01-31 Vocab: 2025-01-31T20:00–20:30 → 2025-02-01T20:00–20:30",
            ])
        #expect(edits(plan(), working, through: "2025-01-29").isEmpty)
    }

    @Test("a negative slide also reports the occurrences it pulls in to `through` from after it")
    func negativeSlide() {
        var working = plan()
        working.addSlide(taskID: "vocab", from: date("2025-01-10"), days: -1)
        #expect(
            edits(plan(), working, through: "2025-01-12") == [
                "move vocab@2025-01-10 Vocab: 2025-01-10T20:00–20:30 → 2025-01-09T20:00–20:30",
                "move vocab@2025-01-11 Vocab: 2025-01-11T20:00–20:30 → 2025-01-10T20:00–20:30",
                "move vocab@2025-01-12 Vocab: 2025-01-12T20:00–20:30 → 2025-01-11T20:00–20:30",
                "move vocab@2025-01-13 Vocab: 2025-01-13T20:00–20:30 → 2025-01-12T20:00–20:30",
            ])
        // Undoing it (the slide row deleted) puts them back, and lists the same occurrences.
        #expect(edits(working, plan(), through: "2025-01-12").count == 4)
    }

    @Test("a slide leaves moved occurrences where they are; it moves weekly series by their dates")
    func slideAroundMoves() {
        var original = plan()
        original.move(id("vocab@2025-01-11"), start: at("2025-01-11T09:00"), end: at("2025-01-11T09:30"))
        var working = original
        working.addSlide(taskID: "vocab", from: date("2025-01-10"), days: 2)
        working.addSlide(taskID: "club", from: date("2025-01-10"), days: 1)
        #expect(
            edits(original, working, through: "2025-01-12") == [
                "move vocab@2025-01-10 Vocab: 2025-01-10T20:00–20:30 → 2025-01-12T20:00–20:30",
                "move vocab@2025-01-12 Vocab: 2025-01-12T20:00–20:30 → 2025-01-14T20:00–20:30",
            ])
        #expect(
            edits(original, working, through: "2025-01-15").contains(
                "move club@2025-01-15 Club: 2025-01-15T16:00–18:00 → 2025-01-16T16:00–18:00"))
    }

    @Test("edits are sorted by start and carry the reason given for their occurrence")
    func sortedWithReasons() {
        var working = plan()
        working.skip(id("vocab@2025-01-12"))
        working.move(id("essay"), start: at("2025-01-13T09:00"), end: at("2025-01-13T11:00"))
        working.move(id("vocab@2025-01-08"), start: at("2025-01-08T07:00"), end: at("2025-01-08T07:30"))
        let changes = PlanDiff.changes(from: plan(), to: working, now: now) { _, _ in "" }
        let result = OccurrenceDiff.edits(from: plan(), to: working, changes: changes, through: date("2025-01-14")) {
            $0.taskID == "essay" ? .makeUp : .chainShift
        }
        #expect(result.map(\.id.description) == ["vocab@2025-01-08", "vocab@2025-01-12", "essay"])
        #expect(result.map(\.op) == [.move, .skip, .move])
        #expect(result.map(\.reason) == [.chainShift, .chainShift, .makeUp])
    }
}
