import Assistant
import Foundation
import Nightly
import Planning
import ReplanTestSupport
import Testing

/// docs/model.md §15: what a plan-changed request says the student changed, from the sessions
/// the memory kept.
@Suite("The plan change a request carries")
struct PlanChangeTests {
    static let today = date("2025-01-07")
    static let through = date("2025-01-21")
    static let night = TestClock.tuesdayNightTaipei
    static let day = 86_400.0

    /// English (covered: the instruction names it) and Math (not covered) one-offs, and a
    /// Grammar session the model created.
    static let plan = Fx.plan(
        [
            Fx.task("eng", "English reading", "2025-01-08T10:00", "2025-01-08T11:00", category: "English"),
            Fx.task("math", "Math drill", "2025-01-09T10:00", "2025-01-09T11:00", category: "Math"),
            Fx.task("m-1", "Grammar", "2025-01-10T14:00", "2025-01-10T15:00", category: "Grammar"),
        ], settings: settings)

    static var settings: UserSettings {
        var s = UserSettings()
        s.instruction = "an English session every weekday"
        return s
    }

    static func remembered(_ plan: UserPlan = PlanChangeTests.plan) -> ModelPlanDigest {
        // Through its text, as the memory stores it.
        ModelPlanDigest(
            parsing: ModelPlanDigest.make(
                plan, from: today, through: through, instruction: plan.settings.instruction,
                modelSessions: [id("m-1")]
            ).text)
    }

    static func change(_ tonight: UserPlan, takenBack: TakenBack = TakenBack(edits: [])) throws -> PlanChange {
        try #require(
            PlanChange.between(
                remembered(), tonight: tonight, from: today, through: through,
                instruction: tonight.settings.instruction, takenBack: takenBack))
    }

    @Test("an edit of a covered session is in the diff; a note edit and an unrelated course are not")
    func anEditIsInTheDiff() throws {
        var tonight = Self.plan
        tonight.move(id("eng"), start: at("2025-01-08T13:00"), end: at("2025-01-08T14:00"))
        tonight.move(id("math"), start: at("2025-01-09T15:00"), end: at("2025-01-09T16:00"))
        var noted = tonight.tasks["m-1"]!
        noted.note = "bring the workbook"
        tonight.put(noted)
        let change = try Self.change(tonight)
        #expect(
            change.text == "- I moved 'English reading' from Wed 01-08 10:00-11:00 to Wed 01-08 13:00-14:00 (id eng)")
        #expect(!change.touchesModel)
        // A note edit alone changes nothing the model works with.
        var onlyNote = Self.plan
        onlyNote.put(noted)
        #expect(try Self.change(onlyNote).isEmpty)
        // A new covered session is added.
        var added = Self.plan
        added.put(Fx.task("eng-2", "English essay", "2025-01-13T09:00", "2025-01-13T10:00", category: "English"))
        #expect(try Self.change(added).text == "- I added 'English essay' Mon 01-13 09:00-10:00 (id eng-2)")
    }

    @Test("removing a session the model created is in the diff as the model's")
    func removingTheModelsSession() throws {
        var tonight = Self.plan
        tonight.deleteTask("m-1")
        let change = try Self.change(tonight)
        #expect(change.text == "- I removed your 'Grammar' Fri 01-10 14:00-15:00 (id m-1)")
        #expect(change.removesModel && change.touchesModel)
    }

    @Test("an undo of the model's creation is said to be one")
    func anUndoIsSaid() throws {
        var tonight = Self.plan
        tonight.deleteTask("m-1")
        let created = PlanEdit(
            op: .create, id: id("m-1"), title: "Grammar", before: nil,
            after: TimeRange(start: at("2025-01-10T14:00"), end: at("2025-01-10T15:00")), reason: .model)
        let change = try Self.change(tonight, takenBack: TakenBack(edits: [created]))
        #expect(change.text == "- I removed your 'Grammar' Fri 01-10 14:00-15:00 (id m-1) (I undid your change)")
    }

    @Test("a series the model created covers its category, and is not taken for a session gone")
    func theModelsSeriesCoversItsCategory() throws {
        var plan = Self.plan
        plan.put(Fx.series("m-2", "Spanish", "2025-01-08T16:00", "2025-01-08T16:30", .weekly, category: "Spanish"))
        let digest = ModelPlanDigest.make(
            plan, from: Self.today, through: Self.through, instruction: Self.settings.instruction,
            modelSessions: [id("m-1"), id("m-2")])
        #expect(digest.covered.contains("Spanish"))
        #expect(digest.modelSessions == [id("m-1")])
        #expect(digest.sessions?.map(\.id.description).contains("m-2@2025-01-15") == true)
        // Nothing changed: no reason to ask. A student's edit of the series' category is one.
        #expect(!digest.asks(tonight: plan, digest: digest))
        var moved = plan
        moved.move(id("m-2@2025-01-15"), start: at("2025-01-15T10:00"), end: at("2025-01-15T10:30"))
        let tonight = ModelPlanDigest.make(
            moved, from: Self.today, through: Self.through, instruction: Self.settings.instruction,
            modelSessions: [id("m-1")])
        #expect(digest.asks(tonight: moved, digest: tonight))
    }

    @Test("a memory written before the sessions were kept gives no diff; the kept sessions survive the text")
    func earlierMemories() throws {
        let digest = ModelPlanDigest.make(
            Self.plan, from: Self.today, through: Self.through, instruction: Self.settings.instruction,
            modelSessions: [id("m-1")])
        var legacy = digest
        legacy.sessions = nil
        #expect(legacy.text.contains("\nv 2\n"))
        #expect(
            PlanChange.between(
                ModelPlanDigest(parsing: legacy.text), tonight: Self.plan, from: Self.today, through: Self.through)
                == nil)
        #expect(ModelPlanDigest(parsing: digest.text) == digest)
        #expect(digest.sessions?.map(\.id.description) == ["eng", "m-1"])
    }

    @Test("the night after a student's edit, the model is told what changed")
    func thePipelineTellsTheModel() throws {
        let calls = Shared<[String]>([])
        var first = UserPipeline(reviewer: FakeReviewer(behaviour: .createSession, calls: Counter()))
        first.policy = ModelCallPolicy(reviewEveryDays: 0)
        let start = Fx.plan(
            [Fx.task("eng", "English reading", "2025-01-09T10:00", "2025-01-09T11:00", category: "English")],
            settings: Self.settings)
        let (night, _) = first.prepare(original: start, now: Self.night)
        guard case .store(let memory) = night.memoryUpdate, var after = night.plans?.after else {
            Issue.record("the first night remembers nothing")
            return
        }
        // The student deletes the model's session and moves their English reading.
        after.deleteTask("m-mei")
        after.move(id("eng"), start: at("2025-01-09T13:00"), end: at("2025-01-09T14:00"))
        var second = UserPipeline(reviewer: WhyRecorder(calls: calls))
        second.policy = ModelCallPolicy(reviewEveryDays: 0)
        let (next, _) = second.prepare(original: after, now: Self.night.addingTimeInterval(Self.day), memory: memory)
        #expect(next.model.decision?.reason == "plan-changed")
        #expect(
            calls.value == [
                """
                I changed my plan since your last review:
                - I removed your 'Grammar' Wed 01-08 14:00-15:00 (id m-mei)
                - I moved 'English reading' from Thu 01-09 10:00-11:00 to Thu 01-09 13:00-14:00 (id eng)
                """
            ])
    }
}

