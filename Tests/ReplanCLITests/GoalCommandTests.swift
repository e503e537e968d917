import Foundation
import ReplanTestSupport
import Testing

/// `settings set --goal` and `settings show` (docs/model.md §17): the goal is validated before
/// anything is written, shown with who stated it, and cleared on request.
@Suite struct GoalCommandTests {
    @Test func aGoalIsSetShownAndCleared() async throws {
        let s = try Sandbox()
        try await s.ok(["user", "add", "mei", "--time-zone", "Asia/Taipei"])
        #expect(try await s.ok(["settings", "show", "--user", "mei"]).contains("goal:                -"))

        // A goal belongs to an instruction: refused without one, and nothing is written.
        let none = try await s.run(["settings", "set", "--user", "mei", "--tone", "kind", "--goal", "none-on sun"])
        #expect(none.code == 65 && none.stderr.contains("instruction"), "\(none)")
        #expect(
            try await s.json(["settings", "show", "--user", "mei", "--json"]).object("settings")?.string("tone")
                != "kind")

        try await s.ok([
            "settings", "set", "--user", "mei", "--instruction", "English every weekday", "--goal",
            "AT-LEAST 30m English on mon-fri", "--goal-by", "student",
        ])
        let shown = try await s.json(["settings", "show", "--user", "mei", "--json"])
        let goal = try #require(shown.object("goal"))
        #expect(goal.string("goal") == "at-least 30m English on mon-fri")
        #expect(goal.string("setBy") == "student" && goal.bool("current") == true)
        let text = try await s.ok(["settings", "show", "--user", "mei"])
        #expect(text.contains("goal:                at-least 30m English on mon-fri"), "\(text)")
        #expect(text.contains("set by:            student"), "\(text)")

        // A bad goal is bad input; a wrong --goal-by is a usage error; neither changes anything.
        let bad = try await s.run(["settings", "set", "--user", "mei", "--goal", "more English please"])
        #expect(bad.code == 65 && bad.stderr.contains("--goal"), "\(bad)")
        let who = try await s.run(["settings", "set", "--user", "mei", "--goal", "none-on sun", "--goal-by", "model"])
        #expect(who.code == 64, "\(who)")
        #expect(
            try await s.json(["settings", "show", "--user", "mei", "--json"]).object("goal")?.string("goal")
                == "at-least 30m English on mon-fri")

        // A changed instruction makes it stale.
        try await s.ok(["settings", "set", "--user", "mei", "--instruction", "Maths instead"])
        #expect(try await s.ok(["settings", "show", "--user", "mei"]).contains("stale"))

        try await s.ok(["settings", "set", "--user", "mei", "--clear-goal"])
        #expect(try await s.json(["settings", "show", "--user", "mei", "--json"]).object("goal") == nil)
    }
}
