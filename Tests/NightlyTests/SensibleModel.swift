import Assistant
import Foundation
import JSON
import Nightly
import Planning
import ReplanTestSupport

/// A scripted model that behaves like a sensible one (issue 24), through the real tools
/// (`ToolExecutor`), so every rule of docs/model.md §12 judges its edits:
///
/// - it states the goal an instruction compiles into (from a table of instructions, as a model
///   would read them), with a review date three days before a total's date (an exam);
/// - it acts on the rules' `could-not-fit` flags: diligent, it reads the constraint the prompt
///   states (before the next session of the course, on a day without one) and moves the
///   session into a free gap there, shortened to a gap shorter than the session when nothing
///   longer is free, or leaves it to the student when no day before the next session has room;
///   wrong, it takes the first free slot that holds the whole session whatever the course
///   order, and when the tools refuse it takes the nearest slot they offer or gives up;
/// - it reads the goal's shortfalls and places the missing minutes in the free time: each day
///   short of an `at-least` term, the days before a `total` term's date.
///
/// Sometimes lazy (mends only the first shortfall and the first flag), sometimes wrong (tries
/// the day after for a shortfall), sometimes idle (does nothing but state the goal).
struct SensibleModel: ModelReviewer {
    enum Mood: Sendable { case diligent, lazy, wrong, idle }

    /// What the model saw and did, summed over its calls.
    struct Stats: Sendable {
        var calls = 0
        /// Calls with nothing to do: no goal to state, nothing the plan could mend, no flag
        /// with an option; `idleFlags` of them were asked for flags.
        var idle = 0, idleFlags = 0
        /// Calls shown at least one `could-not-fit` flag, and of them those where at least one
        /// had a free gap before the next session of its course.
        var flagCalls = 0, flagCallsWithOption = 0
        /// Flags shown, with an option, moved by the model (of which shortened), left.
        var flags = 0, flagsWithOption = 0, flagsMoved = 0, flagsShortened = 0, flagsLeft = 0
        /// The wrong model's first-slot moves, refused by the tools for the course order (G2),
        /// then the nearest slot offered taken, or given up.
        var firstSlotMoves = 0, refusedG2 = 0, offeredTaken = 0, gaveUp = 0
        /// Diligent moves the tools refused (the model's reading of the order was wrong).
        var diligentRefused = 0
    }

    /// The goal each instruction compiles into.
    let goals: [String: String]
    /// Who is diligent, lazy, wrong or idle tonight (by student id and plan date).
    let mood: @Sendable (String, CivilDate) -> Mood
    let calls: Counter
    let stats: Shared<Stats>

