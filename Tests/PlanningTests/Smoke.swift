import Testing

@Test func PlanningTestsBuilds() { #expect(Bool(true)) }
