import Foundation
import JSON
import Planning
import ReplanTestSupport
import Testing

@testable import Assistant

/// The tools of docs/model.md §12, item by item: every rule refuses with a message the model can act
/// on and leaves the working copy as it was; accepted items change exactly what they say.
@Suite final class ToolExecutorTests {
    typealias F = PlanFixture

    var executor = ToolExecutor(
        plan: F.standard, now: F.now, createdAt: Date(timeIntervalSince1970: 0),
        makeTaskID: SequentialIDs().make)

    /// One tool call with arguments given as a Swift value (serialised to a JSON string).
    func run(_ name: String, _ arguments: Any, explanation: String = "") -> JSONValue {
        executor.execute(
            ToolCall(id: "call_1", name: name, arguments: MockScript.jsonText(arguments)), explanation: explanation)
    }

    func runText(_ name: String, _ arguments: String) -> JSONValue {
        executor.execute(ToolCall(id: "call_1", name: name, arguments: arguments))
    }

    static func session(
        _ start: String, _ end: String, title: String = "English", category: String = "English",
        color: String = "green", note: String = "", allDay: Bool = false
    ) -> [String: Any] {
        [
            "title": title, "note": note, "category": category, "color": color, "start": start, "end": end,
            "allDay": allDay,
        ]
    }

    /// The `error` of the only entry of an item result.
    static func onlyError(_ result: JSONValue) -> String? {
        guard let entries = result.arrayValue, entries.count == 1 else { return "not one entry: \(result.text)" }
        return entries[0]["error"]?.stringValue
    }

    // MARK: - saveTask

    @Test func saveTaskCreatesAOneOffAndReturnsItsID() {
        let result = run(
            "saveTask",
            ["tasks": [Self.session("2025-01-07T11:00", "2025-01-07T12:00", color: "blue", note: "Unit 3")]],
            explanation: "as asked")
        #expect(result == [["ok": true, "id": "m-1"]])
        let created = executor.plan.tasks["m-1"]
        #expect(created?.title == "English")
        #expect(created?.category == "English")
        #expect(created?.color == .blue)
        #expect(created?.note == "Unit 3")
        #expect(created?.userID == "mei")
        #expect(created?.isSeries == false)
        #expect(created?.start == at("2025-01-07T11:00"))
        #expect(executor.touched == [id("m-1"): "as asked"])
    }

