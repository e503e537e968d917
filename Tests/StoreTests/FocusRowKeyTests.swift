import Planning
import Testing

@testable import Store

@Suite struct FocusRowKeyTests {
    @Test(arguments: ["English", "數學", "a|b", "", "|"])
    func roundTripsAnyCategory(category: String) throws {
        let start = try #require(CivilDateTime("2025-01-06T10:00"))
        let key = FocusRowKey(start: start, minutes: 25, category: category)
        #expect(key.description == "2025-01-06T10:00|25|\(category)")
        #expect(FocusRowKey(key.description) == key)
    }

    @Test(arguments: [
        "", "2025-01-06T10:00", "2025-01-06T10:00|25", "yesterday|25|English", "2025-01-06T10:00|x|English",
    ])
    func refusesWhatIsNotAKey(text: String) {
        #expect(FocusRowKey(text) == nil)
    }

    @Test func anImageCountsItsSessionsAndNoneIsAbsent() throws {
        let key = FocusRowKey(start: try #require(CivilDateTime("2025-01-06T10:00")), minutes: 25, category: "English")
        #expect(key.image(userID: "mei", count: 0) == nil)
        #expect(FocusRowKey.count(of: key.image(userID: "mei", count: 3)) == 3)
        #expect(FocusRowKey.count(of: nil) == 0)
    }
}
