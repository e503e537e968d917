import Foundation
import HTTP
import Planning

/// The model loop of assistant.md for one user's night: the rendered system prompt, one user
/// message (the student's instruction and what the local rules did), then the assistant / tool
/// exchange, each tool call applied to the working copy through `ToolExecutor`.
///
/// Every tool call id of a response is answered by exactly one `tool` message before the next
/// request. The loop ends when the model calls `end_conversation` (the other calls of that
/// response still run), answers without tool calls, or has been asked `maxRequests` times
/// (`turn-limit`: the validated edits so far stand). A request that fails for good ends it as
/// `failed` (or `cancelled`), and then none of the model's edits stand: the caller decides,
/// by `--on-model-error`, what happens to the night.
///
/// Blocking: holds the calling thread through every request (see `ChatCompletionsClient`).
public struct ModelConversation: Sendable {
    public static let defaultMaxRequests = 15

    public let client: ChatCompletionsClient
    public let prompt: SystemPrompt
    public var maxRequests: Int
    public var maxDeletes: Int
    /// Proposes ids for tasks the model creates (tests make them predictable).
    public var makeTaskID: @Sendable () -> String

    public init(client: ChatCompletionsClient, prompt: SystemPrompt, maxRequests: Int = ModelConversation.defaultMaxRequests,
                maxDeletes: Int = ToolExecutor.defaultMaxDeletes,
                makeTaskID: @escaping @Sendable () -> String = ToolExecutor.randomTaskID) {
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
    public func run(plan: UserPlan, now: Date, localNow: CivilDateTime, localEdits: [PlanEdit], flags: [PlanFlag],
                    cancellation: CancellationToken? = nil) -> ConversationOutcome {
        var transcript = ConversationTranscript()
        var turns = 0, requests = 0
        var usage = TokenUsage.zero

        func finish(_ ending: ConversationOutcome.Ending, executor: ToolExecutor?, summary: String? = nil, error: String? = nil,
                    quotaExhausted: Bool = false) -> ConversationOutcome {
            transcript.recordEnd(ending, turns: turns, requests: requests, summary: summary, error: error)
            let kept = ending == .failed || ending == .cancelled ? nil : executor
            return ConversationOutcome(plan: kept?.plan ?? plan, ending: ending, touched: kept?.touched ?? [:], summary: summary,
                                       turns: turns, requests: requests, usage: usage, error: error,
                                       quotaExhausted: quotaExhausted, transcript: transcript.json)
        }

        let system: String
        do {
            system = try prompt.render(plan: plan, now: localNow, localEdits: localEdits, flags: flags)
        } catch {
            return finish(.failed, executor: nil, error: error.description)
        }
        var messages: [ChatMessage] = [
            .system(system),
            .user(Self.userMessage(instruction: plan.settings.instruction, localEdits: localEdits, flags: flags)),
        ]
        var executor = ToolExecutor(plan: plan, now: localNow, createdAt: now, maxDeletes: maxDeletes, makeTaskID: makeTaskID)

        while turns < max(1, maxRequests) {
            turns += 1
            let request = ChatCompletionRequest(configuration: client.configuration, messages: messages, tools: AssistantTools.all)
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

            guard response.callsTools else {
                let text = (response.content ?? response.refusal)?.trimmingWhitespace()
                return finish(.textAnswer, executor: executor, summary: text?.isEmpty == false ? text : nil)
            }
            messages.append(response.assistantMessage)
            let explanation = response.content?.trimmingWhitespace() ?? ""
            for call in response.toolCalls {
                let result = executor.execute(call, explanation: explanation)
                messages.append(.tool(toolCallId: call.id, content: result.text))
                transcript.recordTool(call, result: result, turn: turns)
            }
            if executor.ended {
                return finish(.endConversation, executor: executor, summary: executor.summary)
            }
        }
        return finish(.turnLimit, executor: executor,
                      error: "the model did not finish within \(max(1, maxRequests)) requests (turn-limit); its validated edits are kept")
    }

    /// The one user message: the student's standing instruction, if any, and a short account
    /// of the local rules' work (the details are in the system prompt).
    public static func userMessage(instruction: String, localEdits: [PlanEdit], flags: [PlanFlag]) -> String {
        var lines: [String] = []
        let request = instruction.trimmingWhitespace()
        lines.append(request.isEmpty ? "I have no standing instruction for you." : "My standing instruction: \(request)")

        var counts: [String] = []
        func count(_ n: Int, _ verb: String) { if n > 0 { counts.append("\(verb) \(n)") } }
        count(localEdits.filter { $0.op == .move || $0.op == .update }.count, "moved")
        count(localEdits.filter { $0.op == .skip }.count, "skipped")
        count(localEdits.filter { $0.op == .delete }.count, "deleted")
        count(localEdits.filter { $0.op == .create }.count, "created")
        var tonight = counts.isEmpty ? "Tonight the local rules changed nothing" : "Tonight the local rules " + counts.joined(separator: ", ") + " session(s)"
        if !flags.isEmpty { tonight += " and flagged \(flags.count) for a decision" }
        lines.append(tonight + " (details in the system prompt).")
        lines.append("Review my plan, make only the changes that are needed, then call end_conversation.")
        return lines.joined(separator: "\n")
    }
}
