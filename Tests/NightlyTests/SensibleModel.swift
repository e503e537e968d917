import Assistant
import Foundation
import JSON
import Nightly
import Planning
import ReplanTestSupport

/// A scripted model that behaves like a sensible one (issue 24): it states the goal an
/// instruction compiles into (from a table of instructions, as a model would read them), reads
/// the goal's shortfalls in the request and places the missing minutes in the free time of
/// those days, through the real tools (`ToolExecutor`), so every rule of docs/model.md §12
/// judges its edits. Sometimes lazy (mends only the first day), sometimes wrong (tries the day
/// after, which the tools may accept or refuse).
struct SensibleModel: ModelReviewer {
    enum Mood: Sendable { case diligent, lazy, wrong, idle }

    /// The goal each instruction compiles into.
    let goals: [String: String]
    /// Who is diligent, lazy, wrong or idle tonight (by student id and plan date).
    let mood: @Sendable (String, CivilDate) -> Mood
    let calls: Counter
    /// Calls that had nothing to do: no goal to state, nothing the plan could mend.
    let idle: Counter
    /// The same, asked for flags (the local rules' `could-not-fit`, which this model leaves to
    /// the student).
    let idleFlags: Counter

    init(
        goals: [String: String], calls: Counter = Counter(), idle: Counter = Counter(), idleFlags: Counter = Counter(),
        mood: @escaping @Sendable (String, CivilDate) -> Mood = { _, _ in .diligent }
    ) {
        self.goals = goals
        self.calls = calls
        self.idle = idle
        self.idleFlags = idleFlags
        self.mood = mood
    }

    func review(_ working: UserPlan, local: PostponementResult, now: Date) -> ModelReview {
        review(working, local: local, now: now, why: "", takenBack: TakenBack(edits: []), goal: .none)
    }

    func review(
        _ working: UserPlan, local: PostponementResult, now: Date, why: String, takenBack: TakenBack, goal: GoalBrief
    ) -> ModelReview {
        calls.increment()
        let today = local.now.date
        var executor = ToolExecutor(
            plan: working, now: local.now, createdAt: now, takenBack: takenBack,
            makeTaskID: { "m-" + StableID.base32(UInt64.random(in: 0...UInt64.max), length: 10) })
        var stated = false
        var target = goal.current ? goal.stated?.goal : nil
        if target == nil, let text = goals[working.settings.instruction.trimmingWhitespace()] {
            _ = executor.execute(
                ToolCall(
                    id: "g", name: AssistantTools.setGoal,
                    arguments: Self.json(["goal": .string(text), "reviewAgainOn": .null])))
            target = executor.goal
            stated = true
        }
        let mood = mood(working.user.id, today)
        // Whether the call had anything to do: a goal to state, or something the plan could mend.
        var hadWork = stated
        if let target {
            let week = GoalCheck(
                goal: target, plan: working, now: local.now, through: today.adding(days: working.settings.horizonDays))
            hadWork = hadWork || !week.violations.isEmpty || week.shortfalls.contains { $0.hasRoom }
        }
        if !hadWork { (why.hasPrefix("the local rules left sessions") ? idleFlags : idle).increment() }
        if let target, mood != .idle {
            let through = today.adding(days: working.settings.horizonDays)
            // It plans the whole horizon, so the days entering the checked week hold already.
            let check = GoalCheck(
                goal: target, plan: executor.plan, now: local.now, through: through,
                days: working.settings.horizonDays + 1)
            var items: [JSONValue] = []
            let finder = SlotFinder(settings: working.settings, now: local.now, zone: working.zone)
            var busy = BusyIndex(executor.plan.occurrences(from: today.adding(days: -1), through: through))
            for s in check.shortfalls where s.hasRoom {
                guard case .atLeast(_, let category, _) = s.term else { continue }
                let day = mood == .wrong ? s.date.adding(days: 1) : s.date
                var missing = s.missing
                for gap in finder.gaps(on: day, notBefore: local.now.minuteNumber, busy: busy) where missing > 0 {
                    let length = min(missing, gap.count)
                    guard length >= 15 else { continue }
                    let start = CivilDateTime(minuteNumber: gap.lowerBound)
                    let end = CivilDateTime(minuteNumber: gap.lowerBound + length)
                    let name = category ?? "Study"
                    items.append([
                        // Its own title: a session titled like the student's course would join
                        // that course (docs/planning.md §1.6) and move with it.
                        "title": .string("\(name) practice"), "note": "", "category": .string(name), "color": "green",
                        "start": .string(start.description), "end": .string(end.description), "allDay": false,
                        "reason": "my goal",
                    ])
                    busy.insert(
                        Occurrence(
                            id: OccurrenceID(taskID: "x-\(items.count)"), title: name, note: "", category: name,
                            color: .green, start: start, end: end, allDay: false, state: .open))
                    missing -= length
                }
                if mood == .lazy && !items.isEmpty { break }
            }
            if !items.isEmpty {
                _ = executor.execute(
                    ToolCall(id: "s", name: AssistantTools.saveTask, arguments: Self.json(["tasks": .array(items)])))
            }
        }
        _ = executor.execute(
            ToolCall(
                id: "e", name: AssistantTools.endConversation,
                arguments: #"{"summary":"done","status":"done","question":null}"#))
        var review = ModelReview(
            plan: executor.plan, ending: .endConversation, touched: executor.touched, requests: 2, turns: 2,
            usage: TokenCounts(prompt: 2000, completion: 200))
        review.goal = stated ? executor.goal : nil
        review.reviewAgainOn = executor.reviewAgainOn
        return review
    }

    static func json(_ value: JSONValue) -> String { value.text }
}
