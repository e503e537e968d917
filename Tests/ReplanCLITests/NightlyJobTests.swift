import Foundation
import ReplanTestSupport
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// `replan run` and `preview` through the binary: docs/planning.md §9's worked examples, who is
/// due, once per plan date, the run lock, and reminders in the notification outbox.
@Suite struct NightlyJobTests {
    /// Imports `document` into the sandbox's database.
    static func seeded(_ document: [String: Any], now: String? = Sandbox.tuesdayNight) async throws -> Sandbox {
        let s = try Sandbox(now: now)
        try await s.ok(["import", s.writeJSON("seed.json", document)])
        return s
    }

    static func users(_ run: [String: Any]) -> [String] { run.array("users").compactMap { $0.string("user") } }

    /// docs/planning.md §9.2.
    @Test func workedExample2ThroughTheBinary() async throws {
        let s = try await Self.seeded(Documents.document([Documents.englishWeek()]))
        let run = try await s.json(["run", "--no-model", "--json"])
        #expect(run.string("schema") == "replan.run/1")
        let entries = run.array("users")
        try #require(entries.count == 1)
        let e = entries[0]
        for key in ["user", "planDate", "now", "status", "changesetId", "edits", "flags", "summary", "model"] {
            #expect(e[key] != nil, "run --json entries carry \(key)")
        }
        #expect(
            e.string("user") == "mei" && e.string("planDate") == "2025-01-07" && e.string("now") == "2025-01-07T03:00")
        #expect(e.string("status") == "changed")
        let cs = try #require(e.string("changesetId"))
        #expect(e.array("flags").isEmpty)
        let summary = try #require(e.object("summary"))
        #expect(
            summary.int("dropped") == 0 && summary.int("rescheduled") == 5 && summary.int("chained") == 5, "Y=5, Z=5")
        let model = try #require(e.object("model"))
        #expect(model.bool("called") == false)

        // Mon→Tue, Tue→Wed, Wed→Thu, Thu→Fri, Fri→Mon 1/13 (no window on the weekend), all 10:00.
        let expected: [(String, String, String, String)] = [
            ("mei-eng-1", "2025-01-06T10:00", "2025-01-07T10:00", "make-up"),
            ("mei-eng-2", "2025-01-07T10:00", "2025-01-08T10:00", "chain-shift"),
            ("mei-eng-3", "2025-01-08T10:00", "2025-01-09T10:00", "chain-shift"),
            ("mei-eng-4", "2025-01-09T10:00", "2025-01-10T10:00", "chain-shift"),
            ("mei-eng-5", "2025-01-10T10:00", "2025-01-13T10:00", "chain-shift"),
        ]
        let edits = e.array("edits")
        #expect(edits.count == expected.count)
        for (id, before, after, reason) in expected {
            guard let edit = edits.first(where: { $0.string("id") == id }) else {
                Issue.record("no edit for \(id)")
                continue
            }
            #expect(edit.string("op") == "move" && edit.string("title") == "English reading", "\(id)")
            #expect(
                edit.object("before")?.string("start") == before && edit.object("after")?.string("start") == after,
                "\(id)")
            #expect(
                edit.object("after")?.string("end") == after.replacingOccurrences(of: "T10:00", with: "T11:00"), "\(id)"
            )
            #expect(edit.string("reason") == reason, "\(id)")
        }
        // The database agrees, and the changeset is on record.
        #expect(
            try SQL.rows(s.db, "SELECT id, start FROM tasks ORDER BY id").map {
                $0.replacingOccurrences(of: "'", with: "")
            }
                == expected.map { "\($0.0)|\($0.2)" })
        #expect(
            try SQL.value(s.db, "SELECT origin || ' ' || state || ' ' || plan_date FROM changesets WHERE id = '\(cs)'")
                == "nightly applied 2025-01-07")
        #expect(try SQL.value(s.db, "SELECT status || ' ' || changeset_id FROM user_runs") == "changed \(cs)")
        #expect(run.object("counts")?.int("due") == 1 && run.object("counts")?.int("changed") == 1)
    }

    /// docs/planning.md §9.5.
    @Test func workedExample5ACourseSeriesAppendsTheMissedSessionAfterItsEnd() async throws {
        let vocab: [String: Any] = [
            "id": "vocab", "title": "Vocab", "category": "English", "start": "2025-01-01T20:00",
            "end": "2025-01-01T20:30",
            "repeat": ["every": "daily", "until": "2025-01-31"],
            "occurrences": (1...5).map { ["date": String(format: "2025-01-%02d", $0), "state": "completed"] },
        ]
        let s = try await Self.seeded(Documents.document([["id": "mei", "timeZone": "Asia/Taipei", "tasks": [vocab]]]))
        let overrides = try SQL.int(s.db, "SELECT count(*) FROM occurrence_overrides")
        let e = try #require(try await s.json(["run", "--no-model", "--json"]).array("users").first)
        #expect(e.string("status") == "changed")
        #expect(
            e.array("edits").map { "\($0.string("id") ?? "") \($0.string("reason") ?? "")" } == [
                "vocab@2025-01-06 series-shift"
            ])
        #expect(e.object("summary")?.int("rescheduled") == 1 && e.object("summary")?.int("chained") == 1)
        // No slide: one override row for the one session that moved; the history stays.
        #expect(try SQL.int(s.db, "SELECT count(*) FROM series_slides") == 0)
        #expect(try SQL.int(s.db, "SELECT count(*) FROM occurrence_overrides") == overrides + 1)
        let list = try await s.json([
            "task", "list", "--user", "mei", "--from", "2025-01-30", "--to", "2025-02-02", "--json",
        ])
        #expect(
            list.array("occurrences").map { $0.string("start") } == [
                "2025-01-30T20:00", "2025-01-31T20:00", "2025-02-01T20:00",
            ],
            "the missed 1/6 now follows the series' last day, 1/31")
        #expect(list.array("occurrences").first?.object("repeat")?.string("missed") == "shift")
    }

    @Test func aRerunOnTheSamePlanDateChangesNothingAndForceReplans() async throws {
        let s = try await Self.seeded(Documents.document([Documents.englishWeek()]))
        try await s.ok(["run", "--no-model"])
        let after = try SQL.planDump(s.db)
        let changesets = try SQL.int(s.db, "SELECT count(*) FROM changesets")

        for args in [["run", "--no-model", "--json"], ["run", "--no-model", "--json", "--user", "mei"]] {
            let again = try await s.json(args)
            #expect(again.object("counts")?.int("due") == 0 && Self.users(again).isEmpty, "\(args): \(again)")
        }
        expectSamePlan(after, try SQL.planDump(s.db), "after the re-runs")
        #expect(try SQL.int(s.db, "SELECT count(*) FROM changesets") == changesets)
        #expect(try SQL.int(s.db, "SELECT count(*) FROM user_runs") == 1)

        // A session added for yesterday after the run waits for tomorrow night, unless forced.
        try await s.addTask("lab", "Physics lab", "2025-01-06T14:00", "2025-01-06T15:00", category: "Physics")
        #expect(try await s.json(["run", "--no-model", "--json"]).object("counts")?.int("due") == 0)
        let forced = try await s.json(["run", "--no-model", "--force", "--json"])
        let e = try #require(forced.array("users").first)
        #expect(e.string("status") == "changed" && e.array("edits").map { $0.string("id") } == ["lab"], "\(e)")
        #expect(
            try SQL.int(s.db, "SELECT count(*) FROM user_runs WHERE plan_date = '2025-01-07' AND status = 'changed'")
                == 2)
        // Forcing again finds nothing left to do: the rules are idempotent.
        let idle = try #require(try await s.json(["run", "--no-model", "--force", "--json"]).array("users").first)
        #expect(idle.string("status") == "unchanged" && idle.isNull("changesetId"))

        // The next night is a new plan date.
        let wednesday = try await s.run(
            ["run", "--no-model", "--json"], environment: ["REPLAN_NOW": "2025-01-08T03:00:00+08:00"])
        #expect(try wednesday.json().object("counts")?.int("due") == 1, "\(wednesday)")
    }

    @Test func previewWritesNothing() async throws {
        let s = try await Self.seeded(Documents.everyKindOfEdit)
        let fm = FileManager.default
        let bytes = try Data(contentsOf: URL(fileURLWithPath: s.db))
        let attributes = try fm.attributesOfItem(atPath: s.db)
        let sidecars = ["-wal", "-shm"].filter { fm.fileExists(atPath: s.db + $0) }

        let preview = try await s.json(["preview", "--user", "mei", "--no-model", "--json"])
        let text = try await s.ok(["preview", "--user", "mei", "--no-model"])

        #expect(
            try Data(contentsOf: URL(fileURLWithPath: s.db)) == bytes, "the database file is byte for byte the same")
        let now = try fm.attributesOfItem(atPath: s.db)
        #expect(now[.size] as? Int == attributes[.size] as? Int)
        #expect(now[.modificationDate] as? Date == attributes[.modificationDate] as? Date)
        #expect(["-wal", "-shm"].filter { fm.fileExists(atPath: s.db + $0) } == sidecars, "no WAL left behind")
        for table in ["runs", "user_runs", "changesets WHERE origin = 'nightly'", "transcripts"] {
            #expect(try SQL.int(s.db, "SELECT count(*) FROM \(table)") == 0, "\(table)")
        }
        #expect(
            try SQL.int(
                s.db,
                "SELECT count(*) FROM notification_outbox WHERE changeset_id NOT IN (SELECT id FROM changesets WHERE origin = 'import')"
            ) == 0)
        #expect(text.contains("nothing is written"))

        #expect(preview.string("schema") == "replan.preview/1" && preview.string("user") == "mei")
        #expect(preview["changesetId"] == nil || preview.isNull("changesetId"))
        let ops = Set(preview.array("edits").compactMap { $0.string("op") })
        #expect(ops == ["move", "delete", "skip"], "\(ops)")
        #expect(preview.object("summary")?.int("dropped") == 2)

        // What the run commits is what the preview showed.
        let run = try #require(try await s.json(["run", "--no-model", "--json", "--user", "mei"]).array("users").first)
        #expect(NSArray(array: run.array("edits")) == NSArray(array: preview.array("edits")))
        #expect(
            NSDictionary(dictionary: run.object("summary") ?? [:])
                == NSDictionary(dictionary: preview.object("summary") ?? [:]))

        let unknown = try await s.run(["preview", "--user", "nobody", "--no-model"])
        #expect(unknown.code == 65, "\(unknown)")
    }

    @Test func aUserBeforeRunAfterIsNotDue() async throws {
        // 2025-01-06T19:30Z is 03:30 on Tuesday in Taipei, 19:30 on Monday in London and
        // 01:00 on Tuesday in Kolkata: Kolkata's night has not reached 03:00 yet.
        let s = try await Self.seeded(
            Documents.document([
                Documents.englishWeek(user: "taipei", zone: "Asia/Taipei"),
                Documents.englishWeek(user: "london", zone: "Europe/London"),
                Documents.englishWeek(user: "kolkata", zone: "Asia/Kolkata"),
            ]), now: "2025-01-06T19:30:00Z")
        let run = try await s.json(["run", "--no-model", "--json"])
        #expect(Self.users(run) == ["london", "taipei"])
        let planDates = Dictionary(
            uniqueKeysWithValues: run.array("users").map { ($0.string("user") ?? "", $0.string("planDate") ?? "") })
        #expect(planDates == ["london": "2025-01-06", "taipei": "2025-01-07"])

        #expect(Self.users(try await s.json(["run", "--no-model", "--json", "--user", "kolkata"])).isEmpty)
        #expect(Self.users(try await s.json(["run", "--no-model", "--json", "--run-after", "01:00"])) == ["kolkata"])
        // At 03:00 Kolkata time (21:30Z) the default run picks Kolkata up too.
        let later = try await s.run(
            ["run", "--no-model", "--json"], environment: ["REPLAN_NOW": "2025-01-06T21:30:00Z"])
        #expect(try Self.users(later.json()).isEmpty, "Kolkata is already done for 1/7")
    }

    @Test func aUserWithAutoUpdateOffIsNotDue() async throws {
        let s = try await Self.seeded(
            Documents.document([Documents.englishWeek(), Documents.englishWeek(user: "bob")]))
        try await s.ok(["settings", "set", "--user", "mei", "--auto-update", "off"])
        let before = try SQL.planDump(s.db)
        let run = try await s.json(["run", "--no-model", "--json"])
        #expect(Self.users(run) == ["bob"])
        for args in [["--user", "mei"], ["--user", "mei", "--force"], ["--force"]] {
            #expect(!Self.users(try await s.json(["run", "--no-model", "--json"] + args)).contains("mei"), "\(args)")
        }
        #expect(
            before["tasks"]?.filter { $0.contains("'mei'") }
                == (try SQL.planDump(s.db))["tasks"]?.filter { $0.contains("'mei'") })
        #expect(try SQL.int(s.db, "SELECT count(*) FROM user_runs WHERE user_id = 'mei'") == 0)
    }

    @Test func oneRunAtATimeAnotherHolderOfTheLockMeansExit75() async throws {
        let s = try await Self.seeded(Documents.document([Documents.englishWeek()]))
        let before = try SQL.planDump(s.db)
        // Hold the database file's flock the way a running `replan run` does (closed on exec).
        let fd = open(s.db, O_RDONLY | O_CLOEXEC)
        try #require(fd >= 0)
        #expect(flock(fd, LOCK_EX | LOCK_NB) == 0)
        let locked = try await s.run(["run", "--no-model"])
        #expect(locked.code == 75, "\(locked)")
        #expect(
            locked.stderr.contains("lock on \(s.db)") && locked.stderr.contains("try again later"), "\(locked.stderr)")
        #expect(try SQL.int(s.db, "SELECT count(*) FROM runs") == 0, "a locked-out run leaves no trace")
        expectSamePlan(before, try SQL.planDump(s.db), "after the locked-out run")
        // Readers and previews are not blocked by a run.
        try await s.ok(["preview", "--user", "mei", "--no-model"])
        try await s.ok(["log"])

        flock(fd, LOCK_UN)
        close(fd)
        let free = try await s.run(["run", "--no-model"])
        #expect(free.code == 0, "\(free)")
    }

    @Test func aUserWhosePlanCannotBeLoadedFailsAloneAndTheRunExits1() async throws {
        let s = try await Self.seeded(
            Documents.document([Documents.englishWeek(), Documents.englishWeek(user: "bob", zone: "Europe/Berlin")]))
        // A row no replan writes: mei's subtasks are not JSON.
        try SQL.execute(s.db, "UPDATE tasks SET subtasks = 'not json' WHERE id = 'mei-eng-2'")
        let before = try SQL.planDump(s.db)
        let r = try await s.run(["run", "--no-model", "--json"])
        #expect(r.code == 1, "\(r)")
        let run = try r.json()
        #expect(
            run.object("counts")?.int("failed") == 1 && run.object("counts")?.int("unchanged") == 1,
            "bob is planned all the same")
        let mei = try #require(run.array("users").first { $0.string("user") == "mei" })
        #expect(mei.string("status") == "failed" && mei.isNull("changesetId"))
        #expect(mei.string("error")?.contains("mei-eng-2") == true, "the error names the row: \(mei)")
        #expect(mei.string("planDate") == "2025-01-07", "the failed user's own plan date: \(mei)")
        #expect(
            run.array("users").first { $0.string("user") == "bob" }?.string("planDate") == "2025-01-06",
            "Berlin is still on Monday")
        #expect(
            before["tasks"]?.filter { $0.contains("'mei'") }
                == (try SQL.planDump(s.db))["tasks"]?.filter { $0.contains("'mei'") })
        let log = try await s.json(["log", "--json", "--user", "mei"])
        #expect(log.array("runs").first?.array("users").first?.string("planDate") == "2025-01-07")
        // A failed user is not done: the next run tries again (and fails again, visibly).
        let again = try await s.run(["run", "--no-model", "--json"])
        let dueAgain = try again.json().object("counts")?.int("due")
        #expect(again.code == 1 && dueAgain == 1, "\(again)")
    }

    @Test func aStaleSessionOfAKeptCategoryIsFlaggedNotDropped() async throws {
        let s = try await Self.seeded(Documents.everyKindOfEdit)
        try await s.ok(["settings", "set", "--user", "mei", "--keep-category", "English"])
        let e = try #require(try await s.json(["run", "--no-model", "--json", "--user", "mei"]).array("users").first)
        let flags = e.array("flags").map { "\($0.string("id") ?? "?") \($0.string("flag") ?? "?")" }
        // One flag per task (docs/planning.md §2), with the number of its stale sessions.
        #expect(flags.contains("old-reading needs-decision") && flags.contains("vocab needs-decision"), "\(flags)")
        #expect(!e.array("edits").contains { $0.string("op") == "delete" || $0.string("op") == "skip" })
        #expect(e.object("summary")?.int("dropped") == 0)
        #expect(try SQL.int(s.db, "SELECT count(*) FROM tasks WHERE id = 'old-reading'") == 1)
    }

    @Test func withoutAnAPIKeyTheRunUsesTheLocalRulesAndSaysSo() async throws {
        let s = try await Self.seeded(Documents.document([Documents.englishWeek()]))
        let r = try await s.run(["run", "--json"], environment: ["OPENAI_API_KEY": nil, "CREDENTIALS_DIRECTORY": nil])
        #expect(r.code == 0, "\(r)")
        let run = try r.json()
        #expect(run.string("model")?.contains("API key") == true, "\(run["model"] ?? "nil")")
        #expect(r.stderr.contains("model off"), "\(r.stderr)")
        let e = try #require(run.array("users").first)
        #expect(e.string("status") == "changed" && e.object("model")?.bool("called") == false)
        for key in ["called", "turns", "tokens", "error"] { #expect(e.object("model")?[key] != nil, "model.\(key)") }
        // A key given on the command line is refused: only a file, a credential or the environment.
        let flag = try await s.run(["run", "--api-key", "sk-secret"])
        #expect(flag.code == 64 && !flag.stderr.contains("sk-secret"), "\(flag)")
    }

    @Test func remindersGoToTheOutboxAtStartMinusReminderMinutes() async throws {
        let s = try await Self.seeded(Documents.everyKindOfEdit)
        let e = try #require(try await s.json(["run", "--no-model", "--json", "--user", "mei"]).array("users").first)
        let cs = try #require(e.string("changesetId"))
        // mei: Asia/Taipei (UTC+8), 15 minutes before; now is 2025-01-06T19:00Z.
        let now = try #require(ISO8601DateFormatter().date(from: "2025-01-06T19:00:00Z"))
        func fireAt(_ local: String) throws -> String {
            let f = DateFormatter()
            f.locale = Locale(identifier: "en_US_POSIX")
            f.timeZone = TimeZone(identifier: "Asia/Taipei")
            f.dateFormat = "yyyy-MM-dd'T'HH:mm"
            let start = try #require(f.date(from: local))
            return ISO8601DateFormatter().string(from: start.addingTimeInterval(-15 * 60))
        }
        var schedule = Set<String>()
        var cancel = Set<String>()
        for edit in e.array("edits") {
            let id = edit.string("id")!
            // Only reminders still ahead are withdrawn: a past one has fired or never will.
            if let before = edit.object("before")?.string("start") {
                let fire = try fireAt(before)
                if ISO8601DateFormatter().date(from: fire)! > now { cancel.insert("\(id) \(fire)") }
            }
            if let after = edit.object("after")?.string("start"), edit.string("op") == "move" {
                let fire = try fireAt(after)
                if ISO8601DateFormatter().date(from: fire)! > now { schedule.insert("\(id) \(fire)") }
            }
        }
        func outbox(_ action: String) throws -> Set<String> {
            Set(
                try SQL.rows(
                    s.db,
                    "SELECT occurrence_id || ' ' || fire_at FROM notification_outbox WHERE changeset_id = '\(cs)' AND action = '\(action)' AND kind = 'reminder'"
                )
                .map { $0.replacingOccurrences(of: "'", with: "") })
        }
        #expect(schedule.contains("mei-eng-1 2025-01-07T01:45:00Z"), "Tue 10:00 Taipei is 02:00Z; 15 minutes before")
        #expect(try outbox("schedule") == schedule)
        #expect(try outbox("cancel") == cancel)
        // The night's morning note is the one other row of its changeset.
        #expect(
            try SQL.int(s.db, "SELECT count(*) FROM notification_outbox WHERE changeset_id = '\(cs)' AND kind = 'note'")
                == 1)
        #expect(try SQL.int(s.db, "SELECT count(DISTINCT user_id) FROM notification_outbox") == 1)

        // bob has notifications off: his run writes no reminders.
        try await s.ok(["run", "--no-model", "--user", "bob"])
        #expect(try SQL.int(s.db, "SELECT count(*) FROM notification_outbox WHERE user_id = 'bob'") == 0)

        // Undo reschedules the reminders of the restored times.
        let mark = try SQL.int(s.db, "SELECT max(id) FROM notification_outbox")
        try await s.ok(["undo", cs, "--yes"])
        let restored = Set(
            try SQL.rows(
                s.db,
                "SELECT occurrence_id || ' ' || fire_at FROM notification_outbox WHERE id > \(mark) AND action = 'schedule'"
            )
            .map { $0.replacingOccurrences(of: "'", with: "") })
        #expect(
            restored.contains("mei-eng-2 2025-01-07T01:45:00Z"),
            "Tuesday's session is back at Tuesday 10:00: \(restored)")
    }
}
