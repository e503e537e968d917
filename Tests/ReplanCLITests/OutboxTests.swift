import Foundation
import ReplanTestSupport
import Testing

/// The notification outbox as a push service consumes it (docs/outbox.md): rows after a
/// cursor, acknowledged through a cursor, no rows for reminders already past, and the
/// documented consumer (docs/outbox_consumer.py) run end to end.
@Suite struct OutboxTests {
    /// mei has notifications on (10 minutes); Monday's Math was missed (the night moves it
    /// forward) and Thursday's Physics is still ahead.
    static func studentWithNotifications() async throws -> Sandbox {
        let s = try Sandbox()
        try await s.ok(["user", "add", "mei", "--time-zone", "Asia/Taipei"])
        try await s.ok(["settings", "set", "--user", "mei", "--notifications", "on", "--reminder-minutes", "10"])
        try await s.addTask("math", "Math", "2025-01-06T10:00", "2025-01-06T11:00", category: "Math")
        try await s.addTask("phy", "Physics", "2025-01-09T14:00", "2025-01-09T15:00", category: "Physics")
        return s
    }

    static func entries(_ s: Sandbox, since: Int = 0) async throws -> (rows: [[String: Any]], next: Int) {
        let json = try await s.json(["outbox", "--since", String(since), "--json"])
        return ((json["entries"] as? [[String: Any]]) ?? [], json["next"] as? Int ?? -1)
    }

    @Test func aMoveOfAPastSessionSchedulesTheNewReminderAndCancelsNothingPast() async throws {
        let s = try await Self.studentWithNotifications()
        let before = try await Self.entries(s).rows.count
        try await s.ok(["run", "--no-model"])
        let rows = try await Self.entries(s).rows.filter { ($0["occurrenceId"] as? String) == "math" }
        #expect(rows.count >= 1, "\(rows)")
        #expect(
            rows.allSatisfy { $0["action"] as? String == "schedule" },
            "Monday's reminder is past: no cancel row: \(rows)")
        #expect(rows.allSatisfy { ($0["fireAt"] as? String ?? "") > "2025-01-06T19:00:00Z" }, "\(rows)")
        _ = before

