import Assistant
import Testing

@Suite("Prompt templates: every {{placeholder}} filled, unknown and missing ones refused")
struct PromptTemplateTests {
    @Test func fillsPlaceholdersInOrderAroundAnyText() throws {
        let t = PromptTemplate(name: "t.txt", text: "Bonjour {{name}} — 今日は{{date}}.{{plan}}{{plan}}\n")
        #expect(t.placeholders == ["name", "date", "plan", "plan"])
        let text = try t.render(["name": "Mei", "date": "2025-01-07", "plan": "{\"a\":1}"], required: ["plan"])
        #expect(text == "Bonjour Mei — 今日は2025-01-07.{\"a\":1}{\"a\":1}\n")
    }

    @Test func bracesWithoutAClosingPairAreText() throws {
        let t = PromptTemplate(name: "t.txt", text: "a {{{x}}} b {{ unclosed")
        #expect(t.placeholders == ["{x"])
        #expect(try t.render(["{x": "X"], required: []) == "a X} b {{ unclosed")
        #expect(try PromptTemplate(name: "t.txt", text: "").render([:], required: []) == "")
    }

    @Test func unknownAndMissingPlaceholdersAreRefused() {
        let t = PromptTemplate(name: "t.txt", text: "{{plan}} {{nope}}")
        #expect(throws: PromptError.unknownPlaceholder(template: "t.txt", placeholder: "nope", known: ["plan"])) {
            try t.render(["plan": "p"], required: ["plan"])
        }
        #expect(throws: PromptError.missingPlaceholder(template: "t.txt", placeholder: "plan")) {
            try PromptTemplate(name: "t.txt", text: "no plan here").render(["plan": "p"], required: ["plan"])
        }
    }
}
