import Foundation
import JSON

/// The body of one `POST /chat/completions`.
///
/// Always non-streaming with `tool_choice: "auto"` and `parallel_tool_calls: false` (both
/// left out when there are no tools: the API rejects them without `tools`). Decision: the
/// tools stay `strict` (arguments that always match the schema save the turns a malformed
/// call costs), and OpenAI documents strict tools as incompatible with parallel calls; every
/// edit tool takes a batch of items, so one call per turn loses nothing. It never sends
/// `temperature` or `max_tokens`: reasoning models reject both (see the fixtures
/// `error_400_temperature_unsupported_value.json`, `error_400_max_tokens_unsupported_parameter.json`);
/// the cap is `max_completion_tokens`. Keys are sorted so a stored body is reproducible.
package struct ChatCompletionRequest: Sendable, Equatable {
    package var model: String
    package var messages: [ChatMessage]
    package var tools: [ToolDefinition]
    /// Omitted when nil or empty.
    package var reasoningEffort: String?
    package var maxCompletionTokens: Int?
    /// Routes requests with the same prefix to the same cache (`prompt_cache_key`); omitted when nil.
    package var promptCacheKey: String?
    /// `service_tier` (e.g. `flex`), passed through when configured; omitted when nil or empty.
    package var serviceTier: String?

    package init(
        model: String,
        messages: [ChatMessage],
        tools: [ToolDefinition] = [],
        reasoningEffort: String? = nil,
        maxCompletionTokens: Int? = nil,
        promptCacheKey: String? = nil,
        serviceTier: String? = nil
    ) {
        self.model = model
        self.messages = messages
        self.tools = tools
        self.reasoningEffort = reasoningEffort
        self.maxCompletionTokens = maxCompletionTokens
        self.promptCacheKey = promptCacheKey
        self.serviceTier = serviceTier
    }

    /// A request with the model, effort and token cap of `configuration`.
    package init(
        configuration: ModelConfiguration, messages: [ChatMessage], tools: [ToolDefinition],
        promptCacheKey: String? = nil
    ) {
        self.init(
            model: configuration.model,
            messages: messages,
            tools: tools,
            reasoningEffort: configuration.reasoningEffort,
            maxCompletionTokens: configuration.maxCompletionTokens,
            promptCacheKey: promptCacheKey,
            serviceTier: configuration.serviceTier
        )
    }

    /// The JSON body, compact with sorted keys.
    package func encoded() throws(ModelCallError) -> Data {
        do {
            return try JSONCoding.encode(self)
        } catch {
            throw .invalidRequest(String(describing: error))
        }
    }
}

extension ChatCompletionRequest: Encodable {
    private enum CodingKeys: String, CodingKey {
        case model, messages, tools, stream
        case toolChoice = "tool_choice"
        case parallelToolCalls = "parallel_tool_calls"
        case reasoningEffort = "reasoning_effort"
        case maxCompletionTokens = "max_completion_tokens"
        case promptCacheKey = "prompt_cache_key"
        case serviceTier = "service_tier"
    }

    package func encode(to encoder: any Encoder) throws {
        var body = encoder.container(keyedBy: CodingKeys.self)
        try body.encode(model, forKey: .model)
        try body.encode(messages, forKey: .messages)
        try body.encode(false, forKey: .stream)
        if !tools.isEmpty {
            try body.encode(tools, forKey: .tools)
            try body.encode("auto", forKey: .toolChoice)
            try body.encode(false, forKey: .parallelToolCalls)
        }
        if let reasoningEffort, !reasoningEffort.isEmpty {
            try body.encode(reasoningEffort, forKey: .reasoningEffort)
        }
        try body.encodeIfPresent(maxCompletionTokens, forKey: .maxCompletionTokens)
        if let promptCacheKey, !promptCacheKey.isEmpty { try body.encode(promptCacheKey, forKey: .promptCacheKey) }
        if let serviceTier, !serviceTier.isEmpty { try body.encode(serviceTier, forKey: .serviceTier) }
    }
}
