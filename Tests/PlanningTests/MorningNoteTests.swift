import Foundation
import ReplanTestSupport
import Testing

@testable import Planning

/// The student's morning note (docs/planning.md §12): snapshots of the worked examples' nights
/// in English and Chinese, a night the model ended with a question, quiet nights, and over the
/// adversarial population: every edit and flag is mentioned, nothing else is, and the numbers
/// are the summary's.
@Suite struct MorningNoteTests {
    struct Snapshot: CustomTestStringConvertible, Sendable {
        var name: String
        var plan: UserPlan
        var now: String
        var en: String
        var zh: String
        var testDescription: String { name }
    }

    static let snapshots: [Snapshot] = [
        Snapshot(
            name: "§9.1 a course without windows shifts by one day", plan: WorkedExamples.example1(),
            now: "2025-01-02T03:00",
            en: """
                Your plan for Thu 2 Jan: 4 changes

                Made up
                - Math [1/4], missed Wed 1 Jan: now Thu 2 Jan 09:00–10:00

                Moved along with their course
                - Math 2–4: one day later

                In all: 4 sessions moved, all 4 kept in their course's order.

                Not what you wanted? Changeset cs-20250107-030000-abc123 takes this night back.
                """,
            zh: """
                1月2日週四的計畫：4 項調整

                補上的課
                - Math [1/4]：1月1日週三 未完成，改到 1月2日週四 09:00–10:00

                隨課程順延
                - Math 2–4：延後一天

                總計：移動 4 堂，全部 4 堂都維持課程順序。

                不是你想要的？變更集 cs-20250107-030000-abc123 可以撤回這一晚的調整。
                """),
        Snapshot(
            name: "§9.2 a weekday course skips the weekend", plan: WorkedExamples.englishWeek(),
            now: "2025-01-07T03:00",
            en: """
                Your plan for Tue 7 Jan: 5 changes

                Made up
                - English reading, missed Mon 6 Jan: now Tue 7 Jan 10:00–11:00

                Moved along with their course
                - English reading, 4 sessions: 1 to 3 days later

                In all: 5 sessions moved, all 5 kept in their course's order.

                Not what you wanted? Changeset cs-20250107-030000-abc123 takes this night back.
                """,
            zh: """
                1月7日週二的計畫：5 項調整

                補上的課
                - English reading：1月6日週一 未完成，改到 1月7日週二 10:00–11:00

                隨課程順延
                - English reading，共 4 堂：延後 1 至 3 天

                總計：移動 5 堂，全部 5 堂都維持課程順序。

                不是你想要的？變更集 cs-20250107-030000-abc123 可以撤回這一晚的調整。
                """),
        Snapshot(
            name: "§9.3 two missed days shift by two", plan: WorkedExamples.englishWeek(), now: "2025-01-08T03:00",
            en: """
                Your plan for Wed 8 Jan: 5 changes

                Made up
                - English reading, missed Mon 6 Jan: now Wed 8 Jan 10:00–11:00

                Moved along with their course
                - English reading, 4 sessions: 2 to 4 days later

                In all: 5 sessions moved, all 5 kept in their course's order.

                Not what you wanted? Changeset cs-20250107-030000-abc123 takes this night back.
                """,
            zh: """
                1月8日週三的計畫：5 項調整

                補上的課
                - English reading：1月6日週一 未完成，改到 1月8日週三 10:00–11:00

                隨課程順延
                - English reading，共 4 堂：延後 2 至 4 天

                總計：移動 5 堂，全部 5 堂都維持課程順序。

                不是你想要的？變更集 cs-20250107-030000-abc123 可以撤回這一晚的調整。
                """),
        Snapshot(
            name: "§9.4 a mixed week", plan: WorkedExamples.example4(), now: "2025-01-07T03:00",
            en: """
                Your plan for Tue 7 Jan: 4 changes

                Made up
                - Write report, missed Sat 4 Jan: now Tue 7 Jan 15:00–17:00
                - Physics, missed Mon 6 Jan: now Tue 7 Jan 14:00–15:00

                Moved along with their course
                - Physics: one day later

                Removed as more than 7 days old
                - Old reading: Sat 28 Dec

                In all: 3 sessions moved, 2 of them kept in their course's order, 1 old session removed.

                Not what you wanted? Changeset cs-20250107-030000-abc123 takes this night back.
                """,
            zh: """
                1月7日週二的計畫：4 項調整

                補上的課
                - Write report：1月4日週六 未完成，改到 1月7日週二 15:00–17:00
                - Physics：1月6日週一 未完成，改到 1月7日週二 14:00–15:00

                隨課程順延
                - Physics：延後一天

                超過 7 天未完成，已移除
                - Old reading：12月28日週六

                總計：移動 3 堂，其中 2 堂維持課程順序，移除 1 堂過期的課。

                不是你想要的？變更集 cs-20250107-030000-abc123 可以撤回這一晚的調整。
                """),
        Snapshot(
            name: "§9.5 a course series appends its missed session", plan: WorkedExamples.example5(),
            now: "2025-01-07T03:00",
            en: """
                Your plan for Tue 7 Jan: 1 change

                Added after the course's end
                - Vocab, missed Mon 6 Jan: now Sat 1 Feb 20:00–20:30
                - Vocab now ends Sat 1 Feb

                In all: 1 session moved, kept in its course's order.

                Not what you wanted? Changeset cs-20250107-030000-abc123 takes this night back.
                """,
            zh: """
                1月7日週二的計畫：1 項調整

                接在課程結束之後
                - Vocab：1月6日週一 未完成，改到 2月1日週六 20:00–20:30
                - Vocab 順延到 2月1日週六 結束

                總計：移動 1 堂，維持課程順序。

                不是你想要的？變更集 cs-20250107-030000-abc123 可以撤回這一晚的調整。
                """),
        Snapshot(
            name: "§9.6 a late run starts the course tomorrow", plan: WorkedExamples.example6(),
            now: "2025-01-07T23:30",
            en: """
                Your plan for Tue 7 Jan: 5 changes

                Made up
                - Linear algebra [1/5], missed Sun 5 Jan: now Wed 8 Jan 10:00–11:00

                Moved along with their course
                - Linear algebra 2–5: 3 days later

                In all: 5 sessions moved, all 5 kept in their course's order.

                Not what you wanted? Changeset cs-20250107-030000-abc123 takes this night back.
                """,
            zh: """
                1月7日週二的計畫：5 項調整

                補上的課
                - Linear algebra [1/5]：1月5日週日 未完成，改到 1月8日週三 10:00–11:00

                隨課程順延
                - Linear algebra 2–5：延後 3 天

                總計：移動 5 堂，全部 5 堂都維持課程順序。

                不是你想要的？變更集 cs-20250107-030000-abc123 可以撤回這一晚的調整。
                """),
        Snapshot(
            name: "§9.7 the cascade", plan: WorkedExamples.example7(), now: "2025-01-08T03:00",
            en: """
                Your plan for Wed 8 Jan: 4 changes

                Made up
                - Reading, missed Mon 6 Jan: now Wed 8 Jan 18:00–19:00

                Moved along with their course
                - Reading, 3 sessions: 1 to 2 days later

                In all: 4 sessions moved, all 4 kept in their course's order.

                Not what you wanted? Changeset cs-20250107-030000-abc123 takes this night back.
                """,
            zh: """
                1月8日週三的計畫：4 項調整

                補上的課
                - Reading：1月6日週一 未完成，改到 1月8日週三 18:00–19:00

                隨課程順延
                - Reading，共 3 堂：延後 1 至 2 天

                總計：移動 4 堂，全部 4 堂都維持課程順序。

                不是你想要的？變更集 cs-20250107-030000-abc123 可以撤回這一晚的調整。
                """),
        Snapshot(
            name: "§9.8 a habit skips its missed day", plan: WorkedExamples.example8(), now: "2025-01-07T03:00",
            en: """
                Your plan for Tue 7 Jan: 1 change

                Habit days let go
                - Stretch: Mon 6 Jan

                In all: 1 habit day let go.

                Not what you wanted? Changeset cs-20250107-030000-abc123 takes this night back.
                """,
            zh: """
                1月7日週二的計畫：1 項調整

                略過的習慣日
                - Stretch：1月6日週一

                總計：略過 1 天習慣。

                不是你想要的？變更集 cs-20250107-030000-abc123 可以撤回這一晚的調整。
                """),
        Snapshot(
            name: "§9.9 a weekly lesson is made up before the next one", plan: WorkedExamples.example9(),
            now: "2025-01-08T03:00",
            en: """
                Your plan for Wed 8 Jan: 1 change

                Made up
                - Piano lesson, missed Tue 7 Jan: now Wed 8 Jan 18:00–19:00

                In all: 1 session moved.

                Not what you wanted? Changeset cs-20250107-030000-abc123 takes this night back.
                """,
            zh: """
                1月8日週三的計畫：1 項調整

                補上的課
                - Piano lesson：1月7日週二 未完成，改到 1月8日週三 18:00–19:00

                總計：移動 1 堂。

                不是你想要的？變更集 cs-20250107-030000-abc123 可以撤回這一晚的調整。
                """),
        Snapshot(
            name: "§11.9 example 10: push, never pull", plan: WorkedExamples.essay(), now: "2025-01-07T03:00",
            en: """
                Your plan for Tue 7 Jan: 1 change

                Made up
                - Essay [1/3], missed Mon 6 Jan: now Tue 7 Jan 16:00–17:00

                In all: 1 session moved, kept in its course's order.

                Not what you wanted? Changeset cs-20250107-030000-abc123 takes this night back.
                """,
            zh: """
                1月7日週二的計畫：1 項調整

                補上的課
                - Essay [1/3]：1月6日週一 未完成，改到 1月7日週二 16:00–17:00

                總計：移動 1 堂，維持課程順序。

                不是你想要的？變更集 cs-20250107-030000-abc123 可以撤回這一晚的調整。
                """),
        Snapshot(
            name: "§11.9 example 11: the nearest free time of the day", plan: WorkedExamples.example11(),
            now: "2025-01-07T03:00",
            en: """
                Your plan for Tue 7 Jan: 3 changes

                Made up
                - Lab [1/3], missed Mon 6 Jan: now Tue 7 Jan 13:30–14:30

                Moved along with their course
                - Lab 2–3: one day later

                In all: 3 sessions moved, all 3 kept in their course's order.

                Not what you wanted? Changeset cs-20250107-030000-abc123 takes this night back.
                """,
            zh: """
                1月7日週二的計畫：3 項調整

                補上的課
                - Lab [1/3]：1月6日週一 未完成，改到 1月7日週二 13:30–14:30

                隨課程順延
                - Lab 2–3：延後一天

                總計：移動 3 堂，全部 3 堂都維持課程順序。

                不是你想要的？變更集 cs-20250107-030000-abc123 可以撤回這一晚的調整。
                """),
        Snapshot(
            name: "§11.9 example 12: a habit does not block an extra session", plan: WorkedExamples.example12(),
            now: "2025-01-07T03:00",
            en: """
                Your plan for Tue 7 Jan: 1 change

                Made up
                - Geography quiz, missed Mon 6 Jan: now Tue 7 Jan 15:00–15:30

                In all: 1 session moved.

                Not what you wanted? Changeset cs-20250107-030000-abc123 takes this night back.
                """,
            zh: """
                1月7日週二的計畫：1 項調整

                補上的課
                - Geography quiz：1月6日週一 未完成，改到 1月7日週二 15:00–15:30

                總計：移動 1 堂。

                不是你想要的？變更集 cs-20250107-030000-abc123 可以撤回這一晚的調整。
                """),
    ]