    init(
        goals: [String: String], calls: Counter = Counter(), stats: Shared<Stats> = Shared(Stats()),
        mood: @escaping @Sendable (String, CivilDate) -> Mood = { _, _ in .diligent }
    ) {
        self.goals = goals
        self.calls = calls
        self.stats = stats
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
        // Ids drawn from the student, the night and a count: two runs (two engines) make the same.
        let made = Counter()
        let seed = "\(working.user.id)|\(today)"
        var executor = ToolExecutor(
            plan: working, now: local.now, createdAt: now, takenBack: takenBack,
            makeTaskID: {
                made.increment()
                return "m-" + StableID.base32(Self.hash("\(seed)|\(made.count)"), length: 10)
            })
        var stats = Stats(calls: 1)
        var stated = false
        var target = goal.current ? goal.stated?.goal : nil
        // A total counts what was done since the goal was stated (`GoalCheck`).
        let since = goal.current ? goal.stated?.setOn : today
        if target == nil, let text = goals[working.settings.instruction.trimmingWhitespace()] {
            // An exam's total: look again three days before it.
            var review: JSONValue = .null
            for term in (try? Goal(parsing: text))?.terms ?? [] {
                if case .totalBefore(_, _, let date) = term, today <= date.adding(days: -3) {
                    review = .string(date.adding(days: -3).description)
                }
            }
            _ = executor.execute(
                ToolCall(
                    id: "g", name: AssistantTools.setGoal,
                    arguments: Self.json(["goal": .string(text), "reviewAgainOn": review])))
            target = executor.goal
            stated = true
        }
        let mood = mood(working.user.id, today)
        let through = executor.lastPlacementDate

        // The flags: where each could go, whatever tonight's mood does with it.
        let flagged = local.flags.filter { $0.kind == .couldNotFit }.compactMap { f -> Occurrence? in
            guard let o = working.occurrence(f.id), o.state == .open, !o.allDay else { return nil }
            return o
        }
        let options = flagged.map { Self.option(for: $0, in: working, now: local.now, through: through) }
        stats.flags = flagged.count
        stats.flagsWithOption = options.count { $0 != nil }
        if !flagged.isEmpty {
            stats.flagCalls = 1
            stats.flagCallsWithOption = options.contains { $0 != nil } ? 1 : 0
        }

        // Whether the call had anything to do: a goal to state, something the plan could mend,
        // a flag with an option.
        var hadWork = stated || stats.flagCallsWithOption > 0
        if let target {
            let week = GoalCheck(goal: target, plan: working, now: local.now, through: through, countedFrom: since)
            hadWork = hadWork || !week.violations.isEmpty || week.shortfalls.contains { $0.hasRoom }
        }
        if !hadWork {
            stats.idle = 1
            stats.idleFlags = why.hasPrefix("the local rules left sessions") ? 1 : 0
        }

        if mood != .idle {
            for o in flagged {
                act(on: o, mood: mood, executor: &executor, stats: &stats)
                if mood == .lazy { break }
            }
        }
        if let target, mood != .idle {
            mend(target, since: since, mood: mood, executor: &executor, now: local.now, through: through)
        }
        let left = stats.flagsLeft > 0
        _ = executor.execute(
            ToolCall(
                id: "e", name: AssistantTools.endConversation,
                arguments: Self.json([
                    "summary": .string(left ? "some sessions have no place before their course goes on" : "done"),
                    "status": .string(left ? "needs-student" : "done"), "question": .null,
                ])))
        let summed = stats
        self.stats.update { s in
            s.calls += summed.calls
            s.idle += summed.idle
            s.idleFlags += summed.idleFlags
            s.flagCalls += summed.flagCalls
            s.flagCallsWithOption += summed.flagCallsWithOption
            s.flags += summed.flags
            s.flagsWithOption += summed.flagsWithOption
            s.flagsMoved += summed.flagsMoved
            s.flagsShortened += summed.flagsShortened
            s.flagsLeft += summed.flagsLeft
            s.firstSlotMoves += summed.firstSlotMoves
            s.refusedG2 += summed.refusedG2
            s.offeredTaken += summed.offeredTaken
            s.gaveUp += summed.gaveUp
            s.diligentRefused += summed.diligentRefused
        }
        var review = ModelReview(
            plan: executor.plan, ending: .endConversation, touched: executor.touched, requests: 2, turns: 2,
            usage: TokenCounts(prompt: 2000, completion: 200))
        review.goal = stated ? executor.goal : nil
        review.reviewAgainOn = executor.reviewAgainOn
        return review
    }

