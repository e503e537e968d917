import Foundation
import JSON
import Planning
import ReplanTestSupport
import Testing

@testable import Assistant

/// `set_goal` (docs/model.md §17): a goal is parsed and checked like every other argument, and a
/// refused one changes nothing; the goal section of the request says which day falls short.
@Suite final class SetGoalToolTests {
    typealias F = PlanFixture

    var executor = ToolExecutor(plan: F.standard, now: F.now, createdAt: Date(timeIntervalSince1970: 0))

    func run(_ arguments: Any) -> JSONValue {
        executor.execute(
            ToolCall(id: "call_1", name: AssistantTools.setGoal, arguments: MockScript.jsonText(arguments)))
    }

    @Test func aValidGoalIsStatedWithItsReviewDate() {
        #expect(
            run(["goal": "at-least 30m English on MON-FRI", "reviewAgainOn": "2025-01-20"])
                == ["ok": true, "goal": "at-least 30m English on mon-fri"])
        #expect(executor.goal?.description == "at-least 30m English on mon-fri")
        #expect(executor.reviewAgainOn == date("2025-01-20"))
        #expect(executor.touched.isEmpty)
    }

    @Test func notCheckableIsAllowed() {
        #expect(run(["goal": "not-checkable: only the tone", "reviewAgainOn": NSNull()])["ok"] == true)
        #expect(executor.goal == .notCheckable(reason: "only the tone"))
        #expect(executor.reviewAgainOn == nil)
    }

    @Test(arguments: [
        (#"{"goal": "more English", "reviewAgainOn": null}"#, "a term starts with"),
        (#"{"goal": "none-on sun", "reviewAgainOn": "2025-01-06"}"#, "is in the past"),
        (#"{"goal": "none-on sun", "reviewAgainOn": "2025-03-20"}"#, "more than 60 days ahead"),
        (#"{"goal": "none-on sun", "reviewAgainOn": "soon"}"#, "not a date"),
        (#"{"reviewAgainOn": null}"#, "goal is required"),
        (#"{"goal": 3, "reviewAgainOn": null}"#, "goal"),
        (#"{"goal": "none-on sun", "reviewAgainOn": null, "extra": 1}"#, "extra"),
        ("not json", "not valid JSON"),
    ])
    func aBadGoalIsRefusedAndChangesNothing(_ arguments: String, _ expected: String) {
        let result = executor.execute(ToolCall(id: "call_1", name: AssistantTools.setGoal, arguments: arguments))
        #expect(result["ok"] == false)
        #expect(result["error"]?.stringValue?.contains(expected) == true, "\(result.text)")
        #expect(executor.goal == nil)
    }

    @Test func theRequestSaysWhichDayFallsShortByHowMuch() throws {
        let goal = try Goal(parsing: "at-least 60m English on tue")
        let stated = StatedGoal(goal: goal, setBy: .model, instructionDigest: "i-x", setOn: date("2025-01-06"))
        let check = GoalCheck(goal: goal, plan: F.standard, now: F.now, through: date("2025-01-21"))
        let text = SystemPrompt.goalText(
            GoalBrief(stated: stated, current: true, check: check), instruction: "English on Tuesdays")
        #expect(text.contains("My goal (stated by the model): at-least 60m English on tue"))
        #expect(text.contains("- Tue 2025-01-07: 30 of 60 minutes of English, 30 missing"))
        #expect(
            SystemPrompt.goalText(GoalBrief(stated: stated, current: false), instruction: "x").contains(
                "none stated for this instruction yet (the goal 'at-least 60m English on tue' was stated for an earlier instruction)"
            ))
        #expect(SystemPrompt.goalText(GoalBrief(stated: stated, current: true), instruction: "").isEmpty)
    }
}
