import Foundation
import JSON
import ReplanTestSupport
import Testing

/// The morning note of a night the model took part in (docs/planning.md §12), through the
/// built binary and the mock model server: its edits under the assistant's name, its summary,
/// and the question it ended with (`end_conversation`, status `needs-student`).
@Suite struct MorningNoteEndToEndTests {
    typealias Call = MockScript.Call

    @Test func aNightTheModelEndedNeedingTheStudentTellsThemTheQuestion() throws {
        let instruction = "add one English session this week"
        let save = MockScript.toolCalls(
            [
                Call(
                    "call_1", "saveTask",
                    [
                        "tasks": [
                            [
                                "title": "English", "category": "English", "color": "green",
                                "start": "2025-01-08T11:00", "end": "2025-01-08T12:00", "allDay": false,
                            ]
                        ]
                    ])
            ], content: "One English session on Wednesday.")
        let end = MockScript.toolCalls([
            Call(
                "call_end", "end_conversation",
                [
                    "summary": "我在週三加了一堂英文。", "status": "needs-student",
                    "question": "週五下午也要加一堂嗎？",
                ])
        ])
        var student = Documents.user(
            "mei", instruction: instruction,
            tasks: [Documents.task("mei-phy", "Physics", "2025-01-03T10:00", "2025-01-03T11:00")])
        student["language"] = "zh-TW"
        let scene = try ReplanHarness(
            rules: [MockScript.rule(instruction, [save, end])], document: Documents.document([student]))
        let run = try scene.run()
        #expect(run.code == 0, "\(run.stderr)")
        let night = try #require(try run.json()["users"]?.arrayValue?.first)
        #expect(night["model"]?["endStatus"] == "needs-student")
        let note = try scene.replan(["note", "--user", "mei"])
        #expect(note.code == 0, "\(note.stderr)")
        let changeset = try #require(night["changesetId"]?.stringValue)
        #expect(
            note.stdout == """
                1月6日週一的計畫：2 項調整

                補上的課
                - Physics：1月3日週五 未完成，改到 1月6日週一 10:00–11:00

                助理的調整
                - 新增：English，1月8日週三 11:00–12:00（One English session on Wednesday.）

                助理的話
                - 我在週三加了一堂英文。
                - 想問你：週五下午也要加一堂嗎？

                總計：移動 1 堂，助理調整 1 項。

                不是你想要的？變更集 \(changeset) 可以撤回這一晚的調整。

                """)
        let previewed = try scene.replan(["note", "--user", "mei", "--json"]).json()
        #expect(previewed["note"]?["body"]?.stringValue.map { note.stdout.contains($0) } == true)
    }
}
