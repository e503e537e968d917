import Foundation
import JSON
import Planning
import ReplanTestSupport
import Testing

@testable import Assistant

/// `saveTask` with a `repeat` (docs/model.md §12): a series is created only when every one of
/// its sessions up to the last day the model may place on is accepted where a one-off session
/// would be; a refusal names the first session refused and changes nothing.
@Suite final class ToolExecutorSeriesTests {
    var executor = ToolExecutor(
        plan: Fx.standard, now: Fx.now, createdAt: Date(timeIntervalSince1970: 0), makeTaskID: SequentialIDs().make)

    func run(_ name: String, _ arguments: Any) -> JSONValue {
        executor.execute(ToolCall(id: "call_1", name: name, arguments: MockScript.jsonText(arguments)))
    }

    static func series(
        _ start: String, _ end: String, every: String = "weekly", until: String? = nil, missed: String? = nil,
        title: String = "English"
    ) -> [String: Any] {
        var item = ToolExecutorTests.session(start, end, title: title)
        item["repeat"] = [
            "every": every, "until": until.map { $0 as Any } ?? NSNull(),
            "missed": missed.map { $0 as Any } ?? NSNull(),
        ]
        item["reason"] = "30 minutes of English every weekday"
        return item
    }

    static func onlyEntry(_ result: JSONValue) -> JSONValue? {
        guard let entries = result.arrayValue, entries.count == 1 else { return nil }
        return entries[0]
    }

    @Test func weeklySeriesOnEveryWeekdayAreCreatedInOneCall() throws {
        let days = ["2025-01-07", "2025-01-08", "2025-01-09", "2025-01-10", "2025-01-13"]
        let result = run(
            "saveTask", ["tasks": days.map { Self.series("\($0)T11:00", "\($0)T11:30") }])
        #expect(result == .array((1...5).map { ["ok": true, "id": .string("m-\($0)")] }))
        let first = try #require(executor.plan.tasks["m-1"])
        #expect(first.repeatRule == RepeatRule(every: .weekly))
        #expect(first.repeatRule?.effectiveMissed == .makeUp)
        #expect(first.start == at("2025-01-07T11:00"))
        #expect(executor.touched[id("m-1")] == "30 minutes of English every weekday")
        // The sessions are in the plan: Tue 01-14 holds the series' second session.
        let tuesday = executor.plan.occurrences(from: date("2025-01-14"), through: date("2025-01-14"))
        #expect(tuesday.contains { $0.id == id("m-1@2025-01-14") && $0.start == at("2025-01-14T11:00") })
    }