    /// Where a diligent model puts a session the rules could not fit, reading the constraint
    /// the prompt states: a free gap inside the windows before the course's next session, on a
    /// day that holds no session of the course; the whole session when a gap is long enough,
    /// else the longest gap of at least 15 minutes (shortened). Nil: nothing is possible.
    static func option(for o: Occurrence, in plan: UserPlan, now: CivilDateTime, through: CivilDate) -> TimeRange? {
        let key = ChainKey(o)
        let ahead = plan.occurrences(from: now.date, through: through).filter {
            $0.state == .open && $0.id != o.id && $0.start.date >= now.date && ChainKey($0) == key
        }
        let held = Set(ahead.map(\.start.date))
        let course = ahead.filter { o.isSeriesOccurrence ? $0.taskID == o.taskID : !$0.isSeriesOccurrence }
        let before = course.map(\.start.date).min() ?? through.adding(days: 1)
        let length = o.lengthMinutes
        let finder = SlotFinder(settings: plan.settings, now: now, zone: plan.zone)
        let busy = BusyIndex(plan.occurrences(from: now.date.adding(days: -1), through: through))
        var longest: Range<Int>?
        var day = now.date
        while day < before && day <= through {
            defer { day = day.adding(days: 1) }
            guard !held.contains(day) else { continue }
            for gap in finder.gaps(on: day, notBefore: now.minuteNumber, busy: busy) {
                if gap.count >= length {
                    return TimeRange(
                        start: CivilDateTime(minuteNumber: gap.lowerBound),
                        end: CivilDateTime(minuteNumber: gap.lowerBound + length))
                }
                if gap.count >= GoalCheck.shortestRoom, gap.count > (longest?.count ?? 0) { longest = gap }
            }
        }
        return longest.map {
            TimeRange(
                start: CivilDateTime(minuteNumber: $0.lowerBound), end: CivilDateTime(minuteNumber: $0.upperBound))
        }
    }

    /// The first free slot the prompt lists that holds the whole session, whatever the course's
    /// order: what a model that ignores the flag's constraint takes.
    static func firstSlot(for o: Occurrence, in plan: UserPlan, now: CivilDateTime, through: CivilDate) -> TimeRange? {
        let finder = SlotFinder(settings: plan.settings, now: now, zone: plan.zone)
        let busy = BusyIndex(plan.occurrences(from: now.date.adding(days: -1), through: through))
        var day = now.date
        while day <= through {
            defer { day = day.adding(days: 1) }
            if let gap = finder.gaps(on: day, notBefore: now.minuteNumber, busy: busy).first(where: {
                $0.count >= o.lengthMinutes
            }) {
                return TimeRange(
                    start: CivilDateTime(minuteNumber: gap.lowerBound),
                    end: CivilDateTime(minuteNumber: gap.lowerBound + o.lengthMinutes))
            }
        }
        return nil
    }

    private func act(on o: Occurrence, mood: Mood, executor: inout ToolExecutor, stats: inout Stats) {
        let now = executor.now
        let through = executor.lastPlacementDate
        func move(_ slot: TimeRange, _ call: String) -> JSONValue {
            let result = executor.execute(
                ToolCall(
                    id: call, name: AssistantTools.updateTask,
                    arguments: Self.json([
                        "tasks": [
                            [
                                "taskId": .string(o.id.description), "start": .string(slot.start.description),
                                "end": .string(slot.end.description),
                                "reason": "could not fit: before its next session",
                            ]
                        ]
                    ])))
            return result.arrayValue?.first ?? result
        }
        if mood == .wrong {
            guard let slot = Self.firstSlot(for: o, in: executor.plan, now: now, through: through) else {
                stats.flagsLeft += 1
                return
            }
            stats.firstSlotMoves += 1
            let result = move(slot, "w")
            if result["ok"]?.boolValue == true {
                stats.flagsMoved += 1
                return
            }
            let error = result["error"]?.stringValue ?? ""
            if error.contains("a course keeps its order") || error.contains("of the same course") {
                stats.refusedG2 += 1
            }
            if let start = result["nearest"]?["start"]?.stringValue.flatMap(CivilDateTime.init),
                let end = result["nearest"]?["end"]?.stringValue.flatMap(CivilDateTime.init),
                move(TimeRange(start: start, end: end), "n")["ok"]?.boolValue == true
            {
                stats.offeredTaken += 1
                stats.flagsMoved += 1
            } else {
                stats.gaveUp += 1
                stats.flagsLeft += 1
            }
            return
        }
        guard let slot = Self.option(for: o, in: executor.plan, now: now, through: through) else {
            stats.flagsLeft += 1
            return
        }
        if move(slot, "d")["ok"]?.boolValue == true {
            stats.flagsMoved += 1
            if slot.end.minuteNumber - slot.start.minuteNumber < o.lengthMinutes { stats.flagsShortened += 1 }
        } else {
            stats.diligentRefused += 1
            stats.flagsLeft += 1
        }
    }