extension PlanChangeTests {
    @Test("a change after the first week reaches the request: the plan is listed as far as the change")
    func aLateChangeIsListed() throws {
        let reached = Shared<[[CivilDate]]>([])
        var first = UserPipeline(reviewer: FakeReviewer(behaviour: .createSession, calls: Counter()))
        first.policy = ModelCallPolicy(reviewEveryDays: 0)
        let start = Fx.plan(
            [Fx.task("eng", "English reading", "2025-01-09T10:00", "2025-01-09T11:00", category: "English")],
            settings: Self.settings)
        let (night, _) = first.prepare(original: start, now: Self.night)
        guard case .store(let memory) = night.memoryUpdate, var after = night.plans?.after else {
            Issue.record("the first night remembers nothing")
            return
        }
        // Ten days ahead: past the week the request lists by default.
        after.move(id("eng"), start: at("2025-01-17T13:00"), end: at("2025-01-17T14:00"))
        var second = UserPipeline(reviewer: ReachRecorder(reached: reached))
        second.policy = ModelCallPolicy(reviewEveryDays: 0)
        let (next, _) = second.prepare(original: after, now: Self.night.addingTimeInterval(Self.day), memory: memory)
        #expect(next.model.decision?.reason == "plan-changed")
        #expect(reached.value == [[date("2025-01-09"), date("2025-01-17")]])
    }
}

/// Records the days a request reaches, and ends at once.
struct ReachRecorder: ModelReviewer {
    let reached: Shared<[[CivilDate]]>

    func review(_ working: UserPlan, local: PostponementResult, now: Date) -> ModelReview {
        ModelReview(plan: working, ending: .endConversation, requests: 1, turns: 1)
    }

    func review(
        _ working: UserPlan, local: PostponementResult, now: Date, why: String, takenBack: TakenBack, goal: GoalBrief,
        reaching: [CivilDate]
    ) -> ModelReview {
        reached.update { $0.append(reaching) }
        return ModelReview(plan: working, ending: .endConversation, requests: 1, turns: 1)
    }
}

/// Records why it was asked, and ends at once.
struct WhyRecorder: ModelReviewer {
    let calls: Shared<[String]>

    func review(_ working: UserPlan, local: PostponementResult, now: Date) -> ModelReview {
        review(working, local: local, now: now, why: "")
    }

    func review(_ working: UserPlan, local: PostponementResult, now: Date, why: String) -> ModelReview {
        calls.update { $0.append(why) }
        return ModelReview(plan: working, ending: .endConversation, requests: 1, turns: 1)
    }
}
