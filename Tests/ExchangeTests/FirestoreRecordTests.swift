import Foundation
import JSON
import Planning
import ReplanTestSupport
import Testing

@testable import Exchange

/// One rule per test: how single records and values of the export are read.
@Suite struct FirestoreRecordTests {
    static let taipei = try! UserZone(identifier: "Asia/Taipei")

    static func parse(_ text: String) -> Result<Date, FieldProblem> {
        FirestoreInstant.parse(try! JSONValue(parsing: text))
    }

    /// A one-user collection tree with the given task documents and extra collections.
    static func tree(tasks: [String: String], extra: String = "") -> JSONValue {
        let docs = tasks.map { "\"\($0.key)\": \($0.value)" }.joined(separator: ",")
        return try! JSONValue(
            parsing: #"{"__collections__": {"tasks": {"u1": {"__collections__": {"userTasks": {\#(docs)}}}}\#(extra)}}"#
        )
    }

    static func convert(_ root: JSONValue, zone: UserZone = taipei) throws -> FirestoreImporter.Outcome {
        try FirestoreImporter(defaultZone: zone).convert(try FirestoreExport.users(in: root, source: nil))
    }

    /// A task document with every field the app required, overridden by `fields`.
    static func task(_ fields: String = "") -> String {
        let base =
            #""title": "英文", "color": {"red": 0.2, "green": 0.6, "blue": 0.3, "opacity": 1}, "focusTime": 0, "category": "英文", "isAllDay": false, "isCompleted": false, "repeatType": {"type": "none"}, "startDate": "2025-01-06T02:00:00.000Z", "endDate": "2025-01-06T03:00:00.000Z", "createdAt": "2025-01-01T00:00:00.000Z", "userId": "u1", "notificationEnabled": false"#
        guard !fields.isEmpty else { return "{\(base)}" }
        // Later keys would be duplicates (the parser refuses those), so replace them.
        var object = try! JSONValue(parsing: "{\(base)}").objectValue!
        for (k, v) in try! JSONValue(parsing: "{\(fields)}").objectValue! { object[k] = v }
        return JSONValue.object(object).text
    }

    @Test func isoStringsInUTCWithMillisecondsAndOffsets() throws {
        #expect(try Self.parse(#""2025-01-06T02:00:00.000Z""#).get() == Date(timeIntervalSince1970: 1_736_128_800))
        #expect(
            try Self.parse(#""2025-01-06T10:00:00.250+08:00""#).get() == Date(timeIntervalSince1970: 1_736_128_800.25))
        #expect(try Self.parse(#""2025-01-06T02:00:00Z""#).get() == Date(timeIntervalSince1970: 1_736_128_800))
    }

    @Test func bothFirestoreTimestampShapes() throws {
        #expect(
            try Self.parse(#"{"_seconds": 1736128800, "_nanoseconds": 500000000}"#).get()
                == Date(timeIntervalSince1970: 1_736_128_800.5))
        #expect(
            try Self.parse(#"{"seconds": 1736128800, "nanoseconds": 0}"#).get()
                == Date(timeIntervalSince1970: 1_736_128_800))
        #expect(
            try Self.parse(#"{"__time__": "2025-01-06T02:00:00.000Z"}"#).get()
                == Date(timeIntervalSince1970: 1_736_128_800))
        #expect(
            try Self.parse(#"{"__datatype__": "timestamp", "value": {"_seconds": 1736128800, "_nanoseconds": 0}}"#)
                .get() == Date(timeIntervalSince1970: 1_736_128_800))
    }

    @Test func valuesThatAreNoInstantAreProblemsNotCrashes() {
        for text in [
            #""2025-01-06""#, #""yesterday""#, #"{"_seconds": 1e300, "_nanoseconds": 0}"#, #"{"_seconds": 1.5}"#,
            #"{"_seconds": 1, "_nanoseconds": 1000000000}"#, #"{"_seconds": -1e300}"#, "12", "true",
            #""2025-01-06T02:00:00.1234567890Z""#, #"{"__time__": 5}"#, #""9999-12-31T23:59:59.999Z""#,
        ] {
            guard case .failure = Self.parse(text) else {
                Issue.record("\(text) was read as an instant")
                continue
            }
        }
    }

    @Test func coloursGoToTheNearestOfTheFour() {
        func c(_ text: String) -> TaskColor? { FirestoreTaskConverter.color(try! JSONValue(parsing: text)) }
        #expect(c(#"{"red": 0.7, "green": 0.16, "blue": 0.13, "opacity": 0.4}"#) == .red)
        #expect(c(#"{"red": 1, "green": 0.8, "blue": 0, "opacity": 1}"#) == .yellow)
        #expect(c(#"{"red": 0.1, "green": 0.7, "blue": 0.2, "opacity": 1}"#) == .green)
        #expect(c(#"{"red": 0, "green": 0.5, "blue": 1, "opacity": 1}"#) == .blue)
        #expect(c(#""0.85,0.65,0.13,1""#) == .yellow)
        #expect(c(#"{"red": 2, "green": 0, "blue": 0}"#) == nil)
        #expect(c(#"{"red": "x"}"#) == nil)
    }

    @Test func anAllDayTaskStoredAsTheStudentsMidnightKeepsTheirDate() throws {
        // Taipei's midnight of 1/10 is 16:00Z on 1/9: the stored UTC date is a day early.
        let out = try Self.convert(
            Self.tree(tasks: [
                "a": Self.task(
                    #""isAllDay": true, "startDate": "2025-01-09T16:00:00.000Z", "endDate": "2025-01-11T16:00:00.000Z""#
                )
            ]))
        let t = out.document.entries[0].tasks[0]
        #expect(
            t.start.description == "2025-01-10T00:00" && t.end.date.description == "2025-01-11",
            "the end midnight is exclusive")
        #expect(out.report.corrections.map(\.kind) == [.allDayDate])
    }

