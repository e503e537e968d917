import Foundation
import JSON
import Planning
import ReplanTestSupport
import Testing

@testable import Nightly

@Suite("The report's edits are written as text directly, with the bytes their JSON values give")
struct EditReportTests {
    static func range(_ start: String, _ end: String) -> TimeRange {
        TimeRange(start: CivilDateTime(start)!, end: CivilDateTime(end)!)
    }

    static let edits: [PlanEdit] = [
        PlanEdit(
            op: .move, id: OccurrenceID(taskID: "vocab", originalDate: CivilDate("2025-01-06")), title: "Vocabulary",
            before: range("2025-01-06T07:00", "2025-01-06T07:30"), after: range("2025-01-07T19:00", "2025-01-07T19:30"),
            reason: .chainShift),
        PlanEdit(
            op: .delete, id: OccurrenceID(taskID: "t-1"), title: "Essay \"draft\"\\ line\nbreak\ttab \u{1} 社團 📖",
            before: range("2024-12-20T10:00", "2024-12-20T11:00"), after: nil, reason: .droppedStale),
        PlanEdit(
            op: .move, id: OccurrenceID(taskID: "t-2"), title: "", before: nil,
            after: range("2025-01-08T00:00", "2025-01-09T00:00"),
            reason: .model, detail: "asked to \"move\" it"),
    ]

    @Test("the edits' text equals the text of their JSON values, escapes and all")
    func editsTextEqualsValueText() {
        #expect(
            EditReport.editsText(EditReportTests.edits)
                == JSONValue.array(EditReportTests.edits.map(EditReport.edit)).text)
        #expect(EditReport.editsText([]) == "[]")
        #expect(
            EditReport.editsText([EditReportTests.edits[0]])
                == JSONValue.array([EditReport.edit(EditReportTests.edits[0])]).text)
    }

    @Test("an object with one member given as text equals the object's text, wherever the member sorts")
    func objectWithARawMember() {
        let members: [String: JSONValue] = [
            "flags": [], "model": ["called": false], "now": "2025-01-14T04:00", "summary": ["dropped": 1],
        ]
        let edits = JSONValue.array(EditReportTests.edits.map(EditReport.edit))
        for key in ["edits", "a", "m", "zz", "now"] {
            var whole = members
            whole[key] = edits
            #expect(
                JSONValue.text(ofObject: members, adding: key, rawValue: edits.text) == JSONValue.object(whole).text,
                "\(key)")
        }
        #expect(JSONValue.text(ofObject: [:], adding: "edits", rawValue: "[]") == #"{"edits":[]}"#)
    }
}
