import Foundation
import Testing

@testable import Assistant

@Suite struct ModelConfigurationTests {
    @Test func defaultsFollowTheSpec() {
        let configuration = ModelConfiguration(apiKey: Secret("k"))
        #expect(configuration.baseURL == "https://api.openai.com/v1")
        #expect(configuration.model == "gpt-5.1")
        #expect(configuration.reasoningEffort == "low")
        #expect(configuration.maxCompletionTokens == 8000)
        #expect(configuration.connectTimeout == 10)
        #expect(configuration.requestTimeout == 120)
        #expect(configuration.maxResponseBytes == 8 * 1024 * 1024)
    }

    @Test(arguments: ["http://localhost:11434/v1", "http://localhost:11434/v1/", "http://localhost:11434/v1//"])
    func completionsURLIgnoresTrailingSlashes(baseURL: String) {
        let configuration = ModelConfiguration(apiKey: Secret(""), baseURL: baseURL)
        #expect(configuration.completionsURL == "http://localhost:11434/v1/chat/completions")
    }

    @Test func keyNeverPrints() {
        let key = "sk-proj-SECRET123"
        let configuration = ModelConfiguration(apiKey: Secret(key))
        var dumped = ""
        dump(configuration, to: &dumped)
        for text in [
            "\(configuration.apiKey)", String(describing: configuration), String(reflecting: configuration),
            String(reflecting: configuration.apiKey), dumped,
        ] {
            #expect(!text.contains(key), "\(text)")
        }
        #expect("\(configuration.apiKey)" == "<redacted>")
        #expect(configuration.apiKey.unredactedValue == key)
    }

    @Test func keyReadFromAFileLosesItsNewline() {
        #expect(Secret("  sk-abc\n").unredactedValue == "sk-abc")
        #expect(Secret("sk-abc\r\n").redact("echo: sk-abc") == "echo: <redacted>")
    }

    @Test func redactionReplacesEveryOccurrence() {
        let secret = Secret("abc")
        #expect(secret.redact("abc-xabc-abcabc") == "<redacted>-x<redacted>-<redacted><redacted>")
        #expect(secret.redact(Data("[abc][abc]".utf8)) == Data("[<redacted>][<redacted>]".utf8))
        #expect(Secret("").redact("abc") == "abc")
    }

    @Test func usageSums() {
        let first = TokenUsage(prompt: 100, completion: 20, reasoning: 5, cached: 64)
        var total = TokenUsage.zero
        total += first
        total += TokenUsage(prompt: 1, completion: 2, reasoning: 3, cached: 4, total: 10)
        #expect(total == TokenUsage(prompt: 101, completion: 22, reasoning: 8, cached: 68, total: 130))
    }
}