    @Test func anAllDayTaskStoredAsUTCMidnightKeepsThatDateInAnyZone() throws {
        let la = try UserZone(identifier: "America/Los_Angeles")
        let out = try Self.convert(
            Self.tree(tasks: [
                "a": Self.task(
                    #""isAllDay": true, "startDate": "2025-01-18T00:00:00.000Z", "endDate": "2025-01-18T00:00:00.000Z""#
                )
            ]), zone: la)
        let t = out.document.entries[0].tasks[0]
        #expect(t.start.date.description == "2025-01-18" && t.end.date.description == "2025-01-18")
        #expect(out.report.corrections.isEmpty)
    }

    @Test func aMonthlySeriesOnThe30thIsReportedAndHeldOnFebruarysLastDay() throws {
        let out = try Self.convert(
            Self.tree(tasks: [
                "m": Self.task(
                    #""repeatType": {"type": "monthly"}, "startDate": "2025-01-30T02:00:00.000Z", "endDate": "2025-01-30T03:00:00.000Z""#
                )
            ]))
        #expect(out.report.corrections.map(\.kind) == [.monthEnd])
        let task = out.document.entries[0].tasks[0]
        #expect(OccurrenceExpander.isRecurrenceDate(CivilDate("2025-02-28")!, of: task))
    }

