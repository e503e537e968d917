import Foundation
import Planning
import ReplanTestSupport
import Testing

private let loaded = Date(timeIntervalSince1970: 1_735_689_600) // 2025-01-01T00:00:00Z
private let now = Date(timeIntervalSince1970: 1_736_218_800) // 2025-01-07T03:00:00Z

/// Mei in Taipei: a daily "Vocab" series 20:00–20:30 (version 4) with a completed 1/6 (version
/// 2) and a slide of +1 from 1/20 (version 3); a one-off "Essay" Tue 1/7 15:00–17:00 (version 2);
/// a weekly "Club" series with a skipped 1/15 and a slide.
private func plan() -> UserPlan {
    let mei = try! User(id: "mei", zone: try! UserZone(identifier: "Asia/Taipei"))
    let vocab = StudyTask(
        id: "vocab", userID: "mei", title: "Vocab", category: "English",
        start: at("2025-01-06T20:00"), end: at("2025-01-06T20:30"),
        repeatRule: RepeatRule(every: .daily, until: date("2025-01-31")), createdAt: loaded, version: 4)
    let essay = StudyTask(
        id: "essay", userID: "mei", title: "Essay", category: "Writing",
        start: at("2025-01-07T15:00"), end: at("2025-01-07T17:00"), createdAt: loaded, version: 2)
    let club = StudyTask(
        id: "club", userID: "mei", title: "Club", category: "Clubs",
        start: at("2025-01-08T16:00"), end: at("2025-01-08T18:00"),
        repeatRule: RepeatRule(every: .weekly), createdAt: loaded, version: 1)
    return UserPlan(
        user: mei, tasks: [vocab, essay, club],
        overrides: [
            OccurrenceOverride(taskID: "vocab", originalDate: date("2025-01-06"), state: .completed, version: 2),
            OccurrenceOverride(taskID: "club", originalDate: date("2025-01-15"), state: .skipped, version: 1),
        ],
        slides: [
            SeriesSlide(taskID: "vocab", from: date("2025-01-20"), days: 1, version: 3),
            SeriesSlide(taskID: "club", from: date("2025-01-22"), days: 1, version: 1),
        ])
}

private func diff(_ original: UserPlan, _ working: UserPlan) -> [RowChange] {
    PlanDiff.changes(from: original, to: working, now: now) { entity, key in "\(entity.rawValue) \(key)" }
}

/// `entity key: before-version → after-version`, nil versions as "-".
private func summary(_ changes: [RowChange]) -> [String] {
    changes.map {
        let b = RowChange.version(of: $0.before).map(String.init) ?? "-"
        let a = RowChange.version(of: $0.after).map(String.init) ?? "-"
        return "\($0.entity.rawValue) \($0.key): \(b) → \(a)"
    }
}

@Suite("PlanDiff")
struct PlanDiffTests {
    @Test("an unchanged plan produces no row changes")
    func unchanged() {
        #expect(diff(plan(), plan()).isEmpty)
    }

    @Test("re-putting a task with other bookkeeping (version, times) but the same content changes nothing")
    func bookkeepingIsNotContent() {
        var working = plan()
        var essay = working.tasks["essay"]!
        essay.version = 99
        essay.updatedAt = now
        working.put(essay)
        #expect(diff(plan(), working).isEmpty)
    }

    @Test("a created task: no before, version 1, created and updated now")
    func createTask() throws {
        var working = plan()
        working.put(
            StudyTask(
                id: "quiz", userID: "mei", title: "Quiz", category: "Maths",
                start: at("2025-01-09T10:00"), end: at("2025-01-09T10:30"), version: 0))
        let changes = diff(plan(), working)
        #expect(summary(changes) == ["task quiz: - → 1"])
        let after = try RowImage.task(from: try #require(changes[0].after))
        #expect(after.createdAt == now && after.updatedAt == now && after.version == 1)
        #expect(after.title == "Quiz")
        #expect(changes[0].reason == "task quiz")
    }

    @Test("an updated task: before as loaded, after = before's version + 1, updated now, created kept")
    func updateTask() throws {
        var working = plan()
        var essay = working.tasks["essay"]!
        essay.title = "Essay draft"
        working.put(essay)
        let changes = diff(plan(), working)
        #expect(summary(changes) == ["task essay: 2 → 3"])
        #expect(changes[0].before == RowImage.task(plan().tasks["essay"]!))
        let after = try RowImage.task(from: try #require(changes[0].after))
        #expect(after.title == "Essay draft" && after.createdAt == loaded && after.updatedAt == now)
    }

    @Test("a one-off move is an update of the task row")
    func moveOneOff() throws {
        var working = plan()
        working.move(id("essay"), start: at("2025-01-08T09:00"), end: at("2025-01-08T11:00"))
        let changes = diff(plan(), working)
        #expect(summary(changes) == ["task essay: 2 → 3"])
        #expect(try RowImage.task(from: changes[0].after!).start == at("2025-01-08T09:00"))
    }

    @Test("a deleted task takes its overrides and slides with it, children first")
    func deleteTask() {
        var working = plan()
        working.deleteTask("vocab")
        let changes = diff(plan(), working)
        #expect(
            Set(summary(changes.dropLast())) == ["override vocab@2025-01-06: 2 → -", "slide vocab@2025-01-20: 3 → -"])
        #expect(summary([changes.last!]) == ["task vocab: 4 → -"])
        #expect(changes.allSatisfy { $0.after == nil && $0.before != nil })
        #expect(changes.last!.before == RowImage.task(plan().tasks["vocab"]!))
    }

    @Test("override rows: a new move is created at version 1, a changed one bumped, a move back deleted")
    func overrideRows() throws {
        var working = plan()
        working.move(id("vocab@2025-01-08"), start: at("2025-01-08T07:00"), end: at("2025-01-08T07:30"))
        working.move(id("vocab@2025-01-06"), start: at("2025-01-06T21:00"), end: at("2025-01-06T21:30"))
        working.skip(id("vocab@2025-01-09"))
        var changes = diff(plan(), working)
        #expect(
            summary(changes) == [
                "override vocab@2025-01-06: 2 → 3", "override vocab@2025-01-08: - → 1",
                "override vocab@2025-01-09: - → 1",
            ])
        let moved = try RowImage.override(from: changes[1].after!)
        #expect(
            moved
                == OccurrenceOverride(
                    taskID: "vocab", originalDate: date("2025-01-08"), state: .open,
                    start: at("2025-01-08T07:00"), end: at("2025-01-08T07:30"), version: 1))
        #expect(try RowImage.override(from: changes[0].after!).state == .completed) // moved and still completed
        #expect(changes[1].reason == "override vocab@2025-01-08")