    @Test func untilAndMissedAreKept() throws {
        let result = run(
            "saveTask",
            ["tasks": [Self.series("2025-01-07T11:00", "2025-01-07T11:30", until: "2025-03-31", missed: "skip")]])
        #expect(result == [["ok": true, "id": "m-1"]])
        #expect(
            executor.plan.tasks["m-1"]?.repeatRule
                == RepeatRule(every: .weekly, until: date("2025-03-31"), missed: .skip))
    }

    @Test func aLaterSessionThatOverlapsRefusesTheSeriesWithTheNearestTimeThatFitsEveryWeek() throws {
        var plan = Fx.standard
        plan.put(Fx.task("chem", "Chemistry", "2025-01-14T11:00", "2025-01-14T12:00", category: "Chemistry"))
        executor = ToolExecutor(
            plan: plan, now: Fx.now, createdAt: Date(timeIntervalSince1970: 0), makeTaskID: SequentialIDs().make)
        let result = run("saveTask", ["tasks": [Self.series("2025-01-07T11:00", "2025-01-07T11:30")]])
        let entry = try #require(Self.onlyEntry(result))
        #expect(entry["ok"] == false)
        #expect(
            entry["error"]?.stringValue
                == "the series' session on 2025-01-14 (Tue): overlaps 'Chemistry' 11:00–12:00 on 2025-01-14; nothing was created"
        )
        // 10:45 and 11:15 meet Math or Chemistry; 12:00 is free every Tuesday of the plan.
        #expect(entry["nearest"] == ["start": "2025-01-07T12:00", "end": "2025-01-07T12:30"])
        #expect(executor.plan == plan)
        #expect(executor.touched.isEmpty)
    }

    @Test func aSeriesOfferIsReservedForTheRestOfTheCall() throws {
        var plan = Fx.standard
        plan.put(Fx.task("chem", "Chemistry", "2025-01-14T11:00", "2025-01-14T12:00", category: "Chemistry"))
        executor = ToolExecutor(
            plan: plan, now: Fx.now, createdAt: Date(timeIntervalSince1970: 0), makeTaskID: SequentialIDs().make)
        let result = run(
            "saveTask",
            [
                "tasks": [
                    Self.series("2025-01-07T11:00", "2025-01-07T11:30"),
                    // The third Tuesday at the time offered to the series.
                    ToolExecutorTests.session("2025-01-21T12:00", "2025-01-21T12:30", title: "Grammar"),
                ]
            ])
        let entries = try #require(result.arrayValue)
        #expect(entries.count == 2)
        #expect(
            entries[1]["error"]?.stringValue?.hasPrefix(
                "overlaps 12:00–12:30 on 2025-01-21, the slot offered to 'English' earlier in this call") == true)
        #expect(executor.plan == plan)
    }

    @Test func aDailySeriesMeetsTheWeekendWithoutWindows() throws {
        let result = run(
            "saveTask", ["tasks": [Self.series("2025-01-07T11:00", "2025-01-07T11:30", every: "daily")]])
        let entry = try #require(Self.onlyEntry(result))
        #expect(
            entry["error"]?.stringValue
                == "the series' session on 2025-01-11 (Sat): outside the study windows of Saturday (no windows that day); nothing was created"
        )
        // No time of Tuesday fits every day of the week: no offer.
        #expect(entry["nearest"] == nil)
        #expect(executor.plan == Fx.standard)
    }

    @Test func aSeriesMustNotOverlapAnEarlierItemOfTheSameCall() throws {
        let result = run(
            "saveTask",
            [
                "tasks": [
                    ToolExecutorTests.session("2025-01-14T11:00", "2025-01-14T12:00", title: "Grammar"),
                    Self.series("2025-01-07T11:00", "2025-01-07T11:30"),
                ]
            ])
        let entries = try #require(result.arrayValue)
        #expect(entries[0] == ["ok": true, "id": "m-1"])
        #expect(
            entries[1]["error"]?.stringValue?.hasPrefix(
                "the series' session on 2025-01-14 (Tue): overlaps 'Grammar' 11:00–12:00 on 2025-01-14") == true)
        #expect(executor.plan.tasks.count == Fx.standard.tasks.count + 1)
    }

    @Test func theFirstSessionIsCheckedLikeAOneOff() throws {
        let past = run("saveTask", ["tasks": [Self.series("2025-01-07T02:00", "2025-01-07T02:30")]])
        #expect(
            Self.onlyEntry(past)?["error"]?.stringValue?.hasPrefix(
                "the series' session on 2025-01-07 (Tue): starts in the past") == true)
        let late = run("saveTask", ["tasks": [Self.series("2025-01-22T11:00", "2025-01-22T11:30")]])
        #expect(
            Self.onlyEntry(late)?["error"]
                == "starts after the plan you were shown: sessions can be placed up to 2025-01-21")
        let long = run("saveTask", ["tasks": [Self.series("2025-01-07T11:00", "2025-01-08T11:30")]])
        #expect(
            Self.onlyEntry(long)?["error"]
                == "a session of a repeating series lies within one day; end it on 2025-01-07")
        #expect(executor.plan == Fx.standard)
    }

    @Test func badRulesAreRefusedWithTheField() throws {
        func error(_ item: [String: Any]) -> String? {
            Self.onlyEntry(run("saveTask", ["tasks": [item]]))?["error"]?.stringValue
        }
        #expect(
            error(Self.series("2025-01-07T11:00", "2025-01-07T11:30", every: "yearly"))
                == "repeat.every: 'yearly' is not one of daily, weekly, monthly")
        #expect(
            error(Self.series("2025-01-07T11:00", "2025-01-07T11:30", until: "2025-01-06"))
                == "repeat.until: 2025-01-06 is before the first session on 2025-01-07")
        #expect(
            error(Self.series("2025-01-07T11:00", "2025-01-07T11:30", until: "2026-01-09"))
                == "repeat.until: 2026-01-09 is more than 366 days after the first session; end it by 2026-01-08")
        #expect(
            error(Self.series("2025-01-07T11:00", "2025-01-07T11:30", missed: "later"))
                == "repeat.missed: 'later' is not one of shift, skip, make-up")
        var unknown = Self.series("2025-01-07T11:00", "2025-01-07T11:30")
        unknown["repeat"] = ["every": "weekly", "until": NSNull(), "missed": NSNull(), "count": 3]
        #expect(error(unknown)?.hasPrefix("repeat.count: unknown key") == true)
        #expect(executor.plan == Fx.standard)
        // The ids are drawn for created tasks only: the next creation is still m-1.
        #expect(
            run("saveTask", ["tasks": [Self.series("2025-01-07T11:00", "2025-01-07T11:30")]]) == [
                ["ok": true, "id": "m-1"]
            ])
    }

    @Test func aNullRepeatIsAOneOff() throws {
        var item = ToolExecutorTests.session("2025-01-07T11:00", "2025-01-07T11:30")
        item["repeat"] = NSNull()
        #expect(run("saveTask", ["tasks": [item]]) == [["ok": true, "id": "m-1"]])
        #expect(executor.plan.tasks["m-1"]?.isSeries == false)
    }

    @Test func aSeriesCreatedInThisConversationCanBeDeletedOrSkippedWithoutCounting() throws {
        _ = run("saveTask", ["tasks": [Self.series("2025-01-07T11:00", "2025-01-07T11:30")]])
        let skipped = run("deleteTask", ["tasks": [["taskId": "m-1@2025-01-14", "reason": "exam day"]]])
        #expect(skipped == [["ok": true, "id": "m-1@2025-01-14"]])
        #expect(executor.plan.occurrence(id("m-1@2025-01-14"))?.state == .skipped)
        #expect(executor.deletions == 0)
        let deleted = run("deleteTask", ["tasks": [["taskId": "m-1", "reason": "wrong day"]]])
        #expect(deleted == [["ok": true, "id": "m-1"]])
        #expect(executor.plan == Fx.standard)
        #expect(executor.touched.isEmpty)
        // The student's own series is still theirs to end.
        let theirs = run("deleteTask", ["tasks": [["taskId": "vocab", "reason": "tidy"]]])
        #expect(Self.onlyEntry(theirs)?["error"]?.stringValue?.contains("series are the student's to end") == true)
    }

    @Test func aSeriesTheStudentTookBackIsNotCreatedAgain() throws {
        let undone = Fx.series("m-9", "English", "2025-01-07T11:00", "2025-01-07T11:30", .weekly)
        let takenBack = TakenBack(
            edits: [
                PlanEdit(
                    op: .create, id: id("m-9"), title: "English", before: nil,
                    after: range("2025-01-07T11:00", "2025-01-07T11:30"), reason: .model)
            ],
            series: [undone])
        executor = ToolExecutor(
            plan: Fx.standard, now: Fx.now, createdAt: Date(timeIntervalSince1970: 0), takenBack: takenBack,
            makeTaskID: SequentialIDs().make)
        // The same series a week later: its days were taken back.
        let again = run("saveTask", ["tasks": [Self.series("2025-01-14T13:00", "2025-01-14T13:30")]])
        #expect(
            Self.onlyEntry(again)?["error"]
                == "the series' session on 2025-01-14 (Tue): the student took back the series 'English' that had a session on 2025-01-14 (they undid it); do not create it again; nothing was created"
        )
        // A one-off on one of its days too.
        let oneOff = run("saveTask", ["tasks": [ToolExecutorTests.session("2025-01-21T13:00", "2025-01-21T13:30")]])
        #expect(
            Self.onlyEntry(oneOff)?["error"]
                == "the student took back the series 'English' that had a session on 2025-01-21 (they undid it); do not create it again"
        )
        // A series that repeats on a day it did not is the instruction followed another way.
        let wednesday = run("saveTask", ["tasks": [Self.series("2025-01-08T11:00", "2025-01-08T11:30")]])
        #expect(wednesday == [["ok": true, "id": "m-1"]])
        #expect(
            takenBack.text().hasPrefix(
                "I undid your earlier changes and took back the weekly series 'English' you created from Tue 01-07 11:00."
            ))
    }

    @Test func theSchemaOffersANullableRepeatInStrictForm() throws {
        let save = try #require(AssistantTools.all.first { $0.name == AssistantTools.saveTask })
        let item = try #require(save.parameters["properties"]?["tasks"]?["items"])
        #expect(item["required"]?.arrayValue?.contains("repeat") == true)
        let choices = try #require(item["properties"]?["repeat"]?["anyOf"]?.arrayValue)
        #expect(choices.count == 2)
        #expect(choices[1] == ["type": "null"])
        #expect(choices[0]["additionalProperties"] == false)
        #expect(choices[0]["required"] == ["every", "missed", "until"])
    }
}
