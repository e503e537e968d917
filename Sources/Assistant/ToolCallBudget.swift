/// How much of one answer's tool calls a conversation runs and keeps (issue 28, item 10).
///
/// Every tool call stays in the conversation (each later request sends it again) and in the
/// transcript, so an answer of thousands of calls, or of megabytes of arguments, cost hundreds
/// of MiB per student although the stored transcript was capped. An answer's calls past
/// `maxCalls` are not run and not kept (the model is told so in a message after the tool
/// answers); a call whose arguments exceed `maxArgumentBytes`, or would take the answer past
/// `maxAnswerArgumentBytes`, is answered with a refusal and kept without its arguments.
package struct ToolCallBudget: Sendable {
    package static let maxCalls = 32
    package static let maxArgumentBytes = 64 * 1024
    package static let maxAnswerArgumentBytes = 256 * 1024

    /// A call as the conversation keeps it, and why it is not run (nil: it is run).
    package struct Kept: Sendable {
        package var call: ToolCall
        package var refusal: String?
    }

    package var kept: [Kept] = []
    /// Calls of the answer past `maxCalls`: neither run nor kept.
    package var dropped = 0

    package init(_ calls: [ToolCall]) {
        var bytes = 0
        for call in calls {
            guard kept.count < Self.maxCalls else {
                dropped += 1
                continue
            }
            let size = call.arguments.utf8.count
            var refusal: String?
            if size > Self.maxArgumentBytes {
                refusal =
                    "refused unread: its arguments are \(size) bytes, more than \(Self.maxArgumentBytes); send smaller calls"
            } else if bytes + size > Self.maxAnswerArgumentBytes {
                refusal =
                    "refused unread: this answer's arguments pass \(Self.maxAnswerArgumentBytes) bytes in all; send the rest in the next answer"
            }
            var call = call
            if refusal == nil {
                bytes += size
            } else {
                call.arguments = "{}"
            }
            kept.append(Kept(call: call, refusal: refusal))
        }
    }

    /// What the model is told after the tool answers when calls were dropped.
    package var droppedNote: String? {
        guard dropped > 0 else { return nil }
        return
            "Your last answer had \(kept.count + dropped) tool calls; only the first \(Self.maxCalls) were considered and the other \(dropped) were ignored. Send at most \(Self.maxCalls) tool calls per answer."
    }
}