        // Moving a stored move back where the series puts it needs no override row any more.
        let p = plan()
        let stored = UserPlan(
            user: p.user, tasks: p.sortedTasks,
            overrides: p.allOverrides + [
                OccurrenceOverride(
                    taskID: "vocab", originalDate: date("2025-01-08"), state: .open,
                    start: at("2025-01-08T07:00"), end: at("2025-01-08T07:30"), version: 1)
            ], slides: p.allSlides)
        working = stored
        working.move(id("vocab@2025-01-08"), start: at("2025-01-08T20:00"), end: at("2025-01-08T20:30"))
        changes = diff(stored, working)
        #expect(summary(changes) == ["override vocab@2025-01-08: 1 → -"])
        #expect(changes[0].before == RowImage.override(stored.overrides[id("vocab@2025-01-08")]!))
    }

    @Test("slide rows: a new slide at version 1, a changed one bumped, a slide back to zero deleted")
    func slideRows() throws {
        var working = plan()
        working.addSlide(taskID: "vocab", from: date("2025-01-10"), days: 1)
        working.addSlide(taskID: "vocab", from: date("2025-01-20"), days: 2)
        working.addSlide(taskID: "club", from: date("2025-01-22"), days: -1)
        let changes = diff(plan(), working)
        #expect(
            summary(changes) == [
                "slide club@2025-01-22: 1 → -", "slide vocab@2025-01-10: - → 1", "slide vocab@2025-01-20: 3 → 4",
            ])
        #expect(
            try RowImage.slide(from: changes[2].after!)
                == SeriesSlide(taskID: "vocab", from: date("2025-01-20"), days: 3, version: 4))
        #expect(
            try RowImage.slide(from: changes[0].before!)
                == SeriesSlide(taskID: "club", from: date("2025-01-22"), days: 1, version: 1))
        #expect(changes[1].reason == "slide vocab@2025-01-10")
    }

    @Test("order: task upserts, then their children, then the deleted tasks' children, then task deletions")
    func order() {
        var working = plan()
        working.deleteTask("club")
        working.put(
            StudyTask(
                id: "art", userID: "mei", title: "Art", category: "Art", start: at("2025-01-09T10:00"),
                end: at("2025-01-09T11:00"), repeatRule: RepeatRule(every: .daily)))
        working.move(id("art@2025-01-10"), start: at("2025-01-10T12:00"), end: at("2025-01-10T13:00"))
        working.addSlide(taskID: "art", from: date("2025-01-12"), days: 1)
        var essay = working.tasks["essay"]!
        essay.note = "bring notes"
        working.put(essay)
        working.skip(id("vocab@2025-01-07"))
        working.deleteTask("essay-that-never-was")
        let changes = diff(plan(), working)
        let lines = summary(changes)
        #expect(Array(lines.prefix(2)) == ["task art: - → 1", "task essay: 2 → 3"])
        #expect(
            Array(lines[2..<5]) == [
                "override art@2025-01-10: - → 1", "override vocab@2025-01-07: - → 1", "slide art@2025-01-12: - → 1",
            ])
        #expect(Set(lines[5..<7]) == ["override club@2025-01-15: 1 → -", "slide club@2025-01-22: 1 → -"])
        #expect(lines[7] == "task club: 1 → -")
        #expect(lines.count == 8)
    }

    @Test("inverted swaps before and after, keeping entity, key and reason; twice is the original")
    func inverted() {
        var working = plan()
        working.deleteTask("vocab")
        working.move(id("essay"), start: at("2025-01-08T09:00"), end: at("2025-01-08T11:00"))
        for change in diff(plan(), working) {
            let undo = change.inverted
            #expect(undo.before == change.after && undo.after == change.before)
            #expect(undo.entity == change.entity && undo.key == change.key && undo.reason == change.reason)
            #expect(undo.inverted == change)
        }
    }

    @Test("the diff back undoes the diff there: the same rows, before and after swapped")
    func diffBackIsInverse() {
        var working = plan()
        working.move(id("vocab@2025-01-08"), start: at("2025-01-08T07:00"), end: at("2025-01-08T07:30"))
        working.addSlide(taskID: "club", from: date("2025-01-29"), days: 2)
        let there = diff(plan(), working)
        #expect(there.map { "\($0.entity) \($0.key)" } == ["override vocab@2025-01-08", "slide club@2025-01-29"])
        #expect(there.allSatisfy { $0.before == nil && $0.after != nil })
        let back = diff(working, plan())
        #expect(back.map { "\($0.entity) \($0.key)" } == ["override vocab@2025-01-08", "slide club@2025-01-29"])
        #expect(back.allSatisfy { $0.after == nil && $0.before != nil })
    }
}
