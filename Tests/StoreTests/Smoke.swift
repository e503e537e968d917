import Testing

@Test func StoreTestsBuilds() { #expect(Bool(true)) }