        // A future session moved by hand: its reminder is withdrawn and set again.
        try await s.ok(["task", "edit", "phy", "--start", "2025-01-09T16:00", "--end", "2025-01-09T17:00"])
        let phy = try await Self.entries(s).rows.filter { ($0["occurrenceId"] as? String) == "phy" }.suffix(2)
        #expect(phy.map { $0["action"] as? String } == ["cancel", "schedule"], "\(phy)")
        #expect(phy.map { $0["fireAt"] as? String } == ["2025-01-09T05:50:00Z", "2025-01-09T07:50:00Z"], "\(phy)")
    }

    @Test func rowsComeAfterTheCursorAndAckRemovesThroughIt() async throws {
        let s = try await Self.studentWithNotifications()
        try await s.ok(["run", "--no-model"])
        try await s.ok(["task", "edit", "phy", "--start", "2025-01-09T16:00", "--end", "2025-01-09T17:00"])
        let all = try await Self.entries(s)
        let ids = all.rows.compactMap { $0["id"] as? Int }
        #expect(ids == ids.sorted() && ids.count >= 3 && all.next == ids.last, "\(all)")
        let first = try #require(ids.first)
        let later = try await Self.entries(s, since: first)
        #expect(later.rows.compactMap { $0["id"] as? Int } == Array(ids.dropFirst()))
        let acked = try await s.json(["outbox", "ack", String(first), "--json"])
        #expect(acked["removed"] as? Int == 1)
        #expect(try await Self.entries(s).rows.compactMap { $0["id"] as? Int } == Array(ids.dropFirst()))
        for bad in ["x", "1.5"] {
            let r = try await s.run(["outbox", "ack", bad])
            #expect(r.code == 65 && r.stderr.contains("CURSOR"), "\(bad): \(r)")
        }
    }

    @Test func theDocumentedConsumerDeliversEveryRowOnceAndAcknowledges() async throws {
        let s = try await Self.studentWithNotifications()
        try await s.ok(["run", "--no-model"])
        try await s.ok(["task", "edit", "phy", "--start", "2025-01-09T16:00", "--end", "2025-01-09T17:00"])
        let pending = try await Self.entries(s).rows
        let state = s.path("outbox.cursor")
        func consume() throws -> Outcome {
            try Outcome.of(
                "/usr/bin/env",
                [
                    "python3", TestFiles.path("docs/outbox_consumer.py"),
                    "--replan", "\(Binary.path) --db \(s.db)", "--state", state, "--batch", "2", "--once",
                ],
                environment: s.environment)
        }
        let run = try consume()
        #expect(run.code == 0 && run.stderr.isEmpty, "\(run)")
        let delivered = run.stdout.split(separator: "\n").compactMap {
            try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]
        }
        #expect(delivered.map { $0["occurrenceId"] as? String } == pending.map { $0["occurrenceId"] as? String })
        #expect(delivered.map { $0["action"] as? String } == pending.map { $0["action"] as? String })
        #expect(try await Self.entries(s).rows.isEmpty, "acknowledged in batches of 2")
        #expect(try String(contentsOfFile: state, encoding: .utf8) == "\(pending.last?["id"] as? Int ?? -1)\n")
        let again = try consume()
        #expect(again.code == 0 && again.stdout.isEmpty, "nothing is delivered twice: \(again)")
    }

    /// Issue 25: a changed night writes the student's morning note, at their morning time, with
    /// the changeset that takes it back; `replan note` prints the same; an undo writes a note
    /// of its own at once, and the consumer delivers both.
    @Test func aChangedNightWritesTheMorningNoteAndItsUndoAnother() async throws {
        let s = try await Self.studentWithNotifications()
        let run = try await s.json(["run", "--no-model", "--json"])
        let cs = try #require((run["users"] as? [[String: Any]])?.first?["changesetId"] as? String)
        let notes = try await Self.entries(s).rows.filter { $0["kind"] as? String == "note" }
        #expect(notes.count == 1, "\(notes)")
        let note = try #require(notes.first)
        #expect(note["fireAt"] as? String == "2025-01-06T23:30:00Z", "07:30 in Taipei: \(note)")
        #expect(note["occurrenceId"] is NSNull && note["taskId"] is NSNull && note["changesetId"] as? String == cs)
        #expect(note["title"] as? String == "Your plan for Tue 7 Jan: 1 change")
        let body = try #require(note["body"] as? String)
        #expect(body.contains("- Math, missed Mon 6 Jan: now Tue 7 Jan 10:00–11:00"), "\(body)")
        #expect(body.hasSuffix("Changeset \(cs) takes this night back."), "the id is the committed one: \(body)")
        #expect(try await s.ok(["note", "--user", "mei"]) == "Your plan for Tue 7 Jan: 1 change\n\n\(body)\n")
        let reminders = try await Self.entries(s).rows.filter { $0["kind"] as? String == "reminder" }
        #expect(!reminders.isEmpty && reminders.allSatisfy { $0["title"] == nil })

        try await s.ok(["undo", cs, "--yes"])
        let undone = try #require(try await Self.entries(s).rows.last)
        #expect(undone["kind"] as? String == "note" && undone["changesetId"] as? String == cs)
        #expect(undone["title"] as? String == "Last night's changes were taken back")
        #expect(undone["fireAt"] as? String == "2025-01-06T19:00:00Z", "at once: \(undone)")

        let consumed = try Outcome.of(
            "/usr/bin/env",
            [
                "python3", TestFiles.path("docs/outbox_consumer.py"), "--replan", "\(Binary.path) --db \(s.db)",
                "--state", s.path("outbox.cursor"), "--once",
            ],
            environment: s.environment)
        let delivered = consumed.stdout.split(separator: "\n").compactMap {
            try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]
        }
        #expect(
            delivered.filter { $0["kind"] as? String == "note" }.map { $0["title"] as? String } == [
                "Your plan for Tue 7 Jan: 1 change", "Last night's changes were taken back",
            ], "\(consumed)")
    }

    /// The morning time is the student's; a night committed after it is told at once, and a
    /// student without notifications gets no note row.
    @Test func aNoteIsNeverDueBeforeItsNightAndOnlyWithNotifications() async throws {
        let s = try await Self.studentWithNotifications()
        try await s.ok(["settings", "set", "--user", "mei", "--morning-time", "02:00"])
        try await s.ok(["user", "add", "bob", "--time-zone", "Asia/Taipei"])
        try await s.addTask("bob-math", "Math", "2025-01-06T10:00", "2025-01-06T11:00", category: "Math", user: "bob")
        try await s.ok(["run", "--no-model"])
        let notes = try await Self.entries(s).rows.filter { $0["kind"] as? String == "note" }
        #expect(notes.map { $0["user"] as? String } == ["mei"], "\(notes)")
        #expect(notes.first?["fireAt"] as? String == "2025-01-06T19:00:00Z", "the commit, not 02:00: \(notes)")
        let settings = try await s.json(["settings", "show", "--user", "mei", "--json"])
        #expect((settings["settings"] as? [String: Any])?["morningTime"] as? String == "02:00")
        let bad = try await s.run(["settings", "set", "--user", "mei", "--morning-time", "7h"])
        #expect(bad.code == 65, "\(bad)")
    }

    /// Issue 28, items 1 and 2, as the review found them: the shipped consumer after each of
    /// several nights, acknowledging everything (so the table is empty before every night),
    /// with a prune in between. Every row ever written is delivered exactly once. A trigger
    /// of the test's own logs every id inserted.
    @Test func theConsumerGetsEveryRowOfSeveralNightsExactlyOnce() async throws {
        let s = try Sandbox()
        let students = ["ann", "bo", "cy", "di"]
        for u in students {
            try await s.ok(["user", "add", u, "--time-zone", "Asia/Taipei"])
            try await s.ok(["settings", "set", "--user", u, "--notifications", "on", "--reminder-minutes", "10"])
            for (i, day) in ["06", "07", "08", "09", "10"].enumerated() {
                try await s.addTask(
                    "\(u)-t\(i)", "Topic \(i)", "2025-01-\(day)T10:00", "2025-01-\(day)T11:00", category: "C\(i)",
                    user: u)
            }
        }
        try SQL.execute(
            s.db,
            """
            CREATE TABLE test_outbox_log (id INTEGER NOT NULL, row TEXT NOT NULL);
            CREATE TRIGGER test_outbox_logged AFTER INSERT ON notification_outbox WHEN new.kind = 'reminder'
                BEGIN INSERT INTO test_outbox_log (id, row) VALUES
                    (new.id, new.user_id || ' ' || new.occurrence_id || ' ' || new.action || ' ' || new.fire_at); END;
            """)
        let state = s.path("outbox.cursor")
        var delivered: [String] = []
        func consume() throws {
            let run = try Outcome.of(
                "/usr/bin/env",
                [
                    "python3", TestFiles.path("docs/outbox_consumer.py"),
                    "--replan", "\(Binary.path) --db \(s.db)", "--state", state, "--batch", "3", "--once",
                ],
                environment: s.environment)
            #expect(run.code == 0, "\(run)")
            delivered += run.stdout.split(separator: "\n").compactMap {
                // The nights' morning notes are delivered too; this test follows the reminders.
                guard let row = try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any],
                    row["kind"] as? String != "note"
                else {
                    return nil
                }
                return ["user", "occurrenceId", "action", "fireAt"].map { row[$0] as? String ?? "?" }
                    .joined(separator: " ")
            }
        }
        try consume()
        for night in ["2025-01-07", "2025-01-08", "2025-01-09", "2025-01-10"] {
            let now = "\(night)T03:00:00+08:00"
            try await s.ok(["run", "--no-model"], environment: ["REPLAN_NOW": now])
            try await s.ok(["prune", "--older-than", "1"], environment: ["REPLAN_NOW": now])
            try consume()
            #expect(try SQL.int(s.db, "SELECT count(*) FROM notification_outbox") == 0, "all acknowledged")
        }
        let written = try SQL.rows(s.db, "SELECT row FROM test_outbox_log ORDER BY id").map {
            $0.trimmingCharacters(in: CharacterSet(charactersIn: "'"))
        }
        let ids = try SQL.rows(s.db, "SELECT id FROM test_outbox_log ORDER BY rowid")
        #expect(written.count > 8, "the nights wrote reminders: \(written)")
        #expect(delivered.suffix(written.count) == written[...], "every row of the nights once, in order")
        #expect(Set(ids).count == ids.count, "no id was handed out twice: \(ids)")
    }

    /// A cursor beyond every id this outbox wrote is refused with what to do, instead of
    /// silently waiting for ids above it.
    @Test func aCursorFromElsewhereIsRefused() async throws {
        let s = try await Self.studentWithNotifications()
        try await s.ok(["run", "--no-model"])
        let r = try await s.run(["outbox", "--since", "100000"])
        #expect(r.code == 65 && r.stderr.contains("beyond the highest outbox id"), "\(r)")
    }
}
