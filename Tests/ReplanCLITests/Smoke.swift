import Testing

@Test func ReplanCLITestsBuilds() { #expect(Bool(true)) }