    /// Places the goal's missing minutes: on each day short of an `at-least` term (the wrong
    /// model: the day after), and over the days before a `total` term's date, at most one
    /// session-length a day per pass.
    private func mend(
        _ target: Goal, since: CivilDate?, mood: Mood, executor: inout ToolExecutor, now: CivilDateTime,
        through: CivilDate
    ) {
        let today = now.date
        // It plans the whole horizon, so the days entering the checked week hold already.
        let check = GoalCheck(
            goal: target, plan: executor.plan, now: now, through: through,
            days: today.days(until: through) + 1, countedFrom: since)
        var items: [JSONValue] = []
        let plan = executor.plan
        let finder = SlotFinder(settings: plan.settings, now: now, zone: plan.zone)
        var busy = BusyIndex(plan.occurrences(from: today.adding(days: -1), through: through))
        let shift = mood == .wrong ? 1 : 0
        func place(on day: CivilDate, upTo wanted: Int, category: String?, title: String) -> Int {
            var missing = wanted
            for gap in finder.gaps(on: day, notBefore: now.minuteNumber, busy: busy) where missing > 0 {
                let length = min(missing, gap.count)
                guard length >= GoalCheck.shortestRoom else { continue }
                let start = CivilDateTime(minuteNumber: gap.lowerBound)
                let end = CivilDateTime(minuteNumber: gap.lowerBound + length)
                let name = category ?? "Study"
                items.append([
                    // Its own title: a session titled like the student's course would join
                    // that course (docs/planning.md §1.6) and move with it.
                    "title": .string("\(name) \(title)"), "note": "", "category": .string(name), "color": "green",
                    "start": .string(start.description), "end": .string(end.description), "allDay": false,
                    "reason": "my goal",
                ])
                busy.insert(
                    Occurrence(
                        id: OccurrenceID(taskID: "x-\(items.count)"), title: name, note: "", category: name,
                        color: .green, start: start, end: end, allDay: false, state: .open))
                missing -= length
            }
            return wanted - missing
        }
        for s in check.shortfalls where s.hasRoom {
            switch s.term {
            case .atLeast(_, let category, _):
                _ = place(on: s.date.adding(days: shift), upTo: s.missing, category: category, title: "practice")
            case .totalBefore(_, let category, let date):
                let session = plan.settings.sessionMinutes
                var missing = s.missing
                var pass = 0
                while missing > 0 && pass < 4 {
                    pass += 1
                    var day = today.adding(days: shift)
                    var placedThisPass = 0
                    while day < date.adding(days: shift) && day <= through && missing > 0 {
                        let placed = place(on: day, upTo: min(session, missing), category: category, title: "revision")
                        missing -= placed
                        placedThisPass += placed
                        day = day.adding(days: 1)
                        if mood == .lazy && placed > 0 { break }
                    }
                    if placedThisPass == 0 || mood == .lazy { break }
                }
            case .noneAfter, .noneOn:
                break
            }
            if mood == .lazy && !items.isEmpty { break }
        }
        if !items.isEmpty {
            _ = executor.execute(
                ToolCall(id: "s", name: AssistantTools.saveTask, arguments: Self.json(["tasks": .array(items)])))
        }
    }

    static func json(_ value: JSONValue) -> String { value.text }

    /// A stable number for a text (FNV-1a).
    static func hash(_ text: String) -> UInt64 {
        text.utf8.reduce(0xcbf2_9ce4_8422_2325) { ($0 ^ UInt64($1)) &* 0x100_0000_01b3 }
    }
}
