import Foundation
import Nightly
import Planning
import ReplanTestSupport
import Store
import Testing

@Suite("Export as a use case: a replan/1 document that imports back, an iCalendar range")
struct ExporterTests {
    @Test("the document of a student imports into another database unchanged")
    func roundTrip() throws {
        let f = try NightlyFixture()
        try f.addStudents(1)
        let document = try Exporter(database: try f.database()).document(userID: "s0")
        #expect(document["users"]?.arrayValue?.count == 1)
        let other = try NightlyFixture()
        let file = other.directory.appendingPathComponent("s0.json").path
        #expect(FileManager.default.createFile(atPath: file, contents: Data(document.prettyText.utf8)))
        let input = try ImportInput.replan(file, now: NightlyFixture.now)
        let imported = try Importer(database: try other.database(), now: NightlyFixture.now).commit(input, source: file)
        #expect(imported.map(\.tasks) == [5])
        #expect(try Exporter(database: try other.database()).document(userID: "s0") == document)
    }

    @Test(
        "iCalendar lists the range's sessions; a range that ends before it starts is bad input",
        arguments: EngineUnderTest.engines)
    func calendar(_ engine: DatabaseEngine) throws {
        let f = try NightlyFixture(engine: engine)
        try f.addStudents(1)
        let exporter = Exporter(database: try f.database())
        let ics = try exporter.calendar(userID: "s0", from: nil, to: nil, now: NightlyFixture.now)
        #expect(ics.hasPrefix("BEGIN:VCALENDAR"))
        #expect(ics.components(separatedBy: "BEGIN:VEVENT").count - 1 == 5)
        #expect(throws: UseCaseError.badInput("--from 2025-01-10 is after --to 2025-01-08")) {
            try exporter.calendar(
                userID: "s0", from: CivilDate("2025-01-10"), to: CivilDate("2025-01-08"), now: NightlyFixture.now)
        }
    }
}
