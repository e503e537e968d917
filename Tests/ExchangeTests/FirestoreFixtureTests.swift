import Foundation
import JSON
import Planning
import ReplanTestSupport
import Testing

@testable import Exchange

/// The hand-written export of the original app (`Tests/Fixtures/firestore/firestore-export.json`: three
/// students, Chinese titles, series with completed instances, all-day tasks, a task with bad
/// fields, ISO strings and both Firestore timestamp shapes) imports exactly as documented in
/// `Tests/Fixtures/firestore/firestore-expected.json`, with the corrections listed below.
@Suite struct FirestoreFixtureTests {
    static let fixtures = TestFiles.fixture("firestore")
    static let taipei = try! UserZone(identifier: "Asia/Taipei")
    static let losAngeles = try! UserZone(identifier: "America/Los_Angeles")
    static let mei = "Vq3LmX9aTbR2cP7sKd1EwY5uN8f2", kai = "h7RkP2sQ9vXw4LmN0bTz6YcE1aJ3",
        yu = "Qm4TzN8cVb2XyL6pRw0sKd3EuA9h"

    static func json(_ name: String) throws -> JSONValue {
        try JSONValue(parsing: try Data(contentsOf: fixtures.appendingPathComponent(name)))
    }

    static func importFixture() throws -> FirestoreImporter.Outcome {
        let users = try FirestoreExport.users(in: try json("firestore-export.json"), source: nil)
        return try FirestoreImporter(defaultZone: taipei, zones: [kai: losAngeles]).convert(users)
    }

    @Test func theFixtureImportsAsTheExpectedDocument() throws {
        let got = try Self.importFixture().document.json
        let expected = try Self.json("firestore-expected.json")
        #expect(got == expected, "got:\n\(got.prettyText)")
    }

    @Test func theResultIsAValidReplanDocument() throws {
        // What the importer hands to the commit path reads back through replan/1's own
        // validation unchanged, so the Firestore import writes nothing replan/1 could not.
        let document = try Self.importFixture().document
        let decoded = try ReplanDocumentDecoder(now: Date(timeIntervalSince1970: 0)).decode(document.json)
        #expect(decoded.json == document.json)
    }

    @Test func theReportListsEveryCorrectionWithItsPath() throws {
        let report = try Self.importFixture().report
        let got = Set(report.corrections.map { "\($0.kind.rawValue) \($0.path)" })
        let expected: Set<String> = [
            "month-end tasks/\(Self.mei)/userTasks/t02MathMonthly",
            "all-day-date tasks/\(Self.mei)/userTasks/t03SportsDay.startDate",
            "dropped-by-app tasks/\(Self.mei)/userTasks/t07Quiz",
            "dropped-by-app tasks/\(Self.yu)/userTasks/c2Kana",
            "category tasks/\(Self.mei)/userTasks/t03SportsDay.category",
            "category tasks/\(Self.mei)/userTasks/t05Vocab.category",
            "category userStatistics/\(Self.kai)/statistics/misc.category",
            "adjusted settings/\(Self.yu).notificationOffset",
            "adjusted studySettings/\(Self.kai).studyDuration",
            "adjusted tasks/\(Self.kai)/userTasks/p3Calculus.title",
        ]
        #expect(got == expected)
        #expect(report.corrections.count == expected.count)
    }

    @Test func theReportSaysWhyForEachCorrection() throws {
        let report = try Self.importFixture().report
        func message(_ path: String) -> String { report.corrections.first { $0.path.hasSuffix(path) }?.message ?? "" }
        #expect(
            message("t03SportsDay.startDate")
                == "stored as 2025-01-09T16:00:00.000Z, whose UTC date is 2025-01-09; the student's day in Asia/Taipei is 2025-01-10"
        )
        #expect(message("t02MathMonthly").contains("only in months that have a day 31"))
        #expect(
            message("t07Quiz")
                == "the app could not read color (missing), createdAt (missing) and silently dropped this task; imported with colour green"
        )
        #expect(message("t05Vocab.category").contains("filed under '英文'"))
        #expect(message("t03SportsDay.category").contains("filed under '其他'"))
    }

    @Test func theReportListsEveryRecordNotImported() throws {
        let report = try Self.importFixture().report
        #expect(
            report.omissions.map(\.path) == [
                "tasks/\(Self.yu)/userTasks/c1Reading",
                "tasks/\(Self.yu)/userTasks/c3Words/instances/stray",
                "tasks/\(Self.mei)/userTasks/t06Broken",
                "studySettings/\(Self.kai).selectedDays[3]",
                "studySettings/\(Self.kai).dailyEndHours.5",
            ])
        #expect(report.omissions[2].message.contains("startDate 'yesterday' is not an ISO-8601 instant"))
        #expect(report.omissions[2].message.contains("the app could not read it either"))
    }

    @Test func aPerUserDocumentImportsLikeTheCollectionTree() throws {
        // The per-user shape, with subcollections inline instead of under __collections__.
        let tree = try Self.json("firestore-export.json")["__collections__"]!
        func inline(_ v: JSONValue) -> JSONValue {
            guard case .object(var o) = v else { return v }
            if case .object(let subs)? = o.removeValue(forKey: "__collections__") {
                for (k, sub) in subs { o[k] = sub }
            }
            return .object(o.mapValues(inline))
        }
        var perUser: [String: JSONValue] = ["uid": .string(Self.kai)]
        perUser["userTasks"] = inline(tree["tasks"]![Self.kai]!)["userTasks"]
        perUser["studySettings"] = inline(tree["studySettings"]![Self.kai]!)
        perUser["userStatistics"] = inline(tree["userStatistics"]![Self.kai]!)
        let users = try FirestoreExport.users(in: .object(perUser), source: "kai.json")
        let outcome = try FirestoreImporter(defaultZone: Self.losAngeles).convert(users)
        let expected = try Self.json("firestore-expected.json")["users"]!.arrayValue![2]
        #expect(outcome.document.json["users"]!.arrayValue! == [expected])
        // Paths name the file the record came from.
        #expect(outcome.report.corrections.allSatisfy { $0.path.hasPrefix("kai.json:") })
    }

    @Test func importingTwiceGivesTheSameDocument() throws {
        // Ids are the Firestore document ids and nothing depends on the clock, so a second
        // import hands the commit path the same rows (which it then finds unchanged).
        #expect(try Self.importFixture().document == Self.importFixture().document)
    }
}
