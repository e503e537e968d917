import Foundation
import JSON
import Planning
import ReplanTestSupport
import Testing

/// The model stage end to end: the built `replan` binary against temporary databases and the
/// scripted mock model server (`OPENAI_BASE_URL`), with the key in a key file.
@Suite struct ModelStageEndToEndTests {
    typealias Call = MockScript.Call

    static func session(_ start: String, _ end: String, title: String = "English") -> [String: Any] {
        ["title": title, "note": "", "category": title, "color": "green", "start": start, "end": end, "allDay": false]
    }

    /// The changeset of `user` in a `run --json` output.
    static func changeset(of user: String, in run: JSONValue) -> String? {
        run["users"]?.arrayValue?.first { $0["user"]?.stringValue == user }?["changesetId"]?.stringValue
    }

    static func night(of user: String, in run: JSONValue) -> JSONValue? {
        run["users"]?.arrayValue?.first { $0["user"]?.stringValue == user }
    }

    // MARK: - The happy path

    @Test func theModelAddsTheSessionsTheStudentAskedFor() throws {
        let instruction = "add a 60-minute English session every weekday this week"
        let weekdays = (6...10).map { day in
            Self.session(
                "2025-01-\(String(format: "%02d", day))T11:00",
                "2025-01-\(String(format: "%02d", day))T12:00")
        }
        let save = MockScript.toolCalls(
            [Call("call_1", "saveTask", ["tasks": weekdays])], content: "Adding five English sessions.")
        let end = MockScript.end("I added a 60-minute English session every weekday this week.")
        let scene = try ReplanHarness(
            rules: [MockScript.rule(instruction, [save, end, save, end])], // preview, then run
            document: Documents.document([
                Documents.user(
                    "mei", instruction: instruction,
                    tasks: [
                        Documents.task("mei-phy", "Physics", "2025-01-06T10:00", "2025-01-06T11:00"),
                        Documents.task("mei-chem", "Chemistry", "2025-01-07T14:00", "2025-01-07T15:00"),
                        Documents.task(
                            "mei-read", "Reading", "2025-01-03T10:00", "2025-01-03T11:00", category: "English",
                            completed: true),
                    ])
            ]))

        // preview asks the model too, and writes nothing.
        let preview = try scene.replan([
            "preview", "--user", "mei", "--json", "--api-key-file", scene.keyFile, "--request-timeout", "1",
        ])
        #expect(preview.code == 0, "\(preview.stderr)")
        let previewed = try preview.json()
        #expect(previewed["model"]?["called"] == true)
        #expect(previewed["model"]?["turns"] == 2)
        #expect(previewed["edits"]?.arrayValue?.count == 5)
        #expect(try scene.occurrences("mei").filter { $0["title"] == "English" }.isEmpty)
        #expect(try scene.replan(["log", "--json"]).json()["runs"] == [])

        let run = try scene.run()
        #expect(run.code == 0, "\(run.stderr)")
        let night = try #require(Self.night(of: "mei", in: try run.json()))
        #expect(night["status"] == "changed")
        #expect(night["model"]?["turns"] == 2)
        #expect(night["model"]?["ending"] == "end_conversation")
        #expect(night["model"]?["tokens"]?["total"] == 240)
        #expect(night["model"]?["summary"] == "I added a 60-minute English session every weekday this week.")
        let changeset = try #require(Self.changeset(of: "mei", in: try run.json()))

        // The changeset: five creations by the model, inside the windows, overlapping nothing.
        let shown = try scene.replan(["show", changeset, "--json"]).json()
        let edits = shown["edits"]?.arrayValue ?? []
        #expect(edits.count == 5)
        #expect(edits.allSatisfy { $0["op"] == "create" && $0["reason"] == "model" && $0["title"] == "English" })
        #expect(edits.allSatisfy { $0["detail"] == "Adding five English sessions." })
        #expect(
            edits.allSatisfy {
                Clock.insideWindows($0["after"]?["start"]?.stringValue, $0["after"]?["end"]?.stringValue)
            })
        #expect(Set(edits.compactMap { $0["after"]?["start"]?.stringValue?.prefix(10) }).count == 5)

