import Foundation
import Planning
import ReplanTestSupport
import Testing

@testable import Assistant

/// The student message's layout (docs/model.md §2, §11): a daily series is one line with the
/// days of its regular sessions, days 8–14 are listed only when the request reaches them, and
/// the free slots cover the whole horizon with the short gaps marked.
@Suite struct PromptLayoutTests {
    typealias F = PlanFixture

    static func lines(_ text: String) -> [String] { text.split(separator: "\n").map(String.init) }

    @Test func aDailySeriesIsOneLineWithItsDaysAndOnlyItsExceptionsAreListedByDay() throws {
        var plan = F.standard
        plan.skip(id("vocab@2025-01-09"))
        plan.move(id("vocab@2025-01-10"), start: at("2025-01-10T16:00"), end: at("2025-01-10T16:30"))
        let text = PlanLines.render(plan, today: date("2025-01-07"), through: date("2025-01-21"))
        let lines = Self.lines(text)
        #expect(
            lines.contains(
                "- vocab daily 20:00-20:30 Vocabulary [English]: Tue 01-07…Wed 01-08, Sat 01-11…Tue 01-21"))
        // The moved session has a line of its own; the regular ones have none.
        #expect(lines.contains("  16:00-16:30 Vocabulary id=vocab@2025-01-10"))
        // Missed sessions before today are still listed (the rules left them open).
        let ahead = lines.drop { $0 != "Tue 2025-01-07" }
        #expect(ahead.filter { $0.contains("id=vocab@") } == ["  16:00-16:30 Vocabulary id=vocab@2025-01-10"])
        #expect(lines.contains("  20:00-20:30 Vocabulary id=vocab@2025-01-04"))
        // The other sessions are listed as before.
        #expect(lines.contains("  14:00-15:00 Physics id=phy"))
        #expect(lines.contains("  09:00-09:30 Essay [English] id=essay done"))
    }

    @Test func aSlidDailyCourseSaysHowItsIdsRead() throws {
        let course = Fx.series("gram", "Grammar", "2025-01-01T18:00", "2025-01-01T18:30", .daily, until: "2025-01-31")
        let plan = Fx.plan(
            [course], settings: UserSettings(), slides: [SeriesSlide(taskID: "gram", from: date("2025-01-09"), days: 2)]
        )
        let text = PlanLines.render(plan, today: date("2025-01-07"), through: date("2025-01-14"))
        #expect(
            text.contains(
                "- gram daily 18:00-18:30 Grammar [English]: Tue 01-07…Wed 01-08, Sat 01-11…Tue 01-14 (slid 2 days: Sat 01-11 is id=gram@2025-01-09)"
            ))
        #expect(!text.contains("id=gram@2025-01-1"))
    }

    @Test("consecutive days with the same windows share one entry")
    func windowsAreGroupedByRunsOfDays() throws {
        let week = try WeeklyWindows(
            text: [
                .mon: ["18:00-22:00"], .tue: ["18:00-22:00"], .wed: ["18:00-22:00"], .thu: ["18:00-22:00"],
                .fri: ["18:00-22:00"], .sat: ["10:00-12:00", "14:00-18:00"], .sun: ["10:00-12:00", "14:00-18:00"],
            ])
        #expect(SystemPrompt.windowsText(week) == "Mon-Fri 18:00-22:00; Sat-Sun 10:00-12:00, 14:00-18:00")
        let broken = try WeeklyWindows(text: [.mon: ["09:00-10:00"], .wed: ["09:00-10:00"]])
        #expect(SystemPrompt.windowsText(broken) == "Mon 09:00-10:00; Tue none; Wed 09:00-10:00; Thu-Sun none")
        let every = try WeeklyWindows(
            text: Dictionary(uniqueKeysWithValues: Weekday.allCases.map { ($0, ["18:00-22:00"]) }))
        #expect(SystemPrompt.windowsText(every) == "Mon-Sun 18:00-22:00")
    }

    @Test func daysAfterTheFirstWeekAreCountedUnlessTheRequestReachesThem() throws {
        let prompt = try SystemPrompt.load(directory: F.promptDirectory)
        let plan = Fx.plan(
            F.standard.sortedTasks + [
                Fx.task("late", "Essay plan", "2025-01-17T10:00", "2025-01-17T11:00", category: "English")
            ], settings: UserSettings())
        let quiet = try prompt.render(plan: plan, now: F.now, localEdits: [], flags: [])
        #expect(!quiet.user.contains("id=late"))
        #expect(
            quiet.user.contains(
                "Wed 01-15…Tue 01-21: not listed, 8 sessions (English 8)"))
        // The free slots still cover the whole horizon.
        #expect(quiet.user.contains("Tue 01-21: 09:00-17:00"))

        // A date the request is about (a goal, a change) after the first week lists everything.
        let reaching = try prompt.render(
            plan: plan, now: F.now, localEdits: [], flags: [], reaching: [date("2025-01-17")])
        #expect(reaching.user.contains("  10:00-11:00 Essay plan [English] id=late"))
        #expect(!reaching.user.contains("not listed"))

        // So does an instruction naming such a date.
        var settings = UserSettings()
        settings.instruction = "revise for the exam on 2025-01-20"
        let instructed = Fx.plan(plan.sortedTasks, settings: settings)
        #expect(try prompt.render(plan: instructed, now: F.now, localEdits: [], flags: []).user.contains("id=late"))
        settings.instruction = "revise for the exam on 2025-01-10"
        let soon = Fx.plan(plan.sortedTasks, settings: settings)
        #expect(!(try prompt.render(plan: soon, now: F.now, localEdits: [], flags: []).user.contains("id=late")))
    }

    @Test func aFlagWhoseCourseHasNoSessionInTheFirstWeekListsTheWholeHorizon() throws {
        let today = date("2025-01-07")
        let piano = Fx.series("piano", "Piano", "2024-12-16T10:00", "2024-12-16T11:00", .monthly, category: "Music")
        let plan = Fx.plan([piano, Fx.task("late", "Essay", "2025-01-17T10:00", "2025-01-17T11:00")])
        let missed = PlanFlag(id: id("piano@2024-12-16"), kind: .couldNotFit)
        #expect(
            SystemPrompt.lastDayShown(plan, today: today, through: date("2025-01-21"), flags: [missed])
                == date("2025-01-21"))
        #expect(
            SystemPrompt.lastDayShown(plan, today: today, through: date("2025-01-21"), flags: []) == date("2025-01-14"))
        // A weekly lesson whose next session lies in the first week needs nothing after it.
        let weekly = Fx.series("violin", "Violin", "2024-12-30T10:00", "2024-12-30T11:00", .weekly, category: "Music")
        let lesson = Fx.plan([weekly])
        let flag = PlanFlag(id: id("violin@2024-12-30"), kind: .couldNotFit)
        #expect(
            SystemPrompt.lastDayShown(lesson, today: today, through: date("2025-01-21"), flags: [flag])
                == date("2025-01-14"))
    }

    @Test func freeSlotsCoverTheWholeHorizonAndMarkTheGapsShorterThanASession() throws {
        let plan = Fx.plan([
            Fx.task("a", "Physics", "2025-01-09T10:00", "2025-01-09T11:00"),
            Fx.task("b", "Math", "2025-01-09T11:30", "2025-01-09T16:50"),
        ])
        let text = FreeSlots.render(plan, now: F.now, through: date("2025-01-21"))
        let lines = Self.lines(text)
        #expect(lines.first == "Tue 01-07: 09:00-17:00")
        #expect(lines.contains("Thu 01-09: 09:00-10:00, 11:00-11:30*"))
        #expect(lines.last == "Tue 01-21: 09:00-17:00")
        // Weekends have no window: no line. Ten weekdays from Tue 01-07 to Tue 01-21, plus one.
        #expect(lines.count == 11)
        // The 10-minute gap before 17:00 is under the 15 listed at all.
        #expect(!text.contains("16:50"))
    }

    @Test func theSharedPrefixStaysWellAboveThePromptCacheThreshold() throws {
        // The provider caches a prefix of 1,024 tokens or more (in 128-token steps). o200k
        // counts about 4 bytes of this English text a token; the bench measures it exactly
        // (docs/benchmark.md). Kept well above the threshold, so a wording change cannot drop it.
        let prompt = try SystemPrompt.load(directory: F.promptDirectory)
        let system = try prompt.render(plan: F.standard, now: F.now, localEdits: [], flags: []).system
        let tools = AssistantTools.all.map { $0.description + $0.parameters.text }.joined()
        #expect((system.utf8.count + tools.utf8.count) / 4 >= 1_400)
    }
}
