import Foundation
import ReplanTestSupport
import Testing

/// `replan note` and the words of `show` (docs/planning.md §12): the note as the student gets
/// it, in their language, and `show --json` keeping the codes beside the words.
@Suite struct NoteTests {
    /// mei (zh-TW) missed Monday's "Math [1/3]"; [2/3] and [3/3] are on Tue and Wed at the same
    /// time, so the night moves the course along by one day.
    static func afterOneNight(language: String = "zh-TW") async throws -> (Sandbox, String) {
        let s = try Sandbox()
        try await s.ok(["user", "add", "mei", "--time-zone", "Asia/Taipei", "--language", language])
        try await s.addTask("m1", "Math [1/3]", "2025-01-06T10:00", "2025-01-06T11:00", category: "Math")
        try await s.addTask("m2", "Math [2/3]", "2025-01-07T10:00", "2025-01-07T11:00", category: "Math")
        try await s.addTask("m3", "Math [3/3]", "2025-01-08T10:00", "2025-01-08T11:00", category: "Math")
        let run = try await s.json(["run", "--no-model", "--json"])
        let cs = try #require((run["users"] as? [[String: Any]])?.first?["changesetId"] as? String)
        return (s, cs)
    }

    @Test func theNoteIsTheStudentsInTheirLanguage() async throws {
        let (s, cs) = try await Self.afterOneNight()
        let note = try await s.ok(["note", "--user", "mei"])
        #expect(
            note == """
                1月7日週二的計畫：3 項調整

                補上的課
                - Math [1/3]：1月6日週一 未完成，改到 1月7日週二 10:00–11:00

                隨課程順延
                - Math 2–3：延後一天

                總計：移動 3 堂，全部 3 堂都維持課程順序。

                不是你想要的？變更集 \(cs) 可以撤回這一晚的調整。

                """)
        #expect(try await s.ok(["note", "--user", "mei", cs]) == note)
        let json = try await s.json(["note", "--user", "mei", "--json"])
        #expect(json["schema"] as? String == "replan.note/1")
        let body = try #require((json["note"] as? [String: Any])?["body"] as? String)
        #expect(note.contains(body))
    }

    @Test func showSaysEveryEditInWordsAndJSONKeepsTheCodes() async throws {
        let (s, cs) = try await Self.afterOneNight(language: "en")
        let text = try await s.ok(["show", cs])
        #expect(
            text.contains(
                "moved Math [2/3]: Tue 7 Jan 10:00–11:00 → Wed 8 Jan 10:00–11:00 (moved along with its course)"),
            "\(text)")
        #expect(text.contains("In all: 3 sessions moved, all 3 kept in their course's order."), "\(text)")
        #expect(!text.contains("chain-shift") && !text.contains("make-up"), "\(text)")
        let json = try await s.json(["show", cs, "--json"])
        let edits = try #require(json["edits"] as? [[String: Any]])
        #expect(edits.map { $0["reason"] as? String } == ["make-up", "chain-shift", "chain-shift"])
        #expect((edits[0]["text"] as? String)?.hasSuffix("(made up)") == true)
        #expect(((json["note"] as? [String: Any])?["title"] as? String) == "Your plan for Tue 7 Jan: 3 changes")
        let week = try await s.ok(["week", "--user", "mei", "--date", "2025-01-07"])
        #expect(week.contains("(moved along with its course)"), "\(week)")
        let log = try await s.ok(["log", "--detail", "--no-pager"])
        #expect(log.contains("3 sessions moved, all 3 kept in their course's order"), "\(log)")
    }

    @Test func aStudentWithoutTextsGetsEnglishAndTheOperatorIsTold() async throws {
        let (s, _) = try await Self.afterOneNight(language: "fr")
        let outcome = try await s.run(["note", "--user", "mei"])
        #expect(outcome.code == 0)
        #expect(outcome.stdout.hasPrefix("Your plan for Tue 7 Jan: 3 changes"), "\(outcome)")
        #expect(outcome.stderr.contains("'fr' has no texts; the note is in English"), "\(outcome)")
    }

    @Test func theRunSaysOnceWhenALanguageHasNoTexts() async throws {
        let s = try Sandbox()
        for id in ["ana", "luc"] {
            try await s.ok(["user", "add", id, "--time-zone", "Asia/Taipei", "--language", "fr"])
            try await s.ok(["settings", "set", "--user", id, "--notifications", "on"])
            try await s.addTask("\(id)-m", "Maths", "2025-01-06T10:00", "2025-01-06T11:00", category: "Maths", user: id)
        }
        let run = try await s.run(["run", "--no-model"])
        #expect(run.code == 0, "\(run)")
        let warnings = run.stderr.split(separator: "\n").filter { $0.contains("morning notes in 'fr' have no texts") }
        #expect(warnings.count == 1, "\(run.stderr)")
    }

    @Test func anotherStudentsChangesetIsRefused() async throws {
        let (s, cs) = try await Self.afterOneNight()
        try await s.ok(["user", "add", "bob", "--time-zone", "UTC"])
        let outcome = try await s.run(["note", "--user", "bob", cs])
        #expect(outcome.code == 65, "\(outcome)")
        let none = try await s.run(["note", "--user", "bob"])
        #expect(none.code == 65 && none.stderr.contains("no nightly changeset"), "\(none)")
    }

    /// docs/planning.md §12: a night that placed nothing but needs the student has a note, with
    /// no changeset to name and no undo to offer.
    @Test func aNightThatOnlyNeedsTheStudentHasANoteWithoutAChangeset() async throws {
        let s = try Sandbox()
        try await s.ok(["user", "add", "mei", "--time-zone", "Asia/Taipei"])
        // Longer than any study window (Mon–Fri 09:00–17:00): nothing can hold it.
        try await s.addTask("long", "Thesis day", "2025-01-06T08:00", "2025-01-06T17:30", category: "Thesis")
        let run = try await s.json(["run", "--no-model", "--json"])
        let night = try #require((run["users"] as? [[String: Any]])?.first)
        #expect(night["status"] as? String == "unchanged", "\(night)")
        #expect(night["changesetId"] == nil || night["changesetId"] is NSNull, "\(night)")
        let note = try await s.ok(["note", "--user", "mei"])
        #expect(
            note == """
                Your plan for Tue 7 Jan: something for you to decide

                For you to decide
                - No time found for Thesis day, missed Mon 6 Jan: please pick a time, or let it go.

                """)
        let json = try await s.json(["note", "--user", "mei", "--json"])
        #expect(json["changesetId"] is NSNull, "\(json)")
    }
}
