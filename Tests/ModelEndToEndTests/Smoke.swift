import Testing

@Test func modelEndToEndTestsBuild() { #expect(Bool(true)) }
