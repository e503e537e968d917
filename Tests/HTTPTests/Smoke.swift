import Testing

@Test func HTTPTestsBuilds() { #expect(Bool(true)) }
