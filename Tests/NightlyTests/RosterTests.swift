import Foundation
import Nightly
import Planning
import ReplanTestSupport
import Store
import Testing

@Suite("Students and their settings as a use case")
struct RosterTests {
    @Test(
        "add, list, settings saved and read back, remove; a second add of an id is bad input",
        arguments: EngineUnderTest.engines)
    func lifecycle(_ engine: DatabaseEngine) throws {
        let f = try NightlyFixture(engine: engine)
        let roster = Roster(database: try f.database())
        let mei = try User(id: "mei", zone: UserZone(identifier: "Asia/Taipei"))
        try roster.add(mei, now: NightlyFixture.now)
        #expect(throws: UseCaseError.badInput("user 'mei' already exists")) {
            try roster.add(mei, now: NightlyFixture.now)
        }
        var settings = try roster.settings(of: "mei")
        settings.sessionMinutes = 45
        try roster.save(settings, of: "mei")
        #expect(try roster.settings(of: "mei").sessionMinutes == 45)
        #expect(try roster.list().map(\.id) == ["mei"])
        try roster.remove("mei")
        #expect(try roster.list().isEmpty)
        #expect(throws: UseCaseError.badInput("no user 'mei'")) { try roster.user("mei") }
    }
}