        let timed = try scene.occurrences("mei").filter { $0["allDay"] == false && $0["state"] != "skipped" }
        #expect(timed.filter { $0["title"] == "English" }.count == 5)
        for (i, a) in timed.enumerated() {
            for b in timed.dropFirst(i + 1) {
                let (s1, e1) = (Clock.minutes(a["start"]?.stringValue)!, Clock.minutes(a["end"]?.stringValue)!)
                let (s2, e2) = (Clock.minutes(b["start"]?.stringValue)!, Clock.minutes(b["end"]?.stringValue)!)
                #expect(e1 <= s2 || e2 <= s1, "\(a["id"]!.text) overlaps \(b["id"]!.text)")
            }
        }

        // The log and the transcript say what happened.
        let logged = try #require(try scene.lastRunUsers()["mei"])
        #expect(logged["status"] == "changed")
        #expect(logged["turns"] == 2)
        #expect(logged["modelCalls"] == 2)
        #expect(logged["tokens"]?["total"] == 240)
        #expect(logged["error"] == .null)
        let transcript = try scene.replan(["show", changeset, "--transcript"])
        #expect(transcript.stdout.contains("My standing instruction: \(instruction)"))
        #expect(transcript.stdout.contains("→ saveTask (call_1)"))
        #expect(transcript.stdout.contains(#""ok":true"#))
        #expect(transcript.stdout.contains("ended by end_conversation after 2 turn(s), 2 request(s)"))
        let transcriptJSON =
            try scene.replan(["show", changeset, "--transcript", "--json"]).json()["transcript"]?.arrayValue ?? []
        #expect(
            transcriptJSON.map { $0["kind"]?.stringValue } == [
                "request", "response", "tool", "request", "response", "tool", "end",
            ])

        // Undo removes them again.
        let undo = try scene.replan(["undo", changeset, "--yes"])
        #expect(undo.code == 0, "\(undo.stderr)")
        let after = try scene.occurrences("mei")
        #expect(after.filter { $0["title"] == "English" }.isEmpty)
        #expect(after.contains { $0["id"] == "mei-phy" && $0["start"] == "2025-01-06T10:00" })

        #expect(try scene.requests(containing: instruction).count == 4)
        try scene.expectKeyNowhere()
    }

    @Test func anUndoIsARejectionTheNextNightDoesNotRecreateWhatTheStudentTookBack() throws {
        let instruction = "add English on Tuesday"
        let english = MockScript.toolCalls(
            [Call("call_1", "saveTask", ["tasks": [Self.session("2025-01-07T11:00", "2025-01-07T12:00")]])],
            content: "Adding English.")
        let scene = try ReplanHarness(
            rules: [
                // The first night, then the night after the undo: the same sensible answer.
                MockScript.rule(
                    instruction, [english, MockScript.end("Added English."), english, MockScript.end("Done.")])
            ],
            document: Documents.document([
                Documents.user(
                    "mei", instruction: instruction,
                    tasks: [Documents.task("mei-phy", "Physics", "2025-01-07T14:00", "2025-01-07T15:00")])
            ]))
        let first = try scene.run()
        #expect(first.code == 0, "\(first.stderr)")
        let changeset = try #require(Self.changeset(of: "mei", in: try first.json()))
        #expect(try scene.occurrences("mei").filter { $0["title"] == "English" }.count == 1)
        let undo = try scene.replan(["undo", changeset, "--yes"])
        #expect(undo.code == 0, "\(undo.stderr)")
        #expect(try scene.occurrences("mei").filter { $0["title"] == "English" }.isEmpty)

        // The next run: the student changed their plan (the undo), so the model is asked, told
        // what was taken back, and its attempt to create the same session again is refused.
        let second = try scene.run(["--force"])
        #expect(second.code == 0, "\(second.stderr)")
        #expect(Self.night(of: "mei", in: try second.json())?["model"]?["called"] == true)
        #expect(try scene.occurrences("mei").filter { $0["title"] == "English" }.isEmpty)
        let asked = try scene.requests(containing: "took back")
        #expect(asked.count == 2, "the second night's two requests say what the student took back")
        let told = try #require(asked.first?.raw)
        #expect(told.contains("I undid your earlier changes and took back 'English' you created on Tue 01-07 11:00"))
        #expect(told.contains("Do not make them again"))
        // The plan-changed request names the change, and that it was an undo (docs/model.md §15).
        #expect(
            told.contains(
                "I changed my plan since your last review:\\n- I removed your 'English' Tue 01-07 11:00-12:00 (id m-"))
        #expect(told.contains(") (I undid your change)\\nI undid your earlier changes"))
        let refused = try #require(asked.last?.raw)
        #expect(
            refused.contains("the student took back 'English' on 2025-01-07 (they undid it); do not create it again"))
    }

    // MARK: - Faults stay with the user who made them

    @Test func invalidToolCallsReachNeitherTheDatabaseNorTheOtherStudents() throws {
        let annAsks = "ann: one English session on Tuesday"
        let bobAsks = "bob: rearrange my week"
        let annSaves = MockScript.toolCalls([
            Call("call_a1", "saveTask", ["tasks": [Self.session("2025-01-07T11:00", "2025-01-07T12:00")]])
        ])
        let bobTries = MockScript.toolCalls([
            Call(
                "call_b1", "saveTask",
                [
                    "tasks": [
                        Self.session("2025-01-06T10:30", "2025-01-06T11:30"), // overlaps bob-phy
                        Self.session("2025-01-06T18:00", "2025-01-06T19:00"), // outside the windows
                        Self.session("2025-01-11T10:00", "2025-01-11T11:00"), // Saturday: no window
                        Self.session("2025-01-08T11:00", "2025-01-08T12:00"), // fine
                    ]
                ]),
            Call("call_b2", "deleteTask", ["taskIds": ["bob-essay", "bob-old", "ann-phy"]]),
            Call(
                "call_b3", "updateTask",
                [
                    "tasks": [
                        ["taskId": "ann-phy", "start": "2025-01-08T09:00", "end": "2025-01-08T10:00"],
                        ["taskId": "bob-essay", "title": "Essay v2"],
                        ["taskId": "bob-phy", "start": "2025-01-06T08:00", "end": "2025-01-06T09:00"],
                    ]
                ]),
        ])
        let scene = try ReplanHarness(
            rules: [
                MockScript.rule(annAsks, [annSaves, MockScript.end("Added.")]),
                MockScript.rule(bobAsks, [bobTries, MockScript.end("Some changes were refused.")]),
            ],
            document: Documents.document([
                Documents.user(
                    "ann", instruction: annAsks,
                    tasks: [Documents.task("ann-phy", "Physics", "2025-01-07T14:00", "2025-01-07T15:00")]),
                Documents.user(
                    "bob", instruction: bobAsks,
                    tasks: [
                        Documents.task("bob-phy", "Physics", "2025-01-06T10:00", "2025-01-06T11:00"),
                        Documents.task(
                            "bob-essay", "Essay", "2025-01-07T09:00", "2025-01-07T10:00", category: "English",
                            completed: true),
                        Documents.task(
                            "bob-old", "Reading", "2025-01-03T10:00", "2025-01-03T11:00", category: "English",
                            completed: true),
                    ]),
                Documents.user(
                    "cat", tasks: [Documents.task("cat-1", "Biology", "2025-01-06T13:00", "2025-01-06T14:00")]),
            ]))

        // concurrency 8
        let run = try scene.replan(["run", "--json", "--api-key-file", scene.keyFile, "--request-timeout", "1"])
        #expect(run.code == 0, "\(run.stderr)")
        let result = try run.json()
        #expect(Self.night(of: "ann", in: result)?["status"] == "changed")
        #expect(Self.night(of: "bob", in: result)?["status"] == "changed")
        #expect(Self.night(of: "cat", in: result)?["status"] == "unchanged")
        #expect(Self.night(of: "cat", in: result)?["model"]?["called"] == false)
        #expect(try scene.requests(containing: "cat-1").isEmpty)

        // Bob's model heard exactly what was wrong.
        let bobRequests = try scene.requests(containing: bobAsks)
        #expect(bobRequests.count == 2)
        let answered = try #require(bobRequests.last?.raw)
        for refusal in [
            "overlaps 'Physics' 10:00–11:00 on 2025-01-06", "outside the study windows of Monday (09:00–17:00)",
            "outside the study windows of Saturday (no windows that day)", "completed sessions cannot be deleted",
            "there is no session 'ann-phy' in this plan", "completed sessions cannot be changed",
        ] {
            #expect(answered.contains(refusal), "bob was not told: \(refusal)")
        }

        // Only the valid edit reached the database.
        let bobChangeset = try #require(Self.changeset(of: "bob", in: result))
        let bobEdits = try scene.replan(["show", bobChangeset, "--json"]).json()["edits"]?.arrayValue ?? []
        #expect(bobEdits.count == 1)
        #expect(bobEdits.first?["op"] == "create")
        #expect(bobEdits.first?["after"]?["start"] == "2025-01-08T11:00")
        let bob = try scene.occurrences("bob")
        #expect(bob.contains { $0["id"] == "bob-phy" && $0["start"] == "2025-01-06T10:00" })
        #expect(bob.contains { $0["id"] == "bob-essay" && $0["title"] == "Essay" && $0["state"] == "completed" })
        #expect(bob.contains { $0["id"] == "bob-old" && $0["state"] == "completed" })
        #expect(bob.filter { $0["title"] == "English" }.map { $0["start"] } == ["2025-01-08T11:00"])

        // The other students are untouched by bob's attempts.
        let ann = try scene.occurrences("ann")
        #expect(ann.contains { $0["id"] == "ann-phy" && $0["start"] == "2025-01-07T14:00" })
        #expect(ann.filter { $0["title"] == "English" }.map { $0["start"] } == ["2025-01-07T11:00"])
        #expect(try scene.occurrences("cat").map { $0["id"] } == ["cat-1"])

        // The transcript keeps the refusals for review.
        let transcript = try scene.replan(["show", bobChangeset, "--transcript"])
        #expect(transcript.stdout.contains("there is no session 'ann-phy' in this plan"))
        #expect(transcript.stdout.contains("model says: Some changes were refused."))
        let logged = try scene.lastRunUsers()
        #expect(logged["bob"]?["turns"] == 2)
        #expect(logged["cat"]?["turns"] == 0)
        try scene.expectKeyNowhere()
    }

    // MARK: - Model failures

    /// Three students, each with a missed Sunday session the local rules move and an instruction.
    static func studentsWithMissedSessions(_ ids: [String]) -> [String: Any] {
        Documents.document(
            ids.map { id in
                Documents.user(
                    id, instruction: "\(id): keep my week",
                    tasks: [
                        Documents.task("\(id)-math", "Math", "2025-01-05T10:00", "2025-01-05T11:00")
                    ])
            })
    }

    /// Issue 28, item 7: the server's error text with a newline forged a journal line.
    @Test func aServerErrorWithNewlinesStaysOnItsOwnLine() throws {
        let forged = "<0>replan: run 7: 0 due, forged"
        let scene = try ReplanHarness(
            rules: [
                MockScript.rule(
                    nil, [MockScript.error(status: 400, code: "bad_request", message: "nope\n\(forged)")], repeat: true)
            ],
            document: Self.studentsWithMissedSessions(["na"]))
        let run = try scene.run()
        #expect(!run.stderr.split(separator: "\n").contains { $0.hasPrefix("<0>") }, "\(run.stderr)")
        // The student's error as `log` and `preview` print it: on the student's own line.
        let log = try scene.replan(["log", "--run", "1"])
        let lines = log.stdout.split(separator: "\n")
        #expect(!lines.contains { $0.hasPrefix("<0>") || $0.hasPrefix("replan: run 7") }, "\(log.stdout)")
        #expect(log.stdout.contains("nope\\u{A}\(forged)"), "\(log.stdout)")
        let preview = try scene.replan(["preview", "--user", "na", "--api-key-file", scene.keyFile])
        #expect(!preview.stdout.split(separator: "\n").contains { $0.hasPrefix("<0>") }, "\(preview.stdout)")
        #expect(preview.stdout.contains("nope\\u{A}"), "\(preview.stdout)")
    }

    @Test func anExhaustedQuotaStopsModelCallsAndLocalEditsStillCommit() throws {
        let scene = try ReplanHarness(
            rules: [MockScript.rule(nil, [MockScript.quota], repeat: true)],
            document: Self.studentsWithMissedSessions(["qa", "qb", "qc"]))
        let run = try scene.run() // --on-model-error=local is the default
        #expect(run.code == 69, "the model was unavailable for every user: \(run.stderr)")
        #expect(try scene.server.requests().count == 1)
        #expect(run.stderr.contains("model calls stopped during the run: the model account has no quota left"))
        let result = try run.json()
        #expect(result["model"]?.stringValue?.contains("no quota left") == true)

        for id in ["qa", "qb", "qc"] {
            let night = try #require(Self.night(of: id, in: result))
            #expect(night["status"] == "changed", "\(id)")
            #expect(night["edits"]?.arrayValue?.allSatisfy { $0["reason"] != "model" } == true)
            #expect(night["edits"]?.arrayValue?.isEmpty == false)
            #expect(
                try scene.occurrences(id).first { $0["id"] == .string("\(id)-math") }?["start"] != "2025-01-05T10:00")
        }
        let logged = try scene.lastRunUsers()
        #expect(logged.values.allSatisfy { $0["error"]?.stringValue?.contains("no quota left") == true })
        // The first student's request met the empty account; the others were not asked.
        #expect(logged.values.filter { $0["modelCalls"] == 1 }.count == 1)
        #expect(
            logged.values.filter {
                $0["modelCalls"] == 0 && $0["error"]?.stringValue?.contains("no more model calls in this run") == true
            }.count == 2)
        try scene.expectKeyNowhere()
    }

    /// Issue 28, item 12: a provider answering nothing but 503 held every student through all
    /// of their retries. With the breaker at 1 s the first student's retries stop it, nobody
    /// else is asked, everyone's local edits commit, and the run's record says why.
    @Test func aProviderThatRefusesEverythingOpensTheBreakerForTheRestOfTheRun() throws {
        let scene = try ReplanHarness(
            rules: [
                MockScript.rule(nil, [MockScript.error(status: 503, code: nil, message: "overloaded")], repeat: true)
            ],
            document: Self.studentsWithMissedSessions(["ra", "rb", "rc"]))
        let run = try scene.run(["--refusal-breaker", "1"])
        #expect(run.code == 69, "the model was unavailable for every student: \(run.stderr)")
        #expect(
            run.stderr.contains("model calls stopped during the run: the model server refused every request"),
            "\(run.stderr)")
        let result = try run.json()
        #expect(result["model"]?.stringValue?.contains("refused every request (429 or 5xx) for 1.0 s") == true)
        for id in ["ra", "rb", "rc"] {
            let night = try #require(Self.night(of: id, in: result))
            #expect(night["status"] == "changed", "\(id)")
            #expect(night["edits"]?.arrayValue?.isEmpty == false)
        }
        // Fewer requests than the first student's five attempts, and none for the others.
        #expect(try scene.server.requests().count < 5)
        let logged = try scene.lastRunUsers()
        #expect(logged.values.filter { $0["modelCalls"] == 0 }.count == 2, "\(logged)")
        #expect(logged.values.allSatisfy { $0["error"]?.stringValue?.contains("refused every request") == true })
        let log = try scene.replan(["log", "--json"]).json()
        #expect(log["runs"]?.arrayValue?.first?["modelStopped"]?.stringValue?.contains("refused every request") == true)
        let text = try scene.replan(["log"])
        #expect(text.stdout.contains("model calls stopped: the model server refused every request"), "\(text.stdout)")
        let status = try scene.replan(["status", "--verbose"])
        #expect(status.code == 1, "a warning: \(status.stdout)")
        #expect(
            status.stdout.contains("stopped asking the model: the model server refused every request"),
            "\(status.stdout)")
        try scene.expectKeyNowhere()
    }

    @Test func runAndLogSayWhyEachStudentWasOrWasNotAsked() throws {
        let instruction = "ann: one grammar session a week"
        let scene = try ReplanHarness(
            rules: [MockScript.rule(instruction, [MockScript.end("Your week already has a grammar session.")])],
            document: Documents.document([
                Documents.user(
                    "ann", instruction: instruction,
                    tasks: [Documents.task("ann-gr", "Grammar", "2025-01-07T10:00", "2025-01-07T11:00")]),
                // A missed session the rules move: no reason to ask the model.
                Documents.user(
                    "bob", tasks: [Documents.task("bob-math", "Math", "2025-01-05T10:00", "2025-01-05T11:00")]),
            ]))
        let first = try scene.run()
        #expect(first.code == 0, "\(first.stderr)")
        let result = try first.json()
        #expect(Self.night(of: "ann", in: result)?["model"]?["reason"] == "new-instruction")
        #expect(Self.night(of: "ann", in: result)?["model"]?["called"] == true)
        #expect(Self.night(of: "ann", in: result)?["model"]?["finishReasons"] == ["tool_calls"])
        #expect(Self.night(of: "bob", in: result)?["model"]?["reason"] == "no-instruction")
        #expect(Self.night(of: "bob", in: result)?["model"]?["called"] == false)
        #expect(Self.night(of: "bob", in: result)?["status"] == "changed")
        #expect(result["modelAsked"] == 1)
        #expect(result["modelReasons"] == ["new-instruction": 1, "no-instruction": 1])
        let logged = try scene.lastRunUsers()
        #expect(logged["ann"]?["model"] == "asked: new-instruction")
        #expect(logged["ann"]?["finishReasons"] == ["tool_calls"])
        #expect((logged["ann"]?["costUSD"]?.doubleValue ?? 0) > 0)
        #expect(logged["bob"]?["model"] == "not asked: no-instruction")

        // Again the same night (forced): the instruction was handled and nothing changed.
        let again = try scene.run(["--force"])
        #expect(again.code == 0, "\(again.stderr)")
        #expect(Self.night(of: "ann", in: try again.json())?["model"]?["reason"] == "unchanged")
        #expect(try scene.requests(containing: instruction).count == 1)
        try scene.expectKeyNowhere()
    }

    @Test func aConversationCutByTheTokenCapKeepsTheEditsOfItsCompletedTurnsAndSaysItWasCut() throws {
        let instruction = "cap: plan my whole month"
        let first = MockScript.toolCalls(
            [Call("call_1", "saveTask", ["tasks": [Self.session("2025-01-07T11:00", "2025-01-07T12:00")]])],
            content: "English on Tuesday.")
        let cut = MockScript.answer(
            message: [
                "role": "assistant", "content": NSNull(),
                "tool_calls": [
                    MockScript.Call(
                        "call_2", "saveTask", ["tasks": [Self.session("2025-01-08T11:00", "2025-01-08T12:00")]]
                    ).json
                ],
            ],
            finish: "length", prompt: 100, completion: 8000)
        let scene = try ReplanHarness(
            rules: [
                // The cut answer twice: at the night's sized cap, then once more at the safety cap
                // (docs/model.md §8), where it is cut for good.
                MockScript.rule(instruction, [first, cut, cut]),
                MockScript.rule("fine: keep it", [MockScript.end("All good.")]),
            ],
            document: Documents.document([
                Documents.user(
                    "cap", instruction: instruction,
                    tasks: [Documents.task("cap-math", "Math", "2025-01-05T10:00", "2025-01-05T11:00")]),
                // Another student the model answers, so the run is not "model unavailable for all".
                Documents.user("fine", instruction: "fine: keep it", tasks: []),
            ]))
        let run = try scene.run()
        #expect(run.code == 0, "\(run.stderr)")
        let night = try #require(Self.night(of: "cap", in: try run.json()))
        #expect(night["status"] == "changed")
        #expect(night["model"]?["ending"] == "length")
        #expect(night["model"]?["finishReasons"] == ["tool_calls", "length"])
        // Turn 1's session stands; the cut answer's never ran.
        let english = try scene.occurrences("cap").filter { $0["title"] == "English" }
        #expect(english.map { $0["start"] } == ["2025-01-07T11:00"])
        // The changeset says the conversation was cut.
        let changeset = try #require(Self.changeset(of: "cap", in: try run.json()))
        let shown = try scene.replan(["show", changeset, "--json"]).json()
        #expect(
            shown["edits"]?.arrayValue?.filter { $0["reason"] == "model" }.map { $0["title"] } == ["English"])
        let said = try #require(
            shown["report"]?["model"]?["error"]?.stringValue ?? night["model"]?["error"]?.stringValue)
        #expect(said.contains("the conversation was cut"), "\(shown.text)")
        #expect(shown.text.contains("the conversation was cut"), "\(shown.text)")
        let logged = try #require(try scene.lastRunUsers()["cap"])
        #expect(logged["error"]?.stringValue?.contains("token cap") == true)
        #expect(logged["finishReasons"] == ["tool_calls", "length"])
        // The first requests of a night carry the prior cap; the cut one is sent again at the
        // configured safety cap.
        let caps = try scene.requests(containing: instruction).map {
            ($0.json as? [String: Any])?["max_completion_tokens"] as? Int
        }
        #expect(caps == [4000, 4000, 8000])
    }

    @Test func skipCommitsNothingForAStudentWhoseModelFailed() throws {
        let scene = try ReplanHarness(
            rules: [
                MockScript.rule("dan: keep my week", [["status": 200, "text": "<html>upstream gateway</html>"]]),
                MockScript.rule("eve-math", [MockScript.end("Your missed Math session has a new slot.")]),
            ],
            document: Documents.document([
                Documents.user(
                    "dan", instruction: "dan: keep my week",
                    tasks: [Documents.task("dan-math", "Math", "2025-01-05T10:00", "2025-01-05T11:00")]),
                Documents.user(
                    "eve", instruction: "eve: find my missed Math a slot",
                    tasks: [Documents.task("eve-math", "Math", "2025-01-05T10:00", "2025-01-05T11:00")]),
            ]))
        let run = try scene.run(["--on-model-error=skip"])
        #expect(run.code == 0, "\(run.stderr)")
        let result = try run.json()

        let dan = try #require(Self.night(of: "dan", in: result))
        #expect(dan["status"] == "skipped")
        #expect(dan["changesetId"] == .null)
        #expect(
            dan["error"]?.stringValue?.hasPrefix("model failed: the model server sent an unusable response") == true)
        #expect(try scene.occurrences("dan").first?["start"] == "2025-01-05T10:00")

        let eve = try #require(Self.night(of: "eve", in: result))
        #expect(eve["status"] == "changed")
        #expect(try scene.occurrences("eve").first?["start"] != "2025-01-05T10:00")

        let logged = try scene.lastRunUsers()
        #expect(logged["dan"]?["status"] == "skipped")
        #expect(logged["dan"]?["changesetId"] == .null)
        #expect(logged["dan"]?["error"]?.stringValue?.contains("unusable response") == true)
        #expect(logged["eve"]?["error"] == .null)
        let eveTranscript = try scene.replan(["show", try #require(eve["changesetId"]?.stringValue), "--transcript"])
        #expect(eveTranscript.stdout.contains("ended by end_conversation"))
        try scene.expectKeyNowhere()
    }

    @Test func withoutSkipTheLocalEditsOfAFailedModelCommit() throws {
        let scene = try ReplanHarness(
            rules: [
                MockScript.rule(
                    nil,
                    [
                        MockScript.invalidKey(message: "Incorrect API key provided: \(ReplanHarness.apiKey)")
                    ])
            ],
            document: Self.studentsWithMissedSessions(["fay"]))
        let run = try scene.run()
        #expect(run.code == 69)
        let fay = try #require(Self.night(of: "fay", in: try run.json()))
        #expect(fay["status"] == "changed")
        #expect(fay["model"]?["error"]?.stringValue?.contains("HTTP 401") == true)
        #expect(fay["model"]?["error"]?.stringValue?.contains("<redacted>") == true)
        let transcript = try scene.replan(["show", try #require(fay["changesetId"]?.stringValue), "--transcript"])
        #expect(transcript.stdout.contains("HTTP 401"))
        // The server echoed the key in its error; it was redacted before anything kept it.
        try scene.expectKeyNowhere()
    }

    @Test func modelErrorsAreCountedAndTheCommonestNamedInTheSummaryWithJournalPriorities() throws {
        let unauthorized = MockScript.invalidKey(message: "Incorrect API key provided")
        let scene = try ReplanHarness(
            rules: [
                MockScript.rule("gil: keep my week", [unauthorized]),
                MockScript.rule(nil, [MockScript.end("Nothing else to do.")], repeat: true),
            ],
            document: Self.studentsWithMissedSessions(["gil", "hal", "ian"]))
        let run = try scene.replan(
            ["run", "--api-key-file", scene.keyFile, "--request-timeout", "1", "--concurrency", "1"],
            environment: ["JOURNAL_STREAM": "stderr"])
        // The local edits of gil committed, so nobody failed; the error is still visible.
        #expect(run.code == 0, "\(run.stderr)")
        let lines = run.stderr.split(separator: "\n").map(String.init)
        let summary = try #require(lines.first { $0.contains("run 1:") }, "\(run.stderr)")
        #expect(
            summary.hasPrefix(
                "<4>run 1: 3 due, 3 changed, 0 unchanged, 0 skipped, 0 failed, 1 model error (HTTP 401 invalid_api_key: 1)"
            ),
            "a warning, counted and named: \(summary)")
        let gil = try #require(
            lines.first { $0.contains("gil ") }, "the student's error is a line on stderr: \(run.stderr)")
        #expect(gil.hasPrefix("<4>gil 2025-01-06: changed") && gil.contains("HTTP 401"), "\(gil)")
        #expect(!run.stdout.contains("gil"), "errors are not data: \(run.stdout)")

        // The log's run line counts it, --run names it, and the configured prices give a cost.
        let conf = scene.directory.appendingPathComponent("prices.conf")
        try "price_input = 1\nprice_cached_input = 0.5\nprice_output = 10\n".write(
            to: conf, atomically: true, encoding: .utf8)
        let log = try scene.replan(["log", "--json", "--config", conf.path]).json()
        let totals = try #require(log["runs"]?.arrayValue?.first?["totals"])
        #expect(totals["modelErrors"] == 1 && totals["due"] == 3, "\(totals)")
        let prompt = try #require(totals["tokens"]?["prompt"]?.intValue)
        let completion = try #require(totals["tokens"]?["completion"]?.intValue)
        let cached = totals["tokens"]?["cached"]?.intValue ?? 0
        #expect(prompt > 0 && completion > 0)
        let expected = (Double(prompt - cached) * 1 + Double(cached) * 0.5 + Double(completion) * 10) / 1_000_000
        #expect(abs((totals["estimatedCostUSD"]?.doubleValue ?? -1) - expected) < 1e-6, "\(totals)")
        let detail = try scene.replan(["log", "--run", "1"])
        #expect(detail.stdout.contains("model errors: HTTP 401 invalid_api_key: 1"), "\(detail.stdout)")

        let json = try scene.run(["--force"]).json()
        #expect(json["counts"]?["modelErrors"] == 0, "the second night's answers are scripted to succeed: \(json)")
    }

    @Test func whenTheModelFailsForEveryoneTheSummaryIsAnErrorNamingWhy() throws {
        let scene = try ReplanHarness(
            rules: [
                MockScript.rule(
                    nil,
                    [
                        MockScript.invalidKey()
                    ], repeat: true)
            ],
            document: Self.studentsWithMissedSessions(["jo", "kim"]))
        let run = try scene.replan(
            ["run", "--api-key-file", scene.keyFile, "--request-timeout", "1", "--concurrency", "1"],
            environment: ["JOURNAL_STREAM": "stderr"])
        #expect(run.code == 69, "\(run.stderr)")
        let summary = try #require(run.stderr.split(separator: "\n").first { $0.contains("run 1:") })
        #expect(summary.hasPrefix("<3>"), "\(summary)")
        #expect(summary.contains("2 model errors (HTTP 401 invalid_api_key: 2)"), "\(summary)")
        #expect(summary.hasSuffix("model unavailable for every student: HTTP 401 invalid_api_key"), "\(summary)")

        let json = try scene.run(["--force"]).json()
        #expect(json["counts"]?["modelErrors"] == 2, "\(json)")
        #expect(json["modelErrors"] == .array([["kind": "HTTP 401 invalid_api_key", "count": 2]]), "\(json)")
    }

    // MARK: - Interruption

    @Test func anInterruptCancelsTheRequestInFlightAndWritesNothing() throws {
        let scene = try ReplanHarness(
            rules: [MockScript.rule(nil, [MockScript.fault("hang")], repeat: true)],
            document: Self.studentsWithMissedSessions(["gus"]))
        let started = Date()
        let output = try scene.replanInterrupted(
            ["run", "--api-key-file", scene.keyFile, "--request-timeout", "60"], after: 1)
        // Well before the 60 s request timeout (the margin is for a loaded machine).
        #expect(Date().timeIntervalSince(started) < 45)
        #expect(output.code == 130, "\(output.stderr)")
        #expect(try scene.server.requests().count == 1)
        #expect(try scene.occurrences("gus").first?["start"] == "2025-01-05T10:00")
        #expect(try scene.lastRunUsers().isEmpty)
    }
}
