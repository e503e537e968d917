import Foundation
import HTTP
import JSON
import Planning
import ReplanTestSupport
import Testing

@testable import Assistant

/// The model loop against the scripted mock server: how conversations end, how tool calls are
/// answered, what is retried, what fails, and what every request looks like.
@Suite struct ModelConversationTests {
    typealias F = PlanFixture
    typealias Call = MockScript.Call

    static let apiKey = "sk-loop-Kq7m2VxW9pLs4Rt8"
    let pauses = PauseRecorder()

    private func conversation(
        _ server: MockOpenAIServer, maxRequests: Int = 15, timeout: Double = 5,
        retries: Int = 4
    ) throws -> ModelConversation {
        let configuration = ModelConfiguration(
            apiKey: Secret(Self.apiKey), baseURL: server.baseURL, connectTimeout: 2,
            requestTimeout: timeout)
        let client = ChatCompletionsClient(
            configuration: configuration, retryPolicy: RetryPolicy(maxRetries: retries),
            sleep: pauses.pause, random: { 0 })
        return ModelConversation(
            client: client, prompt: try SystemPrompt.load(directory: F.promptDirectory),
            maxRequests: maxRequests, makeTaskID: SequentialIDs().make)
    }

    private func run(
        _ server: MockOpenAIServer, plan: UserPlan = F.standard, maxRequests: Int = 15, timeout: Double = 5,
        retries: Int = 4, cancellation: CancellationToken? = nil
    ) throws -> ConversationOutcome {
        try conversation(server, maxRequests: maxRequests, timeout: timeout, retries: retries)
            .run(
                plan: plan, now: Date(timeIntervalSince1970: 1_736_190_000), localNow: F.now, localEdits: [], flags: [],
                cancellation: cancellation)
    }

    private static func server(_ responses: [[String: Any]], repeat: Bool = false) throws -> MockOpenAIServer {
        try MockOpenAIServer(script: MockScript.script([MockScript.rule(nil, responses, repeat: `repeat`)]))
    }

    static func save(_ start: String, _ end: String, title: String = "English") -> [String: Any] {
        [
            "tasks": [
                [
                    "title": title, "note": "", "category": "English", "color": "green", "start": start, "end": end,
                    "allDay": false,
                ]
            ]
        ]
    }

