import Testing

@Test func AssistantTestsBuilds() { #expect(Bool(true)) }
