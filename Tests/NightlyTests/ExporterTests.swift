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

    /// The iCalendar text with its folded lines joined (RFC 5545 §3.1), one line per element.
    static func unfolded(_ ics: String) -> [String] {
        ics.replacingOccurrences(of: "\r\n ", with: "").components(separatedBy: "\r\n")
    }

    /// The DESCRIPTION of the event `uid` in `ics`, nil when it has none.
    static func description(of uid: String, in ics: String) -> String? {
        let lines = unfolded(ics)
        guard let start = lines.firstIndex(of: "UID:\(uid)") else { return nil }
        let event = lines[start...].prefix { $0 != "END:VEVENT" }
        return event.first { $0.hasPrefix("DESCRIPTION:") }.map { String($0.dropFirst("DESCRIPTION:".count)) }
    }

    /// docs/planning.md §12, the feed's line: a session says why and from where its latest
    /// move took it, whichever night made that move, until it is done or moves again.
    @Test(
        "the feed tells of a session's latest move, made last night or on an earlier one, until it is done or moves again",
        arguments: EngineUnderTest.engines)
    func theFeedTellsOfTheLatestMove(_ engine: DatabaseEngine) throws {
        let f = try NightlyFixture(engine: engine)
        let db = try f.connect()
        // A daily course series 1/1–1/31 (1/1–1/5 done): each missed day is added after its end.
        let vocab = Fx.task(
            "vocab", "Vocab", "2025-01-01T20:00", "2025-01-01T20:30", category: "English",
            repeat: RepeatRule(every: .daily, until: CivilDate("2025-01-31")))
        // A one-off missed on Monday, made up on Tuesday, missed again and made up on Wednesday.
        let essay = Fx.task("essay", "Essay", "2025-01-06T16:00", "2025-01-06T17:00", category: "Writing")
        // Made up on Tuesday and done that day.
        let lab = Fx.task("lab", "Lab", "2025-01-06T10:00", "2025-01-06T11:00", category: "Physics")
        try f.add(
            Fx.plan(
                [vocab, essay, lab],
                overrides: (1...5).map {
                    OccurrenceOverride(taskID: "vocab", originalDate: date("2025-01-0\($0)"), state: .completed)
                }), to: db)
        let tuesday = NightlyFixture.now
        let wednesday = tuesday.addingTimeInterval(86_400)
        _ = try NightlyRunner(
            databasePath: f.path, pipeline: UserPipeline(reviewer: nil), options: RunOptions(now: tuesday)
        ).run()
        let database = try f.database()
        var lab2 = try #require(try PlanRepository(db).task(id: "lab"))
        #expect(lab2.start == CivilDateTime("2025-01-07T10:00"))
        lab2.completed = true
        let before = try PlanRepository(db).loadPlan(userID: "mei", window: nil)
        var after = before
        after.put(lab2)
        _ = try ChangesetStore(db).commit(
            NewChangeset(
                userID: "mei", origin: .manual, planDate: nil, createdAt: tuesday.addingTimeInterval(3_600),
                changes: PlanDiff.changes(from: before, to: after, now: tuesday) { _, _ in "manual" }))
        _ = try NightlyRunner(
            databasePath: f.path, pipeline: UserPipeline(reviewer: nil), options: RunOptions(now: wednesday)
        ).run()
        let ics = try Exporter(database: database).calendar(
            userID: "mei", from: CivilDate("2025-01-06"), to: CivilDate("2025-02-05"), now: wednesday)
        // Moved on Tuesday night, not on Wednesday's: still said (iCalendar escapes the comma).
        #expect(
            Self.description(of: "vocab@2025-01-06@mei.replan", in: ics)
                == "moved from Mon 6 Jan: missed\\, added after the course's end", "\(ics)")
        #expect(
            Self.description(of: "vocab@2025-01-07@mei.replan", in: ics)
                == "moved from Tue 7 Jan: missed\\, added after the course's end")
        // Moved on both nights: the latest move.
        #expect(Self.description(of: "essay@mei.replan", in: ics) == "moved from Tue 7 Jan: missed")
        // Done: nothing more to say.
        #expect(Self.description(of: "lab@mei.replan", in: ics) == nil)
    }
}
