import JSON
import Planning
import Testing

@testable import Store

@Suite struct SubtasksColumnTests {
    /// What the general JSON parser makes of the column (nil: it is not a list of subtasks).
    static func general(_ text: String) -> [Subtask]? {
        guard let items = (try? JSONValue(parsing: text))?.arrayValue else { return nil }
        var subtasks: [Subtask] = []
        for item in items {
            guard let title = item["title"]?.stringValue, let done = item["done"]?.boolValue else { return nil }
            subtasks.append(Subtask(title: title, done: done))
        }
        return subtasks
    }

    @Test func readsWhatReplanWritesLikeTheGeneralParser() throws {
        let lists: [[Subtask]] = [
            [Subtask(title: "outline")],
            [Subtask(title: "vocabulary", done: true), Subtask(title: "summary"), Subtask(title: "", done: true)],
            [Subtask(title: "數學 練習 ✓"), Subtask(title: "say \"hi\"\\ then\nnewline\ttab", done: true)],
        ]
        for list in lists {
            let text = JSONValue.array(list.map { ["title": .string($0.title), "done": .bool($0.done)] }).text
            #expect(SubtasksColumn.canonical(text) ?? SubtasksColumnTests.general(text) == list, "\(text)")
        }
        #expect(
            SubtasksColumn.canonical(#"[{"done":true,"title":"outline"},{"done":false,"title":"數學"}]"#)
                == [Subtask(title: "outline", done: true), Subtask(title: "數學")])
    }

    /// Anything but the exact shape is left to the general parser (which accepts or rejects it).
    @Test(arguments: [
        #"[ {"done":true,"title":"a"}]"#, #"[{"title":"a","done":true}]"#, #"[{"done":1,"title":"a"}]"#,
        #"[{"done":true,"title":"a\"b"}]"#, #"[{"done":true,"title":"a","note":"x"}]"#,
        #"[{"done":true,"title":"a"},]"#,
        #"[{"done":true,"title":"a"}"#, #"[{"done":true,"title":"a"}] "#, "[{\"done\":true,\"title\":\"a\tb\"}]",
        #"[{"done":true,"done":false,"title":"a"}]"#, "", "[]", "{}", #"[{"done":truex,"title":"a"}]"#,
    ])
    func otherShapesAreLeftToTheGeneralParser(text: String) {
        #expect(SubtasksColumn.canonical(text) == nil)
    }
}