    @Test func createdIDsNeverCollideWithExistingTasks() {
        let proposals = ["math", "phy", "m-7"]
        let index = SequentialIDs(prefix: "")
        executor = ToolExecutor(
            plan: F.standard, now: F.now, createdAt: Date(),
            makeTaskID: {
                proposals[min(Int(index.make())! - 1, proposals.count - 1)]
            })
        #expect(
            run("saveTask", ["tasks": [Self.session("2025-01-07T11:00", "2025-01-07T12:00")]]) == [
                ["ok": true, "id": "m-7"]
            ])
        #expect(executor.plan.tasks["math"]?.title == "Math")
    }

    @Test func randomIDsAreWellFormed() throws {
        let id = ToolExecutor.randomTaskID()
        #expect(id.hasPrefix("m-") && id.count == 12)
        try TaskRules.validateID(id)
        #expect(ToolExecutor.randomTaskID() != id)
    }

    @Test func overlappingSessionsAreRefusedWithTheSessionInTheWayAndTheNearestValidSlot() {
        let result = run("saveTask", ["tasks": [Self.session("2025-01-07T14:30", "2025-01-07T15:30")]])
        #expect(
            result == [
                [
                    "ok": false, "error": "overlaps 'Physics' 14:00–15:00 on 2025-01-07",
                    "nearest": ["start": "2025-01-07T15:00", "end": "2025-01-07T16:00"],
                ]
            ])
        #expect(executor.plan == F.standard)
        #expect(executor.touched.isEmpty)
    }

    @Test func completedSessionsStillBlockTheirTime() {
        #expect(
            Self.onlyError(run("saveTask", ["tasks": [Self.session("2025-01-08T09:00", "2025-01-08T10:00")]]))
                == "overlaps 'Essay' 09:00–09:30 on 2025-01-08")
    }

    @Test func sessionsOutsideTheWindowsAreRefused() {
        #expect(
            Self.onlyError(run("saveTask", ["tasks": [Self.session("2025-01-08T17:00", "2025-01-08T18:00")]]))
                == "outside the study windows of Wednesday (09:00–17:00)")
        #expect(
            Self.onlyError(run("saveTask", ["tasks": [Self.session("2025-01-11T10:00", "2025-01-11T11:00")]]))
                == "outside the study windows of Saturday (no windows that day)")
    }

    @Test func allDaySessionsAreExemptFromTheWindows() {
        #expect(
            run(
                "saveTask",
                [
                    "tasks": [
                        Self.session(
                            "2025-01-11", "2025-01-11", title: "Museum visit", category: "History", allDay: true)
                    ]
                ])
                == [["ok": true, "id": "m-1"]])
        #expect(executor.plan.tasks["m-1"]?.allDay == true)
        #expect(executor.plan.tasks["m-1"]?.end == at("2025-01-11T00:00"))
    }

    @Test func allDaySessionsTakeDates() {
        #expect(
            Self.onlyError(
                run("saveTask", ["tasks": [Self.session("2025-01-11T10:00", "2025-01-11T11:00", allDay: true)]]))
                == "start: an all-day task takes dates, not times")
    }

    @Test func thePastIsRefused() {
        #expect(
            Self.onlyError(run("saveTask", ["tasks": [Self.session("2025-01-06T10:00", "2025-01-06T11:00")]]))
                == "starts in the past (now is 2025-01-07T03:00)")
    }

    @Test func endMustBeAfterStart() {
        #expect(
            Self.onlyError(run("saveTask", ["tasks": [Self.session("2025-01-07T12:00", "2025-01-07T11:00")]]))
                == "end: end 2025-01-07T11:00 must be after start 2025-01-07T12:00")
        #expect(
            Self.onlyError(run("saveTask", ["tasks": [Self.session("2025-01-07T12:00", "2025-01-07T12:00")]]))?
                .contains("must be after start") == true)
    }

    @Test func sessionsBeyondThePlanShownAreRefused() {
        // The prompt shows today + horizonDays (14): the working copy is not loaded beyond it.
        #expect(
            Self.onlyError(run("saveTask", ["tasks": [Self.session("2025-01-22T10:00", "2025-01-22T11:00")]]))
                == "starts after the plan you were shown: sessions can be placed up to 2025-01-21")
        #expect(
            run("saveTask", ["tasks": [Self.session("2025-01-21T10:00", "2025-01-21T11:00")]]) == [
                ["ok": true, "id": "m-1"]
            ])
    }

    @Test func categoriesMustBeSpecific() {
        for placeholder in ["Uncategorized", "uncategorized", "未分類", "  "] {
            let error = Self.onlyError(
                run(
                    "saveTask", ["tasks": [Self.session("2025-01-07T11:00", "2025-01-07T12:00", category: placeholder)]]
                ))
            #expect(error?.hasPrefix("category:") == true, "\(placeholder): \(error ?? "accepted")")
        }
        #expect(
            Self.onlyError(
                run(
                    "saveTask",
                    [
                        "tasks": [
                            Self.session(
                                "2025-01-07T11:00", "2025-01-07T12:00",
                                category: String(repeating: "c", count: 51))
                        ]
                    ]))
                == "category: must be at most 50 characters, got 51")
        #expect(executor.plan == F.standard)
    }

    @Test func titlesAndNotesFollowTheDataRules() {
        #expect(
            Self.onlyError(
                run("saveTask", ["tasks": [Self.session("2025-01-07T11:00", "2025-01-07T12:00", title: " ")]]))
                == "title: must not be empty")
        #expect(
            Self.onlyError(
                run(
                    "saveTask",
                    [
                        "tasks": [
                            Self.session(
                                "2025-01-07T11:00", "2025-01-07T12:00",
                                title: String(repeating: "t", count: 201))
                        ]
                    ]))
                == "title: must be at most 200 characters after trimming, got 201")
        #expect(
            Self.onlyError(
                run(
                    "saveTask",
                    [
                        "tasks": [
                            Self.session(
                                "2025-01-07T11:00", "2025-01-07T12:00",
                                note: String(repeating: "n", count: 4001))
                        ]
                    ]))
                == "note: must be at most 4000 characters, got 4001")
    }

    @Test func colorsAreTheFourNames() {
        #expect(
            Self.onlyError(
                run("saveTask", ["tasks": [Self.session("2025-01-07T11:00", "2025-01-07T12:00", color: "purple")]]))
                == "color: 'purple' is not one of red, yellow, green, blue")
    }

    @Test func timesWithAnOffsetAreReadInTheStudentsZone() {
        #expect(
            run("saveTask", ["tasks": [Self.session("2025-01-07T03:00:00Z", "2025-01-07T04:00:00Z")]]) == [
                ["ok": true, "id": "m-1"]
            ])
        #expect(executor.plan.tasks["m-1"]?.start == at("2025-01-07T11:00"))
    }

    @Test func eachItemIsCheckedOnItsOwn() {
        let result = run(
            "saveTask",
            [
                "tasks": [
                    Self.session("2025-01-07T11:00", "2025-01-07T12:00"),
                    Self.session("2025-01-07T14:00", "2025-01-07T15:00"),
                    Self.session("2025-01-08T10:00", "2025-01-08T11:00"),
                    Self.session("2025-01-08T10:30", "2025-01-08T11:30"), // overlaps the item before it
                ]
            ])
        #expect(
            result == [
                ["ok": true, "id": "m-1"],
                [
                    "ok": false, "error": "overlaps 'Physics' 14:00–15:00 on 2025-01-07",
                    "nearest": ["start": "2025-01-07T13:00", "end": "2025-01-07T14:00"],
                ],
                ["ok": true, "id": "m-2"],
                [
                    "ok": false, "error": "overlaps 'English' 10:00–11:00 on 2025-01-08",
                    "nearest": ["start": "2025-01-08T11:00", "end": "2025-01-08T12:00"],
                ],
            ])
        #expect(Set(executor.touched.keys) == [id("m-1"), id("m-2")])
    }

    @Test func missingOptionalFieldsTakeDefaults() {
        #expect(
            run(
                "saveTask",
                [
                    "tasks": [
                        [
                            "title": "Essay plan", "category": "English",
                            "start": "2025-01-07T11:00", "end": "2025-01-07T12:00",
                        ]
                    ]
                ]) == [["ok": true, "id": "m-1"]])
        #expect(executor.plan.tasks["m-1"]?.color == .green)
        #expect(executor.plan.tasks["m-1"]?.note == "")
        #expect(
            Self.onlyError(
                run("saveTask", ["tasks": [["title": "x", "start": "2025-01-07T12:00", "end": "2025-01-07T13:00"]]]))
                == "category: is required")
    }

    // MARK: - updateTask

    @Test func updateMovesAOneOff() {
        #expect(
            run(
                "updateTask", ["tasks": [["taskId": "math", "start": "2025-01-07T11:00", "end": "2025-01-07T12:00"]]],
                explanation: "later")
                == [["ok": true, "id": "math"]])
        #expect(executor.plan.tasks["math"]?.start == at("2025-01-07T11:00"))
        #expect(executor.touched == [id("math"): "later"])
    }

    @Test func aNewStartAloneKeepsTheLength() {
        #expect(
            run(
                "updateTask",
                ["tasks": [["taskId": "math", "start": "2025-01-08T13:00", "title": NSNull(), "end": NSNull()]]])
                == [["ok": true, "id": "math"]])
        #expect(executor.plan.tasks["math"]?.end == at("2025-01-08T14:00"))
    }

    @Test func updateChangesTheFieldsOfAOneOff() {
        #expect(
            run(
                "updateTask",
                [
                    "tasks": [
                        ["taskId": "math", "title": "Algebra", "note": "chapter 2", "category": "Math", "color": "red"]
                    ]
                ])
                == [["ok": true, "id": "math"]])
        let math = executor.plan.tasks["math"]
        #expect(math?.title == "Algebra")
        #expect(math?.note == "chapter 2")
        #expect(math?.color == .red)
        #expect(math?.start == at("2025-01-07T10:00"))
    }

    @Test func anUpdateThatChangesNothingTouchesNothing() {
        #expect(
            run(
                "updateTask",
                [
                    "tasks": [
                        ["taskId": "math", "title": "Math", "start": "2025-01-07T10:00", "end": "2025-01-07T11:00"]
                    ]
                ])
                == [["ok": true, "id": "math"]])
        #expect(executor.touched.isEmpty)
        #expect(executor.plan == F.standard)
    }

    @Test func updatesFollowThePlacementRules() {
        #expect(
            run(
                "updateTask",
                [
                    "tasks": [
                        ["taskId": "math", "start": "2025-01-07T14:30", "end": "2025-01-07T15:30"],
                        ["taskId": "math", "start": "2025-01-07T18:00", "end": "2025-01-07T19:00"],
                        ["taskId": "math", "start": "2025-01-07T01:00", "end": "2025-01-07T02:00"],
                        ["taskId": "math", "title": ""],
                        ["taskId": "math", "category": "Uncategorized"],
                    ]
                ]) == [
                    [
                        "ok": false, "id": "math", "error": "overlaps 'Physics' 14:00–15:00 on 2025-01-07",
                        "nearest": ["start": "2025-01-07T15:00", "end": "2025-01-07T16:00"],
                    ],
                    [
                        "ok": false, "id": "math", "error": "outside the study windows of Tuesday (09:00–17:00)",
                        "nearest": ["start": "2025-01-07T16:00", "end": "2025-01-07T17:00"],
                    ],
                    [
                        "ok": false, "id": "math", "error": "starts in the past (now is 2025-01-07T03:00)",
                        "nearest": ["start": "2025-01-07T09:00", "end": "2025-01-07T10:00"],
                    ],
                    ["ok": false, "id": "math", "error": "title: must not be empty"],
                    ["ok": false, "id": "math", "error": "category: 'Uncategorized' is not a specific category"],
                ])
        #expect(executor.plan == F.standard)
    }

    @Test func completedSessionsCannotBeChanged() {
        #expect(
            Self.onlyError(
                run(
                    "updateTask",
                    ["tasks": [["taskId": "essay", "start": "2025-01-08T10:00", "end": "2025-01-08T10:30"]]]))
                == "completed sessions cannot be changed")
        #expect(
            Self.onlyError(run("updateTask", ["tasks": [["taskId": "essay", "title": "Better essay"]]]))
                == "completed sessions cannot be changed")
        #expect(
            Self.onlyError(run("updateTask", ["tasks": [["taskId": "vocab@2025-01-06", "start": "2025-01-08T10:00"]]]))
                == "completed sessions cannot be changed")
        #expect(executor.plan == F.standard)
    }

    @Test func aSeriesOccurrenceIsMovedOnItsOwn() {
        #expect(
            run(
                "updateTask",
                [
                    "tasks": [
                        [
                            "taskId": "vocab@2025-01-08", "start": "2025-01-08T16:00", "end": "2025-01-08T16:30",
                            "title": "Vocabulary", "category": "English",
                        ]
                    ]
                ])
                == [["ok": true, "id": "vocab@2025-01-08"]])
        let moved = executor.plan.occurrence(id("vocab@2025-01-08"))
        #expect(moved?.start == at("2025-01-08T16:00"))
        #expect(executor.plan.occurrence(id("vocab@2025-01-09"))?.start == at("2025-01-09T20:00"))
        #expect(executor.plan.tasks["vocab"] == F.standard.tasks["vocab"])
    }

    @Test func aSeriesOccurrenceCannotBeRetitledOnItsOwn() {
        let error = Self.onlyError(run("updateTask", ["tasks": [["taskId": "vocab@2025-01-08", "title": "Words"]]]))
        #expect(
            error?.hasPrefix(
                "titles belong to the whole series: title of one session of 'vocab' cannot change on its own") == true)
        #expect(
            Self.onlyError(
                run(
                    "updateTask",
                    [
                        "tasks": [
                            [
                                "taskId": "vocab@2025-01-08", "allDay": true,
                                "start": "2025-01-08", "end": "2025-01-08",
                            ]
                        ]
                    ]))?
                .hasPrefix("one session of a series cannot switch between all-day and timed") == true)
        #expect(executor.plan == F.standard)
    }

    /// Issue 13, item 3: the model changes a series from today on; the series is split, so
    /// the sessions before today (the completed one of 01-06 among them) keep their title.
    @Test func aWholeSeriesIsRetitledFromTodayOnAndNotMoved() {
        #expect(
            Self.onlyError(
                run(
                    "updateTask",
                    ["tasks": [["taskId": "vocab", "start": "2025-01-08T16:00", "end": "2025-01-08T16:30"]]]))
                == "'vocab' is a repeating series, which is not moved as a whole; move one session with vocab@YYYY-MM-DD"
        )
        #expect(
            run("updateTask", ["tasks": [["taskId": "vocab", "title": "Vocabulary (Unit 4)"]]]) == [
                ["ok": true, "id": "m-1"]
            ])
        let plan = executor.plan
        #expect(plan.tasks["vocab"]?.title == "Vocabulary")
        #expect(plan.tasks["vocab"]?.repeatRule?.until == date("2025-01-06"), "the old series ends before today")
        #expect(plan.occurrence(id("vocab@2025-01-06"))?.state == .completed)
        #expect(plan.occurrence(id("vocab@2025-01-06"))?.title == "Vocabulary", "history keeps its title")
        #expect(plan.occurrence(id("vocab@2025-01-05"))?.state == .skipped)
        let continued = plan.tasks["m-1"]
        #expect(continued?.title == "Vocabulary (Unit 4)" && continued?.category == "English")
        #expect(continued?.start == at("2025-01-07T20:00") && continued?.end == at("2025-01-07T20:30"))
        #expect(continued?.repeatRule == RepeatRule(every: .daily))
        // Every session from today on is where it was.
        for day in ["2025-01-07", "2025-01-08", "2025-01-09"] {
            #expect(
                plan.occurrence(id("m-1@\(day)"))?.start == F.standard.occurrence(id("vocab@\(day)"))?.start,
                "\(day)")
        }
        #expect(executor.touched.keys.contains(id("vocab")) && executor.touched.keys.contains(id("m-1")))
        // A second change through the old id goes to the continuation, not a third series.
        #expect(
            run("updateTask", ["tasks": [["taskId": "vocab", "category": "Vocabulary"]]]) == [
                ["ok": true, "id": "m-1"]
            ])
        #expect(
            executor.plan.tasks["m-1"]?.category == "Vocabulary" && executor.plan.tasks["vocab"]?.category == "English")
        #expect(executor.plan.tasks.count == F.standard.tasks.count + 1)
    }

    @Test func skippedOccurrencesCannotBeMoved() {
        #expect(
            Self.onlyError(run("updateTask", ["tasks": [["taskId": "vocab@2025-01-05", "start": "2025-01-08T10:00"]]]))
                == "skipped sessions cannot be moved ('vocab@2025-01-05' was skipped)")
    }

    @Test func unknownIDsAndOtherStudentsIDsAreRefused() {
        // Another student's task is not in this working copy: to the model it does not exist.
        #expect(
            run(
                "updateTask",
                [
                    "tasks": [
                        ["taskId": "zoe-1", "start": "2025-01-07T11:00", "end": "2025-01-07T12:00"],
                        ["taskId": "vocab@2025-01-08x"],
                        ["taskId": "vocab@2024-12-25", "start": "2025-01-07T11:00"],
                        ["taskId": "math@2025-01-07", "start": "2025-01-07T11:00"],
                    ]
                ]) == [
                    ["ok": false, "id": "zoe-1", "error": "there is no session 'zoe-1' in this plan"],
                    [
                        "ok": false, "id": "vocab@2025-01-08x",
                        "error":
                            "'vocab@2025-01-08x' is not a session id from the plan (ID, or ID@YYYY-MM-DD for a series)",
                    ],
                    [
                        "ok": false, "id": "vocab@2024-12-25",
                        "error": "there is no session 'vocab@2024-12-25' in this plan",
                    ],
                    [
                        "ok": false, "id": "math@2025-01-07",
                        "error": "there is no session 'math@2025-01-07' in this plan",
                    ],
                ])
        #expect(executor.plan == F.standard)
    }

    @Test func switchingToAllDayNeedsBothDates() {
        #expect(
            Self.onlyError(run("updateTask", ["tasks": [["taskId": "math", "allDay": true]]]))
                == "switching between all-day and timed needs both start and end")
        #expect(
            run(
                "updateTask",
                ["tasks": [["taskId": "math", "allDay": true, "start": "2025-01-09", "end": "2025-01-09"]]])
                == [["ok": true, "id": "math"]])
        #expect(executor.plan.tasks["math"]?.allDay == true)
    }

    // MARK: - deleteTask

    @Test func deleteRemovesAOneOffAndSkipsASeriesOccurrence() {
        #expect(
            run("deleteTask", ["taskIds": ["math", "vocab@2025-01-08"]], explanation: "as asked")
                == [["ok": true, "id": "math"], ["ok": true, "id": "vocab@2025-01-08"]])
        #expect(executor.plan.tasks["math"] == nil)
        #expect(executor.plan.occurrence(id("vocab@2025-01-08"))?.state == .skipped)
        #expect(executor.plan.tasks["vocab"] != nil)
        #expect(executor.deletions == 2)
        #expect(executor.touched == [id("math"): "as asked", id("vocab@2025-01-08"): "as asked"])
    }

    @Test func aWholeSeriesIsNeverDeleted() {
        #expect(
            run("deleteTask", ["taskIds": ["vocab"]]) == [
                [
                    "ok": false, "id": "vocab",
                    "error":
                        "'vocab' is a repeating series; series are the student's to end. Skip single sessions with vocab@YYYY-MM-DD",
                ]
            ])
        #expect(executor.plan == F.standard)
    }

    @Test func completedSessionsAreNeverDeleted() {
        #expect(
            run("deleteTask", ["taskIds": ["essay", "old", "vocab@2025-01-06"]]) == [
                ["ok": false, "id": "essay", "error": "completed sessions cannot be deleted"],
                ["ok": false, "id": "old", "error": "completed sessions cannot be deleted"],
                ["ok": false, "id": "vocab@2025-01-06", "error": "completed sessions cannot be deleted"],
            ])
        #expect(executor.plan == F.standard)
        #expect(executor.deletions == 0)
    }

    @Test func deleteRefusesUnknownSkippedAndMalformedItems() {
        #expect(
            run("deleteTask", ["taskIds": ["zoe-1", "vocab@2025-01-05", 42, ""]]) == [
                ["ok": false, "id": "zoe-1", "error": "there is no session 'zoe-1' in this plan"],
                ["ok": false, "id": "vocab@2025-01-05", "error": "'vocab@2025-01-05' is already skipped"],
                ["ok": false, "error": "expected {\"taskId\", \"reason\"}, got a number"],
                [
                    "ok": false, "id": "",
                    "error": "'' is not a session id from the plan (ID, or ID@YYYY-MM-DD for a series)",
                ],
            ])
        #expect(executor.plan == F.standard)
    }

    @Test func atMostTenDeletionsPerRun() {
        let many = (1...12).map { n in
            F.task(
                "s\(n)", "Session \(n)", "2025-01-\(String(format: "%02d", 8 + n / 4))T1\(n % 4):00",
                "2025-01-\(String(format: "%02d", 8 + n / 4))T1\(n % 4):30")
        }
        executor = ToolExecutor(plan: F.plan(many), now: F.now, createdAt: Date(), makeTaskID: SequentialIDs().make)
        let result = run("deleteTask", ["taskIds": (1...11).map { "s\($0)" }])
        let entries = result.arrayValue ?? []
        #expect(entries.prefix(10).allSatisfy { $0["ok"] == true })
        #expect(
            entries.last == [
                "ok": false, "id": "s11",
                "error": "at most 10 sessions may be deleted or skipped per night; 's11' was kept",
            ])
        #expect(executor.plan.tasks.count == 2)
        // The cap holds across calls too.
        #expect(Self.onlyError(run("deleteTask", ["taskIds": ["s12"]]))?.hasPrefix("at most 10") == true)
        // Undoing its own creation is not a deletion of the student's work.
        #expect(
            run("saveTask", ["tasks": [Self.session("2025-01-13T10:00", "2025-01-13T11:00")]]) == [
                ["ok": true, "id": "m-1"]
            ])
        #expect(run("deleteTask", ["taskIds": ["m-1"]]) == [["ok": true, "id": "m-1"]])
        #expect(executor.plan.tasks["m-1"] == nil)
        #expect(executor.touched[id("m-1")] == nil)
    }

    @Test func theCapIsConfigurable() {
        executor = ToolExecutor(plan: F.standard, now: F.now, createdAt: Date(), maxDeletes: 1)
        #expect(run("deleteTask", ["taskIds": ["math", "phy"]]).arrayValue?.map { $0["ok"] } == [true, false])
    }

    // MARK: - Malformed calls

    @Test func argumentsThatAreNotJSONGetAnErrorResult() {
        let result = runText("saveTask", #"{"tasks": [{"title": "English""#)
        #expect(result["ok"] == false)
        #expect(result["error"]?.stringValue?.hasPrefix("the arguments are not valid JSON") == true)
        #expect(
            runText("saveTask", "[1, 2]") == [
                "ok": false, "error": "the arguments must be a JSON object, got an array",
            ])
        #expect(executor.plan == F.standard)
    }

    @Test func argumentsSentAsAnObjectAreAccepted() throws {
        // Some local servers send `arguments` as an object; the response decoder re-serialises it.
        let body = MockScript.jsonText(
            MockScript.toolCalls([
                MockScript.Call(
                    "call_1", "saveTask",
                    ["tasks": [Self.session("2025-01-07T11:00", "2025-01-07T12:00")]], asObject: true)
            ])["body"]!)
        let call = try #require(try ChatCompletionResponse.decode(Data(body.utf8)).toolCalls.first)
        #expect(executor.execute(call) == [["ok": true, "id": "m-1"]])
    }

    @Test func doubleEncodedArgumentsAreAccepted() {
        let inner = MockScript.jsonText(["taskIds": ["math"]])
        #expect(runText("deleteTask", MockScript.jsonText(inner)) == [["ok": true, "id": "math"]])
    }

    @Test func unknownToolsGetAnErrorResult() {
        #expect(
            run("rescheduleEverything", ["tasks": []]) == [
                "ok": false,
                "error":
                    "unknown tool 'rescheduleEverything'; the tools are saveTask, updateTask, deleteTask, end_conversation, set_goal",
            ])
    }

    @Test func aPerItemReasonIsKeptWithTheEdit() {
        let result = run(
            "deleteTask",
            [
                "tasks": [
                    ["taskId": "math", "reason": "the student dropped Math"],
                    ["taskId": "phy", "reason": ""],
                ]
            ], explanation: "tidying up")
        #expect(result == [["ok": true, "id": "math"], ["ok": true, "id": "phy"]])
        #expect(executor.touched[id("math")] == "the student dropped Math")
        #expect(executor.touched[id("phy")] == "tidying up")
        var item = Self.session("2025-01-07T11:00", "2025-01-07T12:00")
        item["reason"] = "an hour of English as asked"
        #expect(run("saveTask", ["tasks": [item]]) == [["ok": true, "id": "m-1"]])
        #expect(executor.touched[id("m-1")] == "an hour of English as asked")
    }

    @Test func unknownFieldsGetAnErrorResult() {
        #expect(
            run("deleteTask", ["taskIds": ["math"], "force": true])
                == ["ok": false, "error": "force: unknown key (expected one of: taskIds)"])
        var item = Self.session("2025-01-07T11:00", "2025-01-07T12:00")
        item["priority"] = "high"
        #expect(
            Self.onlyError(run("saveTask", ["tasks": [item]]))
                == "priority: unknown key (expected one of: allDay, category, color, end, note, reason, repeat, start, title)"
        )
        #expect(executor.plan == F.standard)
    }

    @Test func wrongTypesGetAnErrorResult() {
        #expect(
            run("saveTask", ["tasks": "English at 11"]) == [
                "ok": false, "error": "tasks: expected an array, got a string",
            ])
        #expect(run("saveTask", [:]) == ["ok": false, "error": "tasks: is required (an array)"])
        #expect(
            Self.onlyError(run("saveTask", ["tasks": [["title": 5, "category": "x", "start": "a", "end": "b"]]]))
                == "title: expected a string, got a number")
        #expect(Self.onlyError(run("saveTask", ["tasks": ["English"]])) == "expected an object, got a string")
        #expect(
            Self.onlyError(run("updateTask", ["tasks": [["taskId": "math", "allDay": "yes"]]]))
                == "allDay: expected true or false, got a string")
        #expect(
            Self.onlyError(run("saveTask", ["tasks": [Self.session("tomorrow", "2025-01-07T12:00")]]))
                == "start: 'tomorrow' is not a local date-time YYYY-MM-DDTHH:MM")
        #expect(executor.plan == F.standard)
    }

    // MARK: - end_conversation

    @Test func endConversationEndsWithItsSummary() {
        #expect(!executor.ended)
        #expect(run("end_conversation", ["summary": "  Moved Math to 11:00. "]) == ["ok": true])
        #expect(executor.ended)
        #expect(executor.summary == "Moved Math to 11:00.")
    }

    @Test func endConversationWithANullSummary() {
        #expect(run("end_conversation", ["summary": NSNull()]) == ["ok": true])
        #expect(executor.ended)
        #expect(executor.summary == nil)
    }

    @Test func endConversationWithoutArguments() {
        #expect(runText("end_conversation", "") == ["ok": true])
        #expect(executor.ended)
        #expect(executor.summary == nil)
    }

    @Test func endConversationWithAnUnknownFieldDoesNotEnd() {
        #expect(run("end_conversation", ["summary": "ok", "mood": "happy"])["ok"] == false)
        #expect(!executor.ended)
    }
}
