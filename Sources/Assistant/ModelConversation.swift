import Foundation
import HTTP
import JSON
import Planning

/// The model loop of docs/model.md §10 for one user's night: the static system prompt, one user
/// message (the student's data, see `SystemPrompt`), then the assistant / tool exchange, each
/// tool call applied to the working copy through `ToolExecutor`.
///
/// Every tool call id of a response is answered by exactly one `tool` message before the next
/// request. The loop ends when the model calls `end_conversation` (the other calls of that
/// response still run), answers without tool calls, or has been asked `maxRequests` times
/// (`turn-limit`: the validated edits so far stand). An answer cut by the token cap ends it as
/// `length`: that answer is not used, the edits of the turns before it stand. A request that
/// fails for good ends it as `failed` (or `cancelled`), and so does a refusal or the content
/// filter; then none of the model's edits stand: the caller decides, by `--on-model-error`,
/// what happens to the night.
///
/// Blocking: holds the calling thread through every request (see `ChatCompletionsClient`).
package struct ModelConversation: Sendable {
    package static let defaultMaxRequests = 15

    package let client: ChatCompletionsClient
    package let prompt: SystemPrompt
    package var maxRequests: Int
    package var maxDeletes: Int
    /// Proposes ids for tasks the model creates (tests make them predictable).
    package var makeTaskID: @Sendable () -> String

    package init(
        client: ChatCompletionsClient, prompt: SystemPrompt, maxRequests: Int = ModelConversation.defaultMaxRequests,
        maxDeletes: Int = ToolExecutor.defaultMaxDeletes,
        makeTaskID: @escaping @Sendable () -> String = ToolExecutor.randomTaskID
    ) {
        self.client = client
        self.prompt = prompt
        self.maxRequests = maxRequests
        self.maxDeletes = maxDeletes
        self.makeTaskID = makeTaskID
    }

    /// - Parameters:
    ///   - plan: the working copy after the local rules.
    ///   - now: the run's instant (stamped on created tasks).
    ///   - localNow: the user's local time as the local rules used it; nothing is placed before it.
    ///   - localEdits, flags: what the local rules did tonight, for the prompt.
    ///   - cancellation: cancelled on SIGINT/SIGTERM; stops an in-flight request or retry pause.
    ///   - why: why the call policy asks the model tonight, told to the model.
    ///   - takenBack: the model's edits the student undid: told to the model after `why`, and
    ///     refused by the tools (docs/model.md §14).
    ///   - reaching: the days `why` names (a plan-changed request's diff); with those of
    ///     `takenBack`, the plan is listed as far as they reach.
    package func run(
        plan: UserPlan, now: Date, localNow: CivilDateTime, localEdits: [PlanEdit], flags: [PlanFlag],
        why: String = "a review of my plan", takenBack: TakenBack = TakenBack(edits: []),
        goal: GoalBrief = .none, reaching: [CivilDate] = [], cancellation: CancellationToken? = nil
    ) -> ConversationOutcome {
        var transcript = ConversationTranscript()
        var turns = 0
        var requests = 0
        var usage = TokenUsage.zero
        var finishReasons: [String] = []

        func finish(
            _ ending: ConversationOutcome.Ending, executor: ToolExecutor?, summary: String? = nil, error: String? = nil,
            quotaExhausted: Bool = false
        ) -> ConversationOutcome {
            transcript.recordEnd(ending, turns: turns, requests: requests, summary: summary, error: error)
            let kept = ending.isFailure ? nil : executor
            var outcome = ConversationOutcome(
                plan: kept?.plan ?? plan, ending: ending, touched: kept?.touched ?? [:], summary: summary,
                turns: turns, requests: requests, usage: usage, error: error,
                quotaExhausted: quotaExhausted, transcript: transcript.json)
            outcome.finishReasons = finishReasons
            outcome.endStatus = kept?.endStatus
            outcome.question = kept?.question
            outcome.goal = kept?.goal
            outcome.reviewAgainOn = kept?.reviewAgainOn
            return outcome
        }

        let prompt: PromptMessages
        do {
            // After a list of changes (a plan-changed request), the undo is a line of its own.
            let said =
                takenBack.isEmpty ? why : "\(why)\(why.contains("\n") ? "\n" : ". ")\(takenBack.text())"
            prompt = try self.prompt.render(
                plan: plan, now: localNow, localEdits: localEdits, flags: flags, why: said,
                reaching: reaching + takenBack.dates(), goal: goal)
        } catch {
            return finish(.failed, executor: nil, error: error.description)
        }
        var messages: [ChatMessage] = [.system(prompt.system), .user(prompt.user)]
        var executor = ToolExecutor(
            plan: plan, now: localNow, createdAt: now, maxDeletes: maxDeletes, takenBack: takenBack,
            makeTaskID: makeTaskID)
        // Per student, never the student's id itself (it may be an e-mail address): the
        // provider keeps one student's growing conversation on one cache.
        let cacheKey = StableID.make(prefix: "replan", parts: [plan.user.id])

        while turns < max(1, maxRequests) {
            turns += 1
            let request = ChatCompletionRequest(
                configuration: client.configuration, messages: messages, tools: AssistantTools.all,
                promptCacheKey: cacheKey)
            let exchange = client.complete(request, cancellation: cancellation)
            requests += exchange.attemptCount
            usage += exchange.usage
            transcript.record(exchange, turn: turns)

            let response: ChatCompletionResponse
            switch exchange.result {
            case .failure(.cancelled):
                return finish(.cancelled, executor: nil, error: ModelCallError.cancelled.description)
            case .failure(let error):
                var quota = false
                if case .quotaExhausted = error { quota = true }
                return finish(.failed, executor: nil, error: error.description, quotaExhausted: quota)
            case .success(let answer):
                response = answer
            }
            finishReasons.append(response.finishReason ?? "?")

            // A cut-off, refused or filtered answer is not the model's considered reply: its
            // tool calls may be a fragment of what it meant, and a refusal is no summary.
            // The turns before it were complete: their validated edits stand, and the
            // changeset's model report says the conversation was cut.
            if response.finishReason == "length" {
                let kept =
                    executor.touched.isEmpty
                    ? "no edit of an earlier turn to keep"
                    : "the validated edits of the \(turns - 1) turn\(turns == 2 ? "" : "s") before it are kept"
                return finish(
                    .truncated, executor: executor,
                    error:
                        "the conversation was cut: the model's answer on turn \(turns) hit the token cap (finish_reason length, max_completion_tokens \(client.configuration.maxCompletionTokens)) and was not used; \(kept)"
                )
            }
            if let refusal = response.refusal?.trimmingWhitespace(), !refusal.isEmpty {
                return finish(.refused, executor: nil, error: "the model refused: \(refusal.prefix(300))")
            }
            if response.finishReason == "content_filter" {
                return finish(
                    .filtered, executor: nil,
                    error:
                        "the provider's content filter stopped the answer (finish_reason content_filter); none of the model's edits are kept"
                )
            }

            guard response.callsTools else {
                let text = response.content?.trimmingWhitespace()
                return finish(.textAnswer, executor: executor, summary: text?.isEmpty == false ? text : nil)
            }
            // Only what the budget keeps stays in the conversation and the transcript.
            let budget = ToolCallBudget(response.toolCalls)
            messages.append(.assistant(content: response.content, toolCalls: budget.kept.map(\.call)))
            let explanation = response.content?.trimmingWhitespace() ?? ""
            for kept in budget.kept {
                let result: JSONValue
                if let refusal = kept.refusal {
                    result = ToolResult.failure(refusal)
                } else {
                    result = executor.execute(kept.call, explanation: explanation)
                }
                messages.append(.tool(toolCallId: kept.call.id, content: result.text))
                transcript.recordTool(kept.call, result: result, turn: turns)
            }
            if let note = budget.droppedNote {
                messages.append(.user(note))
                transcript.recordDropped(budget.dropped, turn: turns)
            }
            if executor.ended {
                return finish(.endConversation, executor: executor, summary: executor.summary)
            }
        }
        return finish(
            .turnLimit, executor: executor,
            error:
                "the model did not finish within \(max(1, maxRequests)) requests (turn-limit); its validated edits are kept"
        )
    }
}
