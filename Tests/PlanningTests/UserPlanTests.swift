import Planning
import ReplanTestSupport
import Testing

/// Mei in Taipei: a daily "Vocab" series 20:00–20:30 from Mon 1/6 to Fri 1/31 and a one-off
/// essay on Tue 1/7 15:00–17:00.
private func plan() -> UserPlan {
    let mei = try! User(id: "mei", zone: try! UserZone(identifier: "Asia/Taipei"), language: "zh-TW")
    let vocab = StudyTask(
        id: "vocab", userID: "mei", title: "Vocab", category: "English",
        start: at("2025-01-06T20:00"), end: at("2025-01-06T20:30"),
        repeatRule: RepeatRule(every: .daily, until: date("2025-01-31")))
    let essay = StudyTask(
        id: "essay", userID: "mei", title: "Essay", category: "作業",
        start: at("2025-01-07T15:00"), end: at("2025-01-07T17:00"))
    return UserPlan(user: mei, tasks: [vocab, essay])
}

private func place(_ plan: UserPlan, _ text: String) -> String? {
    plan.occurrence(id(text)).map { "\($0.start)–\($0.end) \($0.state)" }
}

@Suite("UserPlan")
struct UserPlanTests {
    @Test("occurrences of the plan in a range, sorted by start")
    func occurrencesInRange() {
        let p = plan()
        #expect(
            p.occurrences(from: date("2025-01-07"), through: date("2025-01-08")).map(\.id.description) == [
                "essay", "vocab@2025-01-07", "vocab@2025-01-08",
            ])
    }

    @Test("an occurrence is found by id; ids that name no occurrence give nil")
    func occurrenceByID() {
        let p = plan()
        #expect(place(p, "essay") == "2025-01-07T15:00–2025-01-07T17:00 open")
        #expect(place(p, "vocab@2025-01-31") == "2025-01-31T20:00–2025-01-31T20:30 open")
        #expect(p.occurrence(id("vocab@2025-02-01")) == nil) // past until
        #expect(p.occurrence(id("vocab@2025-01-05")) == nil) // before the first
        #expect(p.occurrence(id("vocab")) == nil) // a series has no undated occurrence
        #expect(p.occurrence(id("essay@2025-01-07")) == nil) // a one-off task has no dated ones
        #expect(p.occurrence(id("ghost")) == nil)
    }

    @Test("moving a one-off task changes its own times, no override")
    func moveOneOff() {
        var p = plan()
        p.move(id("essay"), start: at("2025-01-08T09:00"), end: at("2025-01-08T11:00"))
        #expect(p.tasks["essay"]?.start == at("2025-01-08T09:00"))
        #expect(p.tasks["essay"]?.end == at("2025-01-08T11:00"))
        #expect(p.allOverrides.isEmpty)
        #expect(place(p, "essay") == "2025-01-08T09:00–2025-01-08T11:00 open")
    }

    @Test("moving a series occurrence creates a move override; the series stays")
    func moveSeriesOccurrence() {
        var p = plan()
        p.move(id("vocab@2025-01-08"), start: at("2025-01-09T07:00"), end: at("2025-01-09T07:30"))
        #expect(p.allOverrides.count == 1)
        let o = p.allOverrides[0]
        #expect(o.occurrenceID == id("vocab@2025-01-08"))
        #expect(o.state == .open)
        #expect(o.start == at("2025-01-09T07:00"))
        #expect(o.end == at("2025-01-09T07:30"))
        #expect(p.tasks["vocab"]?.start == at("2025-01-06T20:00"))
        #expect(place(p, "vocab@2025-01-08") == "2025-01-09T07:00–2025-01-09T07:30 open")
        #expect(
            p.occurrences(from: date("2025-01-08"), through: date("2025-01-09")).map(\.id.description) == [
                "vocab@2025-01-08", "vocab@2025-01-09",
            ])
        #expect(p.occurrences(from: date("2025-01-08"), through: date("2025-01-08")).isEmpty)
    }

    @Test("moving an occurrence back to where the series puts it removes the override")
    func moveBackRemovesOverride() {
        var p = plan()
        p.move(id("vocab@2025-01-08"), start: at("2025-01-09T07:00"), end: at("2025-01-09T07:30"))
        p.move(id("vocab@2025-01-08"), start: at("2025-01-08T20:00"), end: at("2025-01-08T20:30"))
        #expect(p.allOverrides.isEmpty)
        #expect(place(p, "vocab@2025-01-08") == "2025-01-08T20:00–2025-01-08T20:30 open")
    }

    @Test("moving a completed occurrence back keeps it completed and drops the move")
    func moveBackKeepsState() {
        var p = plan()
        p.complete(id("vocab@2025-01-08"))
        p.move(id("vocab@2025-01-08"), start: at("2025-01-09T07:00"), end: at("2025-01-09T07:30"))
        p.move(id("vocab@2025-01-08"), start: at("2025-01-08T20:00"), end: at("2025-01-08T20:30"))
        #expect(p.allOverrides.map(\.state) == [.completed])
        #expect(p.allOverrides.first?.isMove == false)
    }

    @Test("the place the series puts an occurrence includes its slides")
    func moveBackToSlidPlace() {
        var p = plan()
        p.addSlide(taskID: "vocab", from: date("2025-01-08"), days: 1)
        p.move(id("vocab@2025-01-08"), start: at("2025-01-09T20:00"), end: at("2025-01-09T20:30"))
        #expect(p.allOverrides.isEmpty)
        p.move(id("vocab@2025-01-08"), start: at("2025-01-08T20:00"), end: at("2025-01-08T20:30"))
        #expect(p.allOverrides.count == 1)
    }

    @Test("skipping marks a series occurrence skipped, in place")
    func skip() {
        var p = plan()
        p.skip(id("vocab@2025-01-08"))
        #expect(place(p, "vocab@2025-01-08") == "2025-01-08T20:00–2025-01-08T20:30 skipped")
        #expect(p.allOverrides.count == 1)
        #expect(p.allOverrides.first?.isMove == false)
    }

    @Test("skipping a moved occurrence keeps where it was moved")
    func skipMoved() {
        var p = plan()
        p.move(id("vocab@2025-01-08"), start: at("2025-01-09T07:00"), end: at("2025-01-09T07:30"))
        p.skip(id("vocab@2025-01-08"))
        #expect(place(p, "vocab@2025-01-08") == "2025-01-09T07:00–2025-01-09T07:30 skipped")
    }

    @Test("a one-off task is never skipped (stale ones are deleted instead)")
    func skipOneOff() {
        var p = plan()
        p.skip(id("essay"))
        #expect(p == plan())
    }

    @Test("completing: a series occurrence gets an override, a one-off task its flag")
    func complete() {
        var p = plan()
        p.complete(id("vocab@2025-01-08"))
        p.complete(id("essay"))
        #expect(place(p, "vocab@2025-01-08") == "2025-01-08T20:00–2025-01-08T20:30 completed")
        #expect(place(p, "vocab@2025-01-09") == "2025-01-09T20:00–2025-01-09T20:30 open")
        #expect(p.tasks["essay"]?.completed == true)
        #expect(place(p, "essay") == "2025-01-07T15:00–2025-01-07T17:00 completed")
        #expect(p.allOverrides.count == 1)
    }

    @Test(
        "edits of ids that name no occurrence change nothing",
        arguments: [
            "vocab", "vocab@2025-02-01", "vocab@2025-01-05", "essay@2025-01-07", "ghost", "ghost@2025-01-07",
        ])
    func editsOfNoOccurrence(_ text: String) {
        var p = plan()
        p.move(id(text), start: at("2025-01-20T07:00"), end: at("2025-01-20T08:00"))
        p.skip(id(text))
        p.complete(id(text))
        #expect(p == plan())
    }

    @Test("deleting a task removes its overrides and slides, and only its own")
    func deleteTask() {
        let other = StudyTask(
            id: "math", userID: "mei", title: "Math", category: "Math",
            start: at("2025-01-06T08:00"), end: at("2025-01-06T09:00"),
            repeatRule: RepeatRule(every: .weekly))
        var p = plan()
        p.put(other)
        p.complete(id("vocab@2025-01-06"))
        p.skip(id("vocab@2025-01-07"))
        p.move(id("vocab@2025-01-09"), start: at("2025-01-09T07:00"), end: at("2025-01-09T07:30"))
        p.addSlide(taskID: "vocab", from: date("2025-01-10"), days: 1)
        p.complete(id("math@2025-01-06"))
        p.addSlide(taskID: "math", from: date("2025-01-13"), days: 1)
        p.deleteTask("vocab")
        #expect(p.tasks["vocab"] == nil)
        #expect(p.allOverrides.map(\.occurrenceID.description) == ["math@2025-01-06"])
        #expect(p.allSlides.map(\.taskID) == ["math"])
        #expect(
            p.occurrences(from: date("2025-01-06"), through: date("2025-01-12")).map(\.taskID) == ["math", "essay"])
    }

    @Test("slides from the same date merge; a slide back to zero disappears")
    func addSlideMerges() {
        var p = plan()
        p.addSlide(taskID: "vocab", from: date("2025-01-10"), days: 1)
        p.addSlide(taskID: "vocab", from: date("2025-01-10"), days: 2)
        #expect(p.allSlides.map { "\($0.from)+\($0.days)" } == ["2025-01-10+3"])
        p.addSlide(taskID: "vocab", from: date("2025-01-08"), days: 1)
        #expect(p.allSlides.map { "\($0.from)+\($0.days)" } == ["2025-01-08+1", "2025-01-10+3"])
        #expect(place(p, "vocab@2025-01-10") == "2025-01-14T20:00–2025-01-14T20:30 open")
        p.addSlide(taskID: "vocab", from: date("2025-01-10"), days: -3)
        p.addSlide(taskID: "vocab", from: date("2025-01-20"), days: 0)
        #expect(p.allSlides.map { "\($0.from)+\($0.days)" } == ["2025-01-08+1"])
        p.addSlide(taskID: "vocab", from: date("2025-01-08"), days: -1)
        #expect(p.allSlides.isEmpty)
        #expect(p == plan())
    }

    @Test("the plan exposes the user's zone and settings")
    func userValues() {
        let p = plan()
        #expect(p.zone.identifier == "Asia/Taipei")
        #expect(p.settings == UserSettings())
        #expect(p.sortedTasks.map(\.id) == ["essay", "vocab"])
    }
}