    @Test(arguments: snapshots)
    func theNoteOfAWorkedExample(_ s: Snapshot) throws {
        for (language, expected) in [("en", s.en), ("zh-TW", s.zh)] {
            let note = try #require(Fx.note(s.plan, at: s.now, language: language).1)
            #expect(note.title + "\n\n" + note.body == expected, "\(language)")
            #expect(note.language == language && !note.fellBack)
        }
    }

    /// A missed two-hour session the only window (Mon 09:00–10:00) cannot hold, and a model that
    /// ended with `needs-student`: its summary and question close the note.
    static func unplaceable() -> UserPlan {
        Fx.plan(
            [Fx.task("phy", "Physics reading", "2025-01-06T14:00", "2025-01-06T16:00", category: "Physics")],
            settings: Fx.settings(windows: Fx.windows([.mon: ["09:00-10:00"]])))
    }

    @Test func aNightTheModelEndedWithAQuestion() throws {
        let summary = "I left your week as it was; Physics reading needs a longer free time than your windows have."
        let question = "Shall I put Physics reading on Saturday morning, 09:00–11:00?"
        let (result, en) = Fx.note(
            Self.unplaceable(), at: "2025-01-07T03:00", language: "en", changeset: nil, modelSummary: summary,
            modelQuestion: question)
        #expect(result.edits.isEmpty)
        #expect(result.flags.map(\.kind) == [.couldNotFit])
        #expect(
            try #require(en).title + "\n\n" + en!.body == """
                Your plan for Tue 7 Jan: something for you to decide

                For you to decide
                - No time found for Physics reading, missed Mon 6 Jan: please pick a time, or let it go.

                From your assistant
                - I left your week as it was; Physics reading needs a longer free time than your windows have.
                - A question for you: Shall I put Physics reading on Saturday morning, 09:00–11:00?
                """)
        let zh = try #require(
            Fx.note(
                Self.unplaceable(), at: "2025-01-07T03:00", language: "zh-TW", changeset: nil,
                modelSummary: "這週維持原樣；物理閱讀需要比你的時段更長的空檔。", modelQuestion: "要把物理閱讀排在週六上午 09:00–11:00 嗎？"
            ).1)
        #expect(
            zh.title + "\n\n" + zh.body == """
                1月7日週二的計畫：有事需要你決定

                需要你決定
                - 找不到時間安排 Physics reading（1月6日週一 未完成）：請挑一個時間，或決定不做了。

                助理的話
                - 這週維持原樣；物理閱讀需要比你的時段更長的空檔。
                - 想問你：要把物理閱讀排在週六上午 09:00–11:00 嗎？
                """)
    }

    /// docs/planning.md §11.9 example 13: the plan stays put the next night, so the student hears
    /// nothing.
    @Test("§11.9 example 13: the plan stays put, no note")
    func example13HasNoNote() {
        for language in ["en", "zh-TW"] {
            let (result, note) = Fx.note(WorkedExamples.example13(), at: "2025-01-08T03:00", language: language)
            #expect(result.edits.isEmpty && result.flags.isEmpty)
            #expect(note == nil)
        }
    }

    @Test func aQuietNightHasNoNote() {
        let plan = WorkedExamples.example1()
        let (result, note) = Fx.note(plan, at: "2024-12-31T03:00", language: "en")
        #expect(result.edits.isEmpty && result.flags.isEmpty)
        #expect(note == nil)
        // A summary without a question, on a night that changed nothing, is no reason to write.
        let night = MorningNote.Night(
            edits: [], flags: [], summary: PlanSummary(), planDate: date("2024-12-31"), deleteAfterDays: 7,
            modelSummary: "All good.")
        #expect(MorningNote.render(night, language: "en") == nil)
    }

    @Test func aLanguageWithoutTextsGetsTheEnglishNoteAndSaysSo() throws {
        let note = try #require(Fx.note(WorkedExamples.example8(), at: "2025-01-07T03:00", language: "fr").1)
        #expect(note.fellBack && note.language == "en")
        #expect(note.body.hasPrefix("Habit days let go\n- Stretch: Mon 6 Jan"))
    }

    @Test func anEditAndAFlagInWordsForShowAndTheFeed() {
        let t = NoteTexts(language: "en")
        let e = PlanEdit(
            op: .move, id: id("e1"), title: "Essay [1/3]", before: range("2025-01-12T16:00", "2025-01-12T17:00"),
            after: range("2025-01-13T16:00", "2025-01-13T17:00"), reason: .makeUp)
        #expect(
            MorningNote.line(e, texts: t)
                == "moved Essay [1/3]: Sun 12 Jan 16:00–17:00 → Mon 13 Jan 16:00–17:00 (made up)")
        #expect(MorningNote.feedLine(e, texts: t) == "moved from Sun 12 Jan: missed")
        #expect(MorningNote.feedLine(e, texts: NoteTexts(language: "zh-TW")) == "從 1月12日週日 移來：未完成")
        let kept = PlanFlag(id: id("lab"), kind: .needsDecision, count: 3, title: "Lab notes")
        #expect(
            MorningNote.line(kept, start: nil, deleteAfterDays: 7, texts: t)
                == "Lab notes: 3 sessions more than 7 days old are kept because of their category: do them, move them or delete them."
        )
    }

    @Test func nineChainMovesAreOneLine() throws {
        let plan = Fx.plan(
            (1...10).map { part in
                let day = date("2025-01-06").adding(days: part - 1)
                return Fx.task("d\(part)", "Essay draft \(part)", "\(day)T16:00", "\(day)T17:00")
            }, settings: Fx.settings(enabled: false))
        let note = try #require(Fx.note(plan, at: "2025-01-07T03:00", language: "en").1)
        let course = try #require(note.sections.first { $0.group == .course })
        #expect(course.lines == ["Essay draft 2–10: one day later"])
        #expect(course.edits.count == 9)
    }

    /// Over the adversarial population: the note of every night mentions each edit and flag
    /// once (in a section, grouped or one by one), names no occurrence the night did not touch
    /// (by its place in a section, and no untouched session's title appears in the text),
    /// shows every edit's and flag's title, and gives the summary's numbers.
    @Test func everyEditAndFlagIsMentionedAndNothingElse() {
        var failures: [String] = []
        var notes = 0
        var untouchedChecked = 0
        for seed in UInt64(0)..<240 {
            var generator = StudentGenerator(seed: seed)
            let (_, plan, now) = generator.makeStudent()
            let result = Postponer(now: now).postpone(plan)
            for language in ["en", "zh-TW"] {
                let night = Fx.night(plan, result)
                guard let note = MorningNote.render(night, language: language) else {
                    if !(result.edits.isEmpty && result.flags.isEmpty) { failures.append("seed \(seed): no note") }
                    continue
                }
                notes += 1
                let mentioned = note.sections.flatMap(\.edits)
                let flagged = note.sections.flatMap(\.flags)
                if mentioned.sorted() != result.edits.map(\.id).sorted() {
                    failures.append(
                        "seed \(seed) \(language): edits mentioned \(mentioned.count) of \(result.edits.count)")
                }
                if flagged.sorted() != result.flags.map(\.id).sorted() {
                    failures.append(
                        "seed \(seed) \(language): flags mentioned \(flagged.count) of \(result.flags.count)")
                }
                for title in Set(result.edits.map(\.title) + result.flags.map(\.title))
                where !note.body.contains(title) && !note.body.contains(MorningNoteTests.stemOf(title)) {
                    failures.append("seed \(seed) \(language): '\(title)' not in the note")
                }
                // Nothing the night did not touch: no other session's title is in the note (a
                // title inside a touched one's, or too short to tell, cannot be told apart).
                let touched = Set(result.edits.map(\.title) + result.flags.map(\.title))
                for title in Set(plan.tasks.values.map(\.title)) where title.count >= 6 && !touched.contains(title) {
                    if touched.contains(where: { $0.contains(title) }) { continue }
                    untouchedChecked += 1
                    if note.body.contains(title) || note.title.contains(title) {
                        failures.append("seed \(seed) \(language): '\(title)' is in the note but was not touched")
                    }
                }
                if note.summary != PlanSummary(edits: result.edits) {
                    failures.append("seed \(seed): the note's numbers are not the summary's")
                }
                let t = NoteTexts(language: language)
                for part in MorningNote.totals(note.summary, texts: t) where !note.body.contains(part) {
                    failures.append("seed \(seed) \(language): '\(part)' missing")
                }
                for group in MorningNote.Group.allCases {
                    let expected: Int
                    switch group {
                    case .letGo: expected = result.edits.filter { $0.reason == .missed }.count
                    case .removed: expected = result.edits.filter { $0.reason == .droppedStale }.count
                    case .appended: expected = result.edits.filter { $0.reason == .seriesShift }.count
                    case .course: expected = result.edits.filter { $0.reason == .chainShift }.count
                    case .decide: expected = result.flags.count
                    default: continue
                    }
                    let found = note.sections.filter { $0.group == group }.reduce(0) {
                        $0 + $1.edits.count + $1.flags.count
                    }
                    if found != expected {
                        failures.append("seed \(seed) \(language): \(group) \(found) ≠ \(expected)")
                    }
                }
            }
        }
        #expect(failures.isEmpty, "\(failures.prefix(10).joined(separator: "\n"))")
        #expect(notes > 100)
        #expect(untouchedChecked > 100, "\(untouchedChecked) untouched titles checked")
    }

    /// A course's title as its grouped line names it ("Essay draft" of "Essay draft [2/3]").
    static func stemOf(_ title: String) -> String {
        var t = Substring(title)
        while let last = t.last, last.isNumber || "[]()/#:- 第章課".contains(last) { t = t.dropLast() }
        return String(t.isEmpty ? Substring(title) : t)
    }
}