    @Test func aTaskWithoutTitleOrReadableTimesIsNotImportedAndSaysWhy() throws {
        let out = try Self.convert(
            Self.tree(tasks: [
                "a": Self.task(#""title": "   ""#),
                "b": Self.task(#""endDate": {"_seconds": "soon"}"#),
                "c": Self.task(#""startDate": "2025-01-06T02:00:00.000Z", "endDate": "2025-01-16T02:00:00.000Z""#),
            ]))
        #expect(out.document.entries[0].tasks.isEmpty)
        #expect(
            out.report.omissions.map(\.path) == [
                "tasks/u1/userTasks/a", "tasks/u1/userTasks/b", "tasks/u1/userTasks/c",
            ])
        #expect(out.report.omissions[0].message == "title is empty")
        #expect(out.report.omissions[2].message.contains("longer than 7 days"))
    }

    @Test func aTaskTheAppDroppedIsImportedWithDefaultsAndReported() throws {
        let out = try Self.convert(
            Self.tree(tasks: [
                "a": Self.task(#""color": null, "isAllDay": "no", "repeatType": {"type": "yearly"}, "userId": 7"#)
            ]))
        let t = try #require(out.document.entries[0].tasks.first)
        #expect(t.color == .green && !t.allDay && t.repeatRule == nil)
        #expect(out.report.corrections.count == 1)
        #expect(out.report.corrections[0].kind == .droppedByApp)
        #expect(
            out.report.corrections[0].message.contains("color (missing)")
                && out.report.corrections[0].message.contains("userId (got a number)"))
    }

    @Test func onlyCompletedInstancesBecomeOverridesAndStrayOnesAreNamed() throws {
        let inst =
            #""__collections__": {"instances": {"i1": {"date": "2025-01-06T02:00:00.000Z", "isCompleted": true, "parentTaskId": "s"}, "i2": {"date": "2025-01-07T02:00:00.000Z", "isCompleted": false, "parentTaskId": "s"}, "i3": {"date": "2025-02-07T02:00:00.000Z", "isCompleted": true, "parentTaskId": "s"}, "i4": {"date": "2025-01-08T02:00:00.000Z", "isCompleted": true, "parentTaskId": "other"}}}"#
        let out = try Self.convert(
            Self.tree(tasks: [
                "s": Self.task(
                    #""repeatType": {"type": "daily"}, "repeatEndDate": "2025-01-31T02:00:00.000Z", \#(inst)"#)
            ]))
        #expect(out.document.entries[0].overrides.map(\.originalDate.description) == ["2025-01-06"])
        #expect(
            out.report.omissions.map(\.path) == [
                "tasks/u1/userTasks/s/instances/i3.date", "tasks/u1/userTasks/s/instances/i4",
            ])
    }

    @Test func numbersFromOutsideNeverCrashTheImport() throws {
        let extra =
            #", "studySettings": {"u1": {"studyDuration": 1e308, "selectedDays": [1e300, -3, 2], "dailyStartHours": {"2": 1e300}, "dailyEndMinutes": {"2": -1e300}}}, "settings": {"u1": {"notificationOffset": -1e308}}, "userStatistics": {"u1": {"__collections__": {"statistics": {"s": {"category": "英文", "focusTime": 1e308}, "t": {"category": "數學", "focusTime": -4}}}}}"#
        let out = try Self.convert(
            Self.tree(
                tasks: ["a": Self.task(#""focusTime": 1e308, "color": {"red": 1e308, "green": 0, "blue": 0}"#)],
                extra: extra))
        let e = out.document.entries[0]
        #expect(e.user.settings.sessionMinutes == 240)
        #expect(e.user.settings.reminderMinutes == 0)
        #expect(
            e.user.settings.windows.windows(on: .tue).map(\.description) == ["09:00-17:00"],
            "the app's defaults for unreadable times")
        #expect(e.focusSessions.reduce(0) { $0 + $1.minutes } == FirestoreImporter.maxFocusMinutes)
        #expect(out.report.omissions.contains { $0.path == "userStatistics/u1/statistics/t.focusTime" })
        #expect(out.report.omissions.contains { $0.path == "studySettings/u1.selectedDays[0]" })
    }

    /// Issue 28, item 11: each statistics document at the cap became 2,084 focus sessions, so
    /// a small export of many categories became millions of rows.
    @Test func oneStudentsFocusCountersExpandIntoABoundedNumberOfSessions() throws {
        let docs = (0..<200).map { #""c\#($0)": {"category": "科目\#($0)", "focusTime": 3000000}"# }
        let extra =
            #", "userStatistics": {"u1": {"__collections__": {"statistics": {\#(docs.joined(separator: ","))}}}}"#
        let out = try Self.convert(Self.tree(tasks: ["a": Self.task()], extra: extra))
        let sessions = out.document.entries[0].focusSessions
        #expect(sessions.count <= FirestoreImporter.maxFocusMinutes / 1440 + 1, "\(sessions.count) sessions")
        #expect(sessions.reduce(0) { $0 + $1.minutes } == FirestoreImporter.maxFocusMinutes)
        // The records cut short are named: the one that crossed the bound and every one after.
        let cut = out.report.corrections.filter { $0.message.contains("most replan keeps per student") }
        #expect(cut.count == 199)
        #expect(cut.first?.path == "userStatistics/u1/statistics/c1", "\(cut.first.map(\.path) ?? "none")")
        #expect(cut.first?.message.contains("kept 0") == true)
    }

    /// Issue 28, item 18: a reminder lead under a name the importer did not guess fell back to
    /// the default without a word, and every field it did not read vanished.
    @Test func everyFieldTheImportDoesNotUseIsListedAndAMissingLeadIsReported() throws {
        let extra =
            #", "settings": {"u1": {"notificationEnabled": true, "reminderLeadMinutes": 30}}, "userStatistics": {"u1": {"totalTokens": 9, "__collections__": {"statistics": {"s": {"category": "英文", "focusTime": 30, "taskCount": 2}}}}}"#
        let out = try Self.convert(
            Self.tree(tasks: ["a": Self.task(#""priority": 3"#), "b": Self.task(#""priority": 1"#)], extra: extra))
        #expect(out.document.entries[0].user.settings.reminderMinutes == UserSettings().reminderMinutes)
        let lead = out.report.corrections.first { $0.path == "settings/u1" }
        #expect(lead?.kind == .defaulted && lead?.message.contains("no reminder lead") == true, "\(out.report.lines)")
        let unused = Dictionary(uniqueKeysWithValues: out.report.notUsed.map { ($0.field, $0) })
        #expect(unused["settings/*.reminderLeadMinutes"]?.example == "settings/u1", "\(out.report.lines)")
        #expect(unused["settings/*.notificationEnabled"] == nil, "the name it used is not listed")
        #expect(unused["tasks/*/userTasks/*.priority"]?.documents == 2)
        #expect(unused["tasks/*/userTasks/*.createdAt"]?.documents == 2)
        #expect(unused["tasks/*/userTasks/*.title"] == nil)
        #expect(unused["userStatistics/*.totalTokens"] != nil)
        #expect(unused["userStatistics/*/statistics/*.taskCount"]?.message.contains("recounts") == true)
        #expect(out.report.lines.contains { $0.hasPrefix("fields not used") })
        #expect(out.report.json["notUsed"]?.arrayValue?.count == out.report.notUsed.count)
    }

    @Test func aCategoryReplanRefusesIsReplaced() throws {
        let out = try Self.convert(
            Self.tree(tasks: [
                "a": Self.task(#""title": "Reading", "category": "Uncategorized""#),
                "b": Self.task(
                    #""title": "Reading", "category": "English", "startDate": "2025-01-07T02:00:00.000Z", "endDate": "2025-01-07T03:00:00.000Z""#
                ),
                "c": Self.task(
                    #""title": "Walk", "category": "  ", "startDate": "2025-01-08T02:00:00.000Z", "endDate": "2025-01-08T03:00:00.000Z""#
                ),
            ]))
        #expect(
            out.document.entries[0].tasks.map(\.category) == [
                "English", "English", FirestoreImporter.replacementCategory,
            ])
        #expect(out.report.corrections.map(\.kind) == [.category, .category])
    }

    @Test func theStructureMustBeRightAndTheErrorNamesItsJSONPath() {
        func error(_ text: String) -> DataError? {
            do {
                _ = try FirestoreExport.users(in: try! JSONValue(parsing: text), source: nil)
                return nil
            } catch { return error }
        }
        #expect(error("[]")?.path == "")
        #expect(error(#"{"hello": 1}"#)?.message.contains("not a Firestore export") == true)
        #expect(error(#"{"__collections__": {"tasks": []}}"#)?.path == "__collections__.tasks")
        #expect(
            error(#"{"__collections__": {"tasks": {"u1": {"__collections__": {"userTasks": {"t1": 5}}}}}}"#)?.path
                == "__collections__.tasks.u1.__collections__.userTasks.t1")
        #expect(error(#"{"uid": "u1", "userTask": {}}"#)?.path == "userTask")
    }

    @Test func everyUserNeedsAZone() throws {
        let users = try FirestoreExport.users(in: Self.tree(tasks: ["a": Self.task()]), source: nil)
        #expect(throws: DataError.self) { try FirestoreImporter(defaultZone: nil).convert(users) }
        #expect(
            try FirestoreImporter(defaultZone: nil, zones: ["u1": Self.taipei]).convert(users).document.entries.count
                == 1)
    }

    @Test func aTaskIdTwoUsersShareIsAnError() throws {
        let root = try JSONValue(
            parsing:
                #"{"tasks": {"u1": {"userTasks": {"same": \#(Self.task())}}, "u2": {"userTasks": {"same": \#(Self.task())}}}}"#
        )
        #expect(throws: DataError.self) { try Self.convert(root) }
    }
}

extension FirestoreRecordTests {
    @Test func aUserIdReplanCannotHoldIsNamedAndTheOthersImport() throws {
        let root = try JSONValue(
            parsing:
                #"{"tasks": {"not a uid!": {"userTasks": {"a": \#(Self.task())}}, "u2": {"userTasks": {"b": \#(Self.task())}}}}"#
        )
        let out = try Self.convert(root)
        #expect(out.document.entries.map(\.user.id) == ["u2"])
        #expect(out.report.omissions.map(\.path) == ["tasks/not a uid!"])
    }
}

extension FirestoreRecordTests {
    @Test func aSeriesEndStoredAsUTCMidnightKeepsItsDateWestOfUTC() throws {
        let la = try UserZone(identifier: "America/Los_Angeles")
        let out = try Self.convert(
            Self.tree(tasks: [
                "s": Self.task(
                    #""repeatType": {"type": "daily"}, "startDate": "2025-01-06T17:00:00.000Z", "endDate": "2025-01-06T18:00:00.000Z", "repeatEndDate": "2025-01-31T00:00:00.000Z""#
                )
            ]), zone: la)
        #expect(out.document.entries[0].tasks[0].repeatRule?.until?.description == "2025-01-31")
    }
}