    /// The request bodies the server received, as JSON objects.
    private func bodies(_ server: MockOpenAIServer) throws -> [[String: Any]] {
        try server.requests().map { try #require($0.json as? [String: Any]) }
    }

    /// The `messages` of a request body.
    private static func messages(_ body: [String: Any]) -> [[String: Any]] {
        body["messages"] as? [[String: Any]] ?? []
    }

    /// What every request must look like (docs/model.md §10), and the API key only
    /// ever in the Authorization header.
    private func expectWellFormedRequests(_ server: MockOpenAIServer, outcome: ConversationOutcome? = nil) throws {
        for request in try server.requests() {
            #expect(request.path == "/v1/chat/completions")
            #expect(request.headers["authorization"] == "Bearer \(Self.apiKey)")
            #expect(!request.raw.contains(Self.apiKey))
            let body = try #require(request.json as? [String: Any])
            #expect(body["temperature"] == nil)
            #expect(body["max_tokens"] == nil)
            #expect(body["max_completion_tokens"] as? Int == 8000)
            #expect(body["stream"] as? Bool == false)
            #expect(body["tool_choice"] as? String == "auto")
            #expect(body["parallel_tool_calls"] as? Bool == false)
            #expect((body["prompt_cache_key"] as? String)?.hasPrefix("replan-") == true)
            #expect(body["reasoning_effort"] as? String == "low")
            let tools = (body["tools"] as? [[String: Any]] ?? []).compactMap {
                ($0["function"] as? [String: Any])?["name"] as? String
            }
            #expect(tools == ["saveTask", "updateTask", "deleteTask", "end_conversation", "set_goal"])
            Self.expectEveryToolCallAnswered(Self.messages(body))
        }
        if let outcome { #expect(!outcome.transcript.text.contains(Self.apiKey)) }
    }

    /// Each assistant message's tool call ids are answered by exactly one `tool` message right
    /// after it, and no `tool` message answers anything else.
    static func expectEveryToolCallAnswered(_ messages: [[String: Any]]) {
        #expect(messages.first?["role"] as? String == "system")
        #expect(messages.dropFirst().first?["role"] as? String == "user")
        var index = 0
        while index < messages.count {
            let message = messages[index]
            index += 1
            if message["role"] as? String == "tool" {
                Issue.record("a tool message that answers no preceding call: \(message)")
                continue
            }
            guard let calls = message["tool_calls"] as? [[String: Any]] else { continue }
            var open = calls.compactMap { $0["id"] as? String }
            #expect(Set(open).count == open.count)
            while index < messages.count, messages[index]["role"] as? String == "tool" {
                let id = messages[index]["tool_call_id"] as? String ?? ""
                #expect(open.contains(id), "tool message for \(id) answers no open call")
                open.removeAll { $0 == id }
                index += 1
            }
            #expect(open.isEmpty, "unanswered tool calls: \(open)")
        }
    }

    // MARK: - How a conversation ends

    @Test func endConversationAfterAToolCall() throws {
        let server = try Self.server([
            MockScript.toolCalls(
                [Call("call_1", "saveTask", Self.save("2025-01-07T11:00", "2025-01-07T12:00"))],
                content: "Adding English."),
            MockScript.end("Added one English session."),
        ])
        let outcome = try run(
            server, plan: F.plan(F.standard.sortedTasks, instruction: "one hour of English on Tuesday"))

        #expect(outcome.ending == .endConversation)
        #expect(outcome.summary == "Added one English session.")
        #expect(outcome.turns == 2)
        #expect(outcome.requests == 2)
        #expect(outcome.usage == TokenUsage(prompt: 200, completion: 40, reasoning: 20))
        #expect(outcome.plan.tasks["m-1"]?.title == "English")
        #expect(outcome.touched == [id("m-1"): "Adding English."])
        #expect(outcome.error == nil)

        let bodies = try bodies(server)
        #expect(bodies.count == 2)
        let first = Self.messages(bodies[0])
        #expect((first[1]["content"] as? String)?.contains("id=math") == true)
        #expect(
            (first[1]["content"] as? String)?.contains("My standing instruction: one hour of English on Tuesday")
                == true)
        let last = try #require(Self.messages(bodies[1]).last)
        #expect(last["role"] as? String == "tool")
        #expect(last["tool_call_id"] as? String == "call_1")
        #expect(last["content"] as? String == #"[{"id":"m-1","ok":true}]"#)
        try expectWellFormedRequests(server, outcome: outcome)
    }

    @Test func parallelToolCallsAreAllAnsweredInOrder() throws {
        let server = try Self.server([
            MockScript.toolCalls([
                Call("call_a", "saveTask", Self.save("2025-01-07T11:00", "2025-01-07T12:00")),
                Call(
                    "call_b", "updateTask",
                    ["tasks": [["taskId": "math", "start": "2025-01-08T10:00", "end": "2025-01-08T11:00"]]]),
                Call("call_c", "deleteTask", ["taskIds": ["phy", "essay"]]),
            ]),
            MockScript.end("Done."),
        ])
        let outcome = try run(server)

        #expect(outcome.ending == .endConversation)
        #expect(Set(outcome.touched.keys) == [id("m-1"), id("math"), id("phy")])
        #expect(outcome.plan.tasks["phy"] == nil)
        #expect(outcome.plan.tasks["essay"] != nil)
        let tools = Self.messages(try bodies(server)[1]).filter { $0["role"] as? String == "tool" }
        #expect(tools.map { $0["tool_call_id"] as? String } == ["call_a", "call_b", "call_c"])
        #expect(
            tools.last?["content"] as? String
                == #"[{"id":"phy","ok":true},{"error":"completed sessions cannot be deleted","id":"essay","ok":false}]"#
        )
        try expectWellFormedRequests(server, outcome: outcome)
    }

