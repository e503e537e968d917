import Foundation
import Nightly
import Planning
import Store
import Testing

/// A series slide (planning.md §3.4) reaches as far as the night's busy index grows, far past
/// the window the job loads for its start. Later nights must see what it wrote out there and
/// what the student keeps out there, or they trip over it.
@Suite("Series slides across nights (issue: a night conflicts with rows an earlier night wrote)")
struct SlideAcrossNightsTests {
    /// Default windows (Mon–Fri 09:00–17:00). Two daily 90-minute series, done Mon–Wed
    /// 2025-01-06…08 and missed on Thursday; on Saturday a club sits at each series' time, so
    /// the first slide's Saturday occurrence is re-placed on Monday, and from there every
    /// later one is re-placed to keep the order: one session a weekday for seven a week, a
    /// gap that grows as far as the night looks. The earlier series (Algebra) grows the busy
    /// index, so the later one (Biology) writes overrides far past the window.
    func addStudent(at path: String, ahead: [OccurrenceOverride] = []) throws {
        let db = try Database.open(path: path)
        let user = try User(id: "mei", zone: UserZone(identifier: "UTC"))
        try UserRepository(db).add(user, now: SlideAcrossNightsTests.night("2025-01-09"))
        func daily(_ id: String, _ title: String, _ start: String, _ end: String) -> StudyTask {
            StudyTask(id: id, userID: "mei", title: title, category: title, start: CivilDateTime(start)!,
                      end: CivilDateTime(end)!, repeatRule: RepeatRule(every: .daily))
        }
        func club(_ id: String, _ start: String, _ end: String) -> StudyTask {
            StudyTask(id: id, userID: "mei", title: "Club", category: "Club", start: CivilDateTime(start)!, end: CivilDateTime(end)!)
        }
        let tasks = [daily("algebra", "Algebra", "2025-01-06T09:00", "2025-01-06T10:30"),
                     daily("biology", "Biology", "2025-01-06T15:00", "2025-01-06T16:30"),
                     club("club-am", "2025-01-11T09:00", "2025-01-11T10:30"),
                     club("club-pm", "2025-01-11T15:00", "2025-01-11T16:30")]
        let done = ["algebra", "biology"].flatMap { task in
            ["2025-01-06", "2025-01-07", "2025-01-08"].map {
                OccurrenceOverride(taskID: task, originalDate: CivilDate($0)!, state: .completed)
            }
        }
        let plan = UserPlan(user: user, tasks: tasks, overrides: done + ahead)
        let changes = PlanDiff.changes(from: UserPlan(user: user, tasks: []), to: plan,
                                       now: SlideAcrossNightsTests.night("2025-01-09")) { _, _ in "import" }
        _ = try ChangesetStore(db).commit(NewChangeset(userID: "mei", origin: .import, planDate: nil,
                                                       createdAt: SlideAcrossNightsTests.night("2025-01-09"), changes: changes))
    }

    /// 03:00 UTC on a date: the student's night.
    static func night(_ day: String) -> Date { Timestamp.date("\(day)T03:00:00Z")! }

    func run(_ path: String, on day: String) throws -> NightlyRunner.Report {
        try NightlyRunner(databasePath: path, pipeline: UserPipeline(reviewer: nil),
                          options: RunOptions(now: SlideAcrossNightsTests.night(day))).run()
    }

    @Test("a later night sees the overrides an earlier night's slide wrote past its window, and commits")
    func laterNightSeesFarOverrides() throws {
        let f = try NightlyFixture()
        try addStudent(at: f.path)
        let first = try run(f.path, on: "2025-01-10")
        #expect(first.changed == 1 && first.failed == 0)
        // The scenario holds: Friday's slide wrote Biology overrides beyond what a window
        // around Wednesday 01-15 reaches (through = 01-15 + 2 × 14 days, plus 7 days of slack).
        let db = try f.open()
        let farthest = try db.queryFirst("SELECT max(original_date) FROM occurrence_overrides WHERE task_id = 'biology'", []) {
            $0.text(0)
        }
        #expect(farthest.map { $0 > "2025-02-19" } == true)

        for day in ["2025-01-11", "2025-01-15"] {
            let report = try run(f.path, on: day)
            #expect(report.failed == 0, "night \(day)")
            let error = try db.queryFirst("SELECT error FROM user_runs WHERE user_id = 'mei' AND plan_date = ?", [.text(day)]) {
                $0.optionalText(0)
            }
            #expect(error == .some(nil), "night \(day): \(String(describing: error))")
        }
    }

    @Test("a slide pins a completed occurrence however far ahead it lies")
    func slidePinsCompletedFarAhead() throws {
        let f = try NightlyFixture()
        // Done ahead of time, far past the first night's window (through 2025-02-07).
        try addStudent(at: f.path, ahead: [OccurrenceOverride(taskID: "algebra", originalDate: CivilDate("2025-06-02")!,
                                                              state: .completed)])
        _ = try run(f.path, on: "2025-01-10")
        let plan = try PlanRepository(try f.open()).loadPlan(userID: "mei", window: nil)
        let day = CivilDate("2025-06-02")!
        let doneAhead = plan.occurrences(from: day.adding(days: -10), through: day.adding(days: 10))
            .filter { $0.state == .completed }
        #expect(doneAhead.map(\.id.description) == ["algebra@2025-06-02"])
        #expect(doneAhead.first?.start == CivilDateTime("2025-06-02T09:00"))
    }
}
