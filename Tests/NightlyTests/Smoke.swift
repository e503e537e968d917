import Testing

@Test func NightlyTestsBuilds() { #expect(Bool(true)) }
