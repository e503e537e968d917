import Foundation
import JSON
import Planning
import ReplanTestSupport
import Testing

@testable import Assistant

/// The tools keep the rules' order and pace (G2, docs/model.md §13) and a slot offered to one
/// refused item stays that item's for the rest of the call.
@Suite struct ToolExecutorOrderTests {
    /// Monday 2025-01-13, 03:00 in Taipei, after a week in which nothing ran.
    static let monday = at("2025-01-13T03:00")
    static let mondayInstant = Fx.taipei.instant(at("2025-01-13T03:00"))

    /// A weekly Piano lesson on Mondays 15:00–16:00 from December; nothing was done since
    /// 2024-12-30, so the lessons of 2025-01-06 (and before) are open in the past.
    static let piano = Fx.plan([
        Fx.task(
            "piano", "Piano", "2024-12-02T15:00", "2024-12-02T16:00", category: "Music",
            repeat: RepeatRule(every: .weekly))
    ])

    static func executor(_ plan: UserPlan, now: CivilDateTime) -> ToolExecutor {
        ToolExecutor(plan: plan, now: now, createdAt: Date(timeIntervalSince1970: 0), makeTaskID: SequentialIDs().make)
    }

    static func move(_ id: String, _ start: String, _ end: String) -> [String: Any] {
        ["taskId": id, "start": start, "end": end, "reason": "make up"]
    }

    static func call(_ name: String, _ arguments: Any) -> ToolCall {
        ToolCall(id: "call_1", name: name, arguments: MockScript.jsonText(arguments))
    }