    /// Issue 28, item 10: every call of a flood stayed in the conversation (and was sent again
    /// with every request) and in the transcript: about 240 MiB per student.
    @Test func aToolCallFloodIsBoundedInTheConversationAndTheTranscript() throws {
        let pad = String(repeating: "x", count: 20 * 1024)
        var flood = (0..<200).map { i in
            Call("call_\(i)", "saveTask", #"{"tasks": [], "pad": "\#(pad)"}"#)
        }
        flood.insert(
            Call("call_big", "saveTask", #"{"tasks": [], "pad": "\#(String(repeating: "y", count: 100 * 1024))"}"#),
            at: 1)
        let server = try Self.server([MockScript.toolCalls(flood), MockScript.end("Done.")])
        let outcome = try run(server)
        #expect(outcome.ending == .endConversation)

        let second = try server.requests()[1]
        let messages = Self.messages(try #require(second.json as? [String: Any]))
        let assistant = try #require(messages.first { $0["role"] as? String == "assistant" })
        let calls = assistant["tool_calls"] as? [[String: Any]] ?? []
        #expect(calls.count == ToolCallBudget.maxCalls)
        let tools = messages.filter { $0["role"] as? String == "tool" }
        #expect(tools.map { $0["tool_call_id"] as? String } == calls.map { $0["id"] as? String })
        #expect((tools[1]["content"] as? String)?.contains("refused unread") == true)
        #expect(
            (messages.last?["content"] as? String)?.contains("at most \(ToolCallBudget.maxCalls) tool calls") == true)
        // What the next request carries and the transcript keeps is bounded by the budget, not
        // by the 4 MiB answer.
        #expect(second.raw.utf8.count < ToolCallBudget.maxAnswerArgumentBytes + 128 * 1024, "\(second.raw.utf8.count)")
        let transcript = outcome.transcript.text.utf8.count
        #expect(transcript < 4 * ToolCallBudget.maxAnswerArgumentBytes + 256 * 1024, "\(transcript)")
        let first = outcome.transcript.arrayValue?.filter { $0["turn"] == 1 } ?? []
        #expect(first.filter { $0["kind"] == "tool" }.count == ToolCallBudget.maxCalls)
        #expect(first.contains { $0["kind"] == "dropped" && $0["count"] == .int(201 - ToolCallBudget.maxCalls) })
    }

    @Test func theModelCorrectsItselfOverSeveralTurns() throws {
        let server = try Self.server([
            MockScript.toolCalls([Call("call_1", "saveTask", Self.save("2025-01-07T14:30", "2025-01-07T15:30"))]),
            MockScript.toolCalls([Call("call_2", "saveTask", Self.save("2025-01-07T15:00", "2025-01-07T16:00"))]),
            MockScript.text("I added English after Physics."),
        ])
        let outcome = try run(server)

        #expect(outcome.ending == .textAnswer)
        #expect(outcome.summary == "I added English after Physics.")
        #expect(outcome.turns == 3)
        #expect(outcome.plan.tasks["m-1"]?.start == at("2025-01-07T15:00"))
        let second = Self.messages(try bodies(server)[1])
        #expect(
            second.last?["content"] as? String
                == #"[{"error":"overlaps 'Physics' 14:00–15:00 on 2025-01-07","nearest":{"end":"2025-01-07T16:00","start":"2025-01-07T15:00"},"ok":false}]"#
        )
        try expectWellFormedRequests(server, outcome: outcome)
    }

    @Test func aTextAnswerWithoutToolCallsEndsTheConversation() throws {
        let server = try Self.server([MockScript.text("Nothing needs changing tonight.")])
        let outcome = try run(server)
        #expect(outcome.ending == .textAnswer)
        #expect(outcome.summary == "Nothing needs changing tonight.")
        #expect(outcome.turns == 1)
        #expect(outcome.plan == F.standard)
        #expect(outcome.touched.isEmpty)
        try expectWellFormedRequests(server, outcome: outcome)
    }

    @Test("a change or an undo after the first week lists the plan as far as it reaches")
    func theDaysTheRequestNamesAreListed() throws {
        let plan = Fx.plan(
            F.standard.sortedTasks + [
                Fx.task("late", "Essay plan", "2025-01-17T10:00", "2025-01-17T11:00", category: "English")
            ], settings: UserSettings())
        let unlisted = "Wed 01-15…Tue 01-21: not listed"
        func user(reaching: [CivilDate] = [], takenBack: TakenBack = TakenBack(edits: [])) throws -> String {
            let server = try Self.server([MockScript.text("Nothing to do.")])
            _ = try conversation(server).run(
                plan: plan, now: Date(timeIntervalSince1970: 1_736_190_000), localNow: F.now, localEdits: [],
                flags: [], takenBack: takenBack, reaching: reaching)
            let messages = Self.messages(try #require(try bodies(server).first))
            return try #require(messages.last?["content"] as? String)
        }
        #expect(try user().contains(unlisted))
        // The days of a plan-changed request's diff.
        let changed = try user(reaching: [date("2025-01-17")])
        #expect(!changed.contains(unlisted))
        #expect(changed.contains("id=late"))
        // The day of an edit the student took back.
        let created = PlanEdit(
            op: .create, id: id("m-1"), title: "Reading", before: nil,
            after: TimeRange(start: at("2025-01-18T10:00"), end: at("2025-01-18T11:00")), reason: .model)
        let undone = try user(takenBack: TakenBack(edits: [created]))
        #expect(undone.contains("'Reading' you created on Sat 01-18 10:00"))
        #expect(!undone.contains(unlisted))
    }

    @Test func theTurnLimitKeepsTheValidatedEdits() throws {
        // A model that never stops: it adds the same session every turn (refused after the first).
        let server = try Self.server(
            [MockScript.toolCalls([Call("call_x", "saveTask", Self.save("2025-01-07T11:00", "2025-01-07T12:00"))])],
            repeat: true)
        let outcome = try run(server)

        #expect(outcome.ending == .turnLimit)
        #expect(!outcome.failed)
        #expect(outcome.turns == 15)
        #expect(outcome.requests == 15)
        #expect(try server.requests().count == 15)
        #expect(outcome.plan.tasks["m-1"] != nil)
        #expect(outcome.plan.tasks.count == F.standard.tasks.count + 1)
        #expect(outcome.touched.keys.contains(id("m-1")))
        #expect(outcome.error?.contains("turn-limit") == true)
        try expectWellFormedRequests(server, outcome: outcome)
    }

    @Test func theLimitIsConfigurable() throws {
        let server = try Self.server(
            [MockScript.toolCalls([Call("call_x", "deleteTask", ["taskIds": []])])], repeat: true)
        let outcome = try run(server, maxRequests: 3)
        #expect(outcome.ending == .turnLimit)
        #expect(try server.requests().count == 3)
    }

    @Test func invalidArgumentsGetAnErrorResultAndTheLoopGoesOn() throws {
        let server = try Self.server([
            MockScript.toolCalls([
                Call("call_1", "saveTask", #"{"tasks": [{"title": "Eng"#),
                Call("call_2", "moveEverything", ["all": true]),
            ]),
            MockScript.toolCalls([
                Call("call_3", "saveTask", Self.save("2025-01-07T11:00", "2025-01-07T12:00"), asObject: true)
            ]),
            MockScript.end("Fixed."),
        ])
        let outcome = try run(server)

        #expect(outcome.ending == .endConversation)
        #expect(outcome.plan.tasks["m-1"] != nil)
        let tools = Self.messages(try bodies(server)[1]).filter { $0["role"] as? String == "tool" }
        #expect((tools.first?["content"] as? String)?.contains("the arguments are not valid JSON") == true)
        #expect((tools.last?["content"] as? String)?.contains("unknown tool 'moveEverything'") == true)
        try expectWellFormedRequests(server, outcome: outcome)
    }

    // MARK: - Retries and failures

    @Test func rateLimitedRequestsWaitForRetryAfterThenSucceed() throws {
        let server = try Self.server([
            MockScript.error(
                status: 429, code: "rate_limit_exceeded", message: "Rate limit reached", type: "requests",
                headers: ["retry-after": "2"]),
            MockScript.end("Done."),
        ])
        let outcome = try run(server)
        #expect(outcome.ending == .endConversation)
        #expect(outcome.turns == 1)
        #expect(outcome.requests == 2)
        #expect(try server.requests().count == 2)
        #expect(pauses.recorded == [2])
        try expectWellFormedRequests(server, outcome: outcome)
    }

    @Test func anExhaustedQuotaFailsAtOnceAndSaysSo() throws {
        let server = try Self.server([MockScript.quota, MockScript.end("never reached")])
        let outcome = try run(server)
        #expect(outcome.ending == .failed)
        #expect(outcome.quotaExhausted)
        #expect(outcome.requests == 1)
        #expect(try server.requests().count == 1)
        #expect(outcome.error?.contains("no quota left") == true)
        #expect(pauses.recorded.isEmpty)
    }

    @Test func serverErrorsAreRetried() throws {
        let server = try Self.server([
            MockScript.error(status: 500, code: nil),
            MockScript.error(status: 503, code: nil, message: "overloaded"),
            MockScript.end("Done."),
        ])
        let outcome = try run(server)
        #expect(outcome.ending == .endConversation)
        #expect(outcome.requests == 3)
        #expect(outcome.turns == 1)
        #expect(pauses.recorded == [0.5, 1.0])
        let kinds = outcome.transcript.arrayValue?.compactMap { $0["kind"]?.stringValue }
        #expect(kinds == ["request", "response", "response", "response", "tool", "end"])
    }

    @Test func aHangingServerTimesOut() throws {
        let server = try Self.server([MockScript.fault("hang")], repeat: true)
        let started = Date()
        let outcome = try run(server, timeout: 1, retries: 1)
        // The 1 s timeouts ended it, not the server's 300 s hang (the margin is for a loaded machine).
        #expect(Date().timeIntervalSince(started) < 60)
        #expect(outcome.ending == .failed)
        #expect(outcome.requests == 2)
        #expect(outcome.error?.contains("timed out") == true)
        #expect(!outcome.quotaExhausted)
    }

    @Test func aDroppedConnectionFails() throws {
        let server = try Self.server([MockScript.fault("drop")], repeat: true)
        let outcome = try run(server, retries: 1)
        #expect(outcome.ending == .failed)
        #expect(outcome.requests == 2)
        #expect(outcome.error?.hasPrefix("the model server could not be reached") == true)
    }

    @Test func aTruncatedBodyFails() throws {
        let server = try Self.server([MockScript.fault("truncate", ["body": ["choices": []]])], repeat: true)
        let outcome = try run(server, retries: 1)
        #expect(outcome.ending == .failed)
        #expect(outcome.requests == 2)
        #expect(outcome.error != nil)
    }

    @Test func aHugeBodyFailsWithoutRetry() throws {
        let server = try Self.server([MockScript.fault("huge", ["bytes": 10 * 1024 * 1024])], repeat: true)
        let outcome = try run(server)
        #expect(outcome.ending == .failed)
        #expect(outcome.requests == 1)
        #expect(outcome.error?.contains("larger than the limit") == true)
        #expect(outcome.transcript.text.count < 100_000)
    }

    @Test func anUnusableAnswerFails() throws {
        let server = try Self.server([["status": 200, "text": "<html>gateway</html>"]])
        let outcome = try run(server)
        #expect(outcome.ending == .failed)
        #expect(outcome.requests == 1)
        #expect(outcome.error?.contains("unusable response") == true)
    }

    @Test func aFailureLaterInTheConversationKeepsNoneOfTheModelsEdits() throws {
        let server = try Self.server([
            MockScript.toolCalls([Call("call_1", "saveTask", Self.save("2025-01-07T11:00", "2025-01-07T12:00"))]),
            MockScript.error(status: 400, code: "invalid_request_error", message: "bad request"),
        ])
        let outcome = try run(server)
        #expect(outcome.ending == .failed)
        #expect(outcome.plan == F.standard)
        #expect(outcome.touched.isEmpty)
        #expect(outcome.turns == 2)
        #expect(outcome.transcript.arrayValue?.contains { $0["kind"] == "tool" } == true)
    }

    @Test func cancellationStopsAnInFlightRequest() throws {
        let server = try Self.server([MockScript.fault("hang")], repeat: true)
        let token = CancellationToken()
        DispatchQueue.global().asyncAfter(deadline: .now() + 0.3) { token.cancel() }
        let started = Date()
        let outcome = try run(server, timeout: 30, cancellation: token)
        // Well before the 30 s timeout (the margin is for a loaded machine).
        #expect(Date().timeIntervalSince(started) < 20)
        #expect(outcome.ending == .cancelled)
        #expect(outcome.failed)
        #expect(outcome.plan == F.standard)
    }

    // MARK: - Transcript and messages

    @Test func theTranscriptRecordsEveryRequestAttemptAndToolResult() throws {
        let server = try Self.server([
            MockScript.toolCalls([
                Call("call_1", "saveTask", Self.save("2025-01-07T11:00", "2025-01-07T12:00")),
                Call("call_2", "deleteTask", ["taskIds": ["vocab"]]),
            ]),
            MockScript.end("Done."),
        ])
        let outcome = try run(server)
        let entries = try #require(outcome.transcript.arrayValue)
        #expect(
            entries.map { $0["kind"]?.stringValue } == [
                "request", "response", "tool", "tool", "request", "response", "tool", "end",
            ])
        #expect(entries[0]["body"]?["messages"]?.arrayValue?.count == 2)
        #expect(entries[1]["status"] == 200)
        #expect(entries[2]["result"] == [["ok": true, "id": "m-1"]])
        #expect(entries[3]["result"]?.arrayValue?.first?["ok"] == false)
        #expect(entries[4]["body"]?["messages"]?.arrayValue?.count == 5)
        #expect(entries[7]["ending"] == "end_conversation")
        #expect(entries[7]["summary"] == "Done.")
        // The transcript holds request bodies exactly as sent.
        let sent = try server.requests().map(\.raw)
        #expect(try entries[0]["body"] == JSONValue(parsing: sent[0]))
    }

    @Test func aKeyEchoedByTheServerIsRedactedEverywhere() throws {
        let server = try Self.server([MockScript.text("Your key is \(Self.apiKey).")])
        let outcome = try run(server)
        #expect(outcome.summary == "Your key is <redacted>.")
        #expect(!outcome.transcript.text.contains(Self.apiKey))
    }

    @Test func theSystemMessageIsTheSameForEveryStudentAndTheUserMessageCarriesTheirData() throws {
        let prompt = try SystemPrompt.load(directory: F.promptDirectory)
        let moved = PlanEdit(
            op: .move, id: id("math"), title: "Math",
            before: TimeRange(start: at("2025-01-06T09:00"), end: at("2025-01-06T10:00")),
            after: TimeRange(start: at("2025-01-07T09:00"), end: at("2025-01-07T10:00")), reason: .rescheduled)
        let dropped = PlanEdit(
            op: .skip, id: id("vocab@2024-12-20"), title: "Vocabulary",
            before: TimeRange(start: at("2024-12-20T20:00"), end: at("2024-12-20T20:30")), after: nil,
            reason: .droppedStale)
        let a = try prompt.render(
            plan: F.plan(F.standard.sortedTasks, instruction: "  two hours of English every weekday "),
            now: F.now, localEdits: [moved, dropped], flags: [PlanFlag(id: id("math"), kind: .couldNotFit)],
            why: "I gave a new instruction")
        let b = try prompt.render(plan: F.standard, now: F.now, localEdits: [], flags: [])
        #expect(a.system == b.system)
        #expect(!a.system.contains("{{"))
        #expect(a.user.contains("My standing instruction: two hours of English every weekday"))
        #expect(a.user.contains("You are asked because: I gave a new instruction"))
        #expect(a.user.contains("- could-not-fit: math 'Math'"))
        // Inside the window a change is spelled out; the stale drop in the past is only counted.
        #expect(a.user.contains("- moved 'Math' (math) → Tue 01-07 [rescheduled]"))
        #expect(a.user.contains("- 1 other change(s) outside the plan window"))
        #expect(a.user.contains("Free slots"))
        #expect(b.user.contains("My standing instruction: (none)"))
        #expect(b.user.contains("- nothing"))
    }

    // MARK: - Endings that are failures of the model stage

    /// An answer whose `finish_reason` is `length`: its tool calls are a fragment.
    static func cut(_ calls: [Call]) -> [String: Any] {
        var cut = MockScript.toolCalls(calls)
        var body = cut["body"] as! [String: Any]
        var choices = body["choices"] as! [[String: Any]]
        choices[0]["finish_reason"] = "length"
        body["choices"] = choices
        cut["body"] = body
        return cut
    }

    @Test func anAnswerCutByTheTokenCapOnTheFirstTurnLeavesNothingOfIt() throws {
        let server = try Self.server([
            Self.cut([Call("call_1", "saveTask", Self.save("2025-01-07T11:00", "2025-01-07T12:00"))])
        ])
        let outcome = try run(server)
        #expect(outcome.ending == .truncated)
        #expect(!outcome.ending.handled)
        #expect(outcome.finishReasons == ["length"])
        #expect(outcome.plan == F.standard)
        #expect(outcome.touched.isEmpty)
        #expect(outcome.error?.contains("token cap") == true)
        #expect(outcome.error?.contains("no edit of an earlier turn to keep") == true)
    }

    @Test func aCutOffAnswerKeepsTheValidatedEditsOfTheTurnsBeforeIt() throws {
        let server = try Self.server([
            MockScript.toolCalls([Call("call_1", "saveTask", Self.save("2025-01-07T11:00", "2025-01-07T12:00"))]),
            MockScript.toolCalls([Call("call_2", "saveTask", Self.save("2025-01-09T11:00", "2025-01-09T12:00"))]),
            Self.cut([Call("call_3", "saveTask", Self.save("2025-01-10T11:00", "2025-01-10T12:00"))]),
        ])
        let outcome = try run(server)
        #expect(outcome.ending == .truncated)
        #expect(!outcome.failed)
        #expect(!outcome.ending.handled)
        #expect(outcome.turns == 3)
        #expect(outcome.finishReasons == ["tool_calls", "tool_calls", "length"])
        // Turns 1 and 2 stand; the cut answer's call never ran.
        #expect(Set(outcome.touched.keys) == [id("m-1"), id("m-2")])
        #expect(outcome.plan.tasks["m-1"]?.start == at("2025-01-07T11:00"))
        #expect(outcome.plan.tasks["m-2"]?.start == at("2025-01-09T11:00"))
        #expect(outcome.plan.tasks.count == F.standard.tasks.count + 2)
        #expect(
            outcome.error
                == "the conversation was cut: the model's answer on turn 3 hit the token cap (finish_reason length, max_completion_tokens 8000) and was not used; the validated edits of the 2 turns before it are kept"
        )
        try expectWellFormedRequests(server, outcome: outcome)
    }

    @Test func aTextAnswerOrATurnLimitStopDoesNotHandleTheInstruction() {
        #expect(ConversationOutcome.Ending.endConversation.handled)
        for ending in ConversationOutcome.Ending.allCases where ending != .endConversation {
            #expect(!ending.handled, "\(ending)")
        }
    }

    @Test func aRefusalIsAFailureNotASummary() throws {
        let refusal = MockScript.answer(
            message: ["role": "assistant", "content": NSNull(), "refusal": "I can't help with that."],
            finish: "stop", prompt: 100, completion: 5)
        let outcome = try run(try Self.server([refusal]))
        #expect(outcome.ending == .refused)
        #expect(outcome.failed)
        #expect(outcome.summary == nil)
        #expect(outcome.error?.contains("I can't help with that.") == true)
    }

    @Test func aContentFilterStopIsAFailure() throws {
        let filtered = MockScript.answer(
            message: ["role": "assistant", "content": ""], finish: "content_filter", prompt: 100, completion: 0)
        let outcome = try run(try Self.server([filtered]))
        #expect(outcome.ending == .filtered)
        #expect(outcome.failed)
        #expect(outcome.finishReasons == ["content_filter"])
    }

    @Test func theFinishReasonOfEveryRequestIsRecordedAndTheEndIsStructured() throws {
        let server = try Self.server([
            MockScript.toolCalls([Call("call_1", "saveTask", Self.save("2025-01-07T11:00", "2025-01-07T12:00"))]),
            MockScript.toolCalls([
                Call(
                    "call_end", "end_conversation",
                    ["summary": "Added English.", "status": "needs-student", "question": "Which book?"])
            ]),
        ])
        let outcome = try run(
            server, plan: F.plan(F.standard.sortedTasks, instruction: "one hour of English on Tuesday"))
        #expect(outcome.finishReasons == ["tool_calls", "tool_calls"])
        #expect(outcome.endStatus == "needs-student")
        #expect(outcome.question == "Which book?")
    }

    @Test func anUnreadablePromptFailsWithoutARequest() throws {
        let server = try Self.server([MockScript.end("never")])
        let broken = SystemPrompt(
            system: PromptTemplate(name: "system.txt", text: "static"),
            withSettings: PromptTemplate(name: "broken.txt", text: "{{nope}}"),
            withoutSettings: PromptTemplate(name: "broken.txt", text: "{{nope}}"))
        let client = try conversation(server).client
        let outcome = ModelConversation(client: client, prompt: broken)
            .run(plan: F.standard, now: Date(), localNow: F.now, localEdits: [], flags: [])
        #expect(outcome.ending == .failed)
        #expect(outcome.error?.contains("{{nope}}") == true)
        #expect(try server.requests().isEmpty)
    }
}