    @Test func aModelTakingTheFirstListedFreeSlotAfterDowntimeCannotPutTwoPianoLessonsOnOneMonday() throws {
        // The night's rules first: the missed lesson fits nowhere before today's lesson.
        let night = Postponer(now: Self.mondayInstant).postpone(Self.piano)
        let flagged = try #require(night.flags.first { $0.kind == .couldNotFit && $0.id.taskID == "piano" })
        // What a lazy model does: the first free slot the prompt lists, today 09:00.
        let slots = FreeSlots.render(night.plan, now: night.now, through: night.now.date.adding(days: 6))
        let first = try #require(slots.split(separator: "\n").first)
        #expect(first.hasPrefix("Mon 01-13: 09:00-15:00"))
        var executor = Self.executor(night.plan, now: night.now)
        let result = executor.execute(
            Self.call(
                "updateTask", ["tasks": [Self.move(flagged.id.description, "2025-01-13T09:00", "2025-01-13T10:00")]]))
        let entry = try #require(result.arrayValue?.first)
        #expect(entry["ok"] == false)
        #expect(
            entry["error"]?.stringValue
                == "a course keeps its order and pace: this session goes before the next session of the course, 'Piano' on 2025-01-13"
        )
        // No day before today's lesson is left: there is no valid slot to offer.
        #expect(entry["nearest"] == nil)
        #expect(executor.plan == night.plan)
        #expect(executor.touched.isEmpty)
        let mondays = executor.plan.occurrences(from: date("2025-01-13"), through: date("2025-01-13"))
        #expect(mondays.count { $0.taskID == "piano" && $0.state == .open } == 1)
    }

    @Test func aMissedWeeklySessionMovedOnOrAfterNextWeeksIsRefusedWithTheNearestSlotBeforeIt() throws {
        // Tuesday: yesterday's lesson was missed; next Monday holds the next one.
        var executor = Self.executor(Self.piano, now: at("2025-01-07T03:00"))
        for (start, end) in [("2025-01-13T09:00", "2025-01-13T10:00"), ("2025-01-14T15:00", "2025-01-14T16:00")] {
            let result = executor.execute(
                Self.call("updateTask", ["tasks": [Self.move("piano@2025-01-06", start, end)]]))
            #expect(
                result == [
                    [
                        "ok": false, "id": "piano@2025-01-06",
                        "error":
                            "a course keeps its order and pace: this session goes before the next session of the course, 'Piano' on 2025-01-13",
                        "nearest": [
                            "start": .string("2025-01-07T\(start.suffix(5))"),
                            "end": .string("2025-01-07T\(end.suffix(5))"),
                        ],
                    ]
                ])
        }
        // The nearest slot it offered is taken.
        let accepted = executor.execute(
            Self.call("updateTask", ["tasks": [Self.move("piano@2025-01-06", "2025-01-07T15:00", "2025-01-07T16:00")]]))
        #expect(accepted == [["ok": true, "id": "piano@2025-01-06"]])
    }

    @Test func aDayThatHoldsASessionOfTheCourseGetsNoSecond() throws {
        let plan = Fx.plan([
            Fx.task("eng-1", "English reading", "2025-01-06T10:00", "2025-01-06T11:00", category: "English"),
            Fx.task("eng-2", "English reading", "2025-01-08T10:00", "2025-01-08T11:00", category: "English"),
        ])
        var executor = Self.executor(plan, now: at("2025-01-07T03:00"))
        let result = executor.execute(
            Self.call("updateTask", ["tasks": [Self.move("eng-1", "2025-01-08T13:00", "2025-01-08T14:00")]]))
        // Same titles are interchangeable, so only the day rule holds it back; before the
        // next session (2025-01-08) only today is left.
        let entry = try #require(result.arrayValue?.first)
        #expect(entry["ok"] == false)
        #expect(
            entry["nearest"] == ["start": "2025-01-07T13:00", "end": "2025-01-07T14:00"])
        #expect(executor.plan == plan)
    }

    @Test func aNumberedCourseStaysInOrder() throws {
        let plan = Fx.plan([
            Fx.task("ch1", "Chemistry (1)", "2025-01-08T10:00", "2025-01-08T11:00", category: "Chemistry"),
            Fx.task("ch2", "Chemistry (2)", "2025-01-09T10:00", "2025-01-09T11:00", category: "Chemistry"),
            Fx.task("ch3", "Chemistry (3)", "2025-01-10T10:00", "2025-01-10T11:00", category: "Chemistry"),
        ])
        var executor = Self.executor(plan, now: at("2025-01-07T03:00"))
        // Part 3 before part 2: refused, offered the first day after part 2.
        let early = executor.execute(
            Self.call("updateTask", ["tasks": [Self.move("ch3", "2025-01-07T10:00", "2025-01-07T11:00")]]))
        #expect(
            early == [
                [
                    "ok": false, "id": "ch3",
                    "error":
                        "a course keeps its order: this session comes after 'Chemistry (2)' on 2025-01-09, so it goes after that day",
                    "nearest": ["start": "2025-01-10T10:00", "end": "2025-01-10T11:00"],
                ]
            ])
        // Part 1 after part 2: refused.
        let late = executor.execute(
            Self.call("updateTask", ["tasks": [Self.move("ch1", "2025-01-13T10:00", "2025-01-13T11:00")]]))
        #expect(late.arrayValue?.first?["ok"] == false)
        #expect(late.arrayValue?.first?["nearest"] == ["start": "2025-01-07T10:00", "end": "2025-01-07T11:00"])
        // Moving the later parts first keeps the order, and then part 2 may follow them.
        let ordered = executor.execute(
            Self.call(
                "updateTask",
                [
                    "tasks": [
                        Self.move("ch3", "2025-01-14T10:00", "2025-01-14T11:00"),
                        Self.move("ch2", "2025-01-13T10:00", "2025-01-13T11:00"),
                    ]
                ]))
        #expect(ordered == [["ok": true, "id": "ch3"], ["ok": true, "id": "ch2"]])
        #expect(executor.plan.tasks["ch2"]?.start == at("2025-01-13T10:00"))
    }

    @Test func aSeriesSessionNeverGoesToADayTheStudentSkipped() throws {
        let plan = Fx.plan(
            [
                Fx.task(
                    "vocab", "Vocabulary", "2025-01-01T09:00", "2025-01-01T09:30", category: "English",
                    repeat: RepeatRule(every: .weekly))
            ],
            overrides: [
                OccurrenceOverride(
                    taskID: "vocab", originalDate: date("2025-01-08"), state: .skipped,
                    start: at("2025-01-09T09:00"), end: at("2025-01-09T09:30"))
            ])
        var executor = Self.executor(plan, now: at("2025-01-07T03:00"))
        let result = executor.execute(
            Self.call("updateTask", ["tasks": [Self.move("vocab@2025-01-01", "2025-01-09T11:00", "2025-01-09T11:30")]]))
        let entry = try #require(result.arrayValue?.first)
        #expect(
            entry["error"]?.stringValue
                == "the student skipped this series on 2025-01-09, so that day gets none of its sessions")
        #expect(entry["nearest"] == ["start": "2025-01-10T11:00", "end": "2025-01-10T11:30"])
    }

    @Test func aSlotOfferedToOneItemIsNotTakenByALaterItemOfTheSameCall() throws {
        var executor = Self.executor(Fx.standard, now: Fx.now)
        let result = executor.execute(
            Self.call(
                "saveTask",
                [
                    "tasks": [
                        ToolExecutorTests.session("2025-01-07T14:30", "2025-01-07T15:30"),
                        ToolExecutorTests.session("2025-01-07T15:00", "2025-01-07T16:00", title: "Grammar"),
                    ]
                ]))
        #expect(
            result == [
                [
                    "ok": false, "error": "overlaps 'Physics' 14:00–15:00 on 2025-01-07",
                    "nearest": ["start": "2025-01-07T15:00", "end": "2025-01-07T16:00"],
                ],
                [
                    "ok": false,
                    "error": "overlaps 15:00–16:00 on 2025-01-07, the slot offered to 'English' earlier in this call",
                    "nearest": ["start": "2025-01-07T16:00", "end": "2025-01-07T17:00"],
                ],
            ])
        #expect(executor.plan == Fx.standard)
        // The next call may take it: the reservation lasts for the call.
        let next = executor.execute(
            Self.call("saveTask", ["tasks": [ToolExecutorTests.session("2025-01-07T15:00", "2025-01-07T16:00")]]))
        #expect(next == [["ok": true, "id": "m-1"]])
    }

    @Test func whatTheStudentTookBackIsNotMadeAgain() throws {
        let takenBack = TakenBack(edits: [
            PlanEdit(
                op: .create, id: id("m-9"), title: "English", before: nil,
                after: range("2025-01-07T11:00", "2025-01-07T12:00"), reason: .model),
            PlanEdit(
                op: .move, id: id("math"), title: "Math", before: range("2025-01-07T10:00", "2025-01-07T11:00"),
                after: range("2025-01-08T10:00", "2025-01-08T11:00"), reason: .model),
            PlanEdit(
                op: .skip, id: id("vocab@2025-01-07"), title: "Vocabulary",
                before: range("2025-01-07T20:00", "2025-01-07T20:30"), after: nil, reason: .model),
            // A rule's edit in the same changeset is no rejection of the model.
            PlanEdit(
                op: .move, id: id("phy"), title: "Physics", before: nil,
                after: range("2025-01-09T14:00", "2025-01-09T15:00"), reason: .rescheduled),
        ])
        #expect(takenBack.edits.count == 3)
        var executor = ToolExecutor(
            plan: Fx.standard, now: Fx.now, createdAt: Date(timeIntervalSince1970: 0), takenBack: takenBack,
            makeTaskID: SequentialIDs().make)
        let created = executor.execute(
            Self.call("saveTask", ["tasks": [ToolExecutorTests.session("2025-01-07T15:00", "2025-01-07T16:00")]]))
        #expect(
            created == [
                [
                    "ok": false,
                    "error": "the student took back 'English' on 2025-01-07 (they undid it); do not create it again",
                ]
            ])
        let moved = executor.execute(
            Self.call("updateTask", ["tasks": [Self.move("math", "2025-01-08T13:00", "2025-01-08T14:00")]]))
        #expect(
            moved.arrayValue?.first?["error"]
                == "the student took back the move of 'math' to 2025-01-08 (they undid it); do not make it again")
        let skipped = executor.execute(
            Self.call("deleteTask", ["tasks": [["taskId": "vocab@2025-01-07", "reason": "too much"]]]))
        #expect(
            skipped.arrayValue?.first?["error"]
                == "the student took back the removal of 'vocab@2025-01-07' (they undid it); keep it")
        #expect(executor.plan == Fx.standard)
        // Another day, another title: allowed.
        let other = executor.execute(
            Self.call("saveTask", ["tasks": [ToolExecutorTests.session("2025-01-09T11:00", "2025-01-09T12:00")]]))
        #expect(other == [["ok": true, "id": "m-1"]])
        #expect(
            takenBack.text().hasPrefix(
                "I undid your earlier changes and took back 'English' you created on Tue 01-07 11:00; "))
    }
}
