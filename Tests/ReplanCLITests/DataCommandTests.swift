import Foundation
import ReplanTestSupport
import Testing

/// `user`, `settings`, `task` and `stats` through the built binary (docs/commands.md, docs/data-format.md).
@Suite struct DataCommandTests {
    // MARK: user

    @Test func userAddListRemove() async throws {
        let s = try Sandbox()
        #expect(
            try await s.ok(["user", "add", "mei", "--time-zone", "Asia/Taipei", "--language", "zh-TW", "--name", "Mei"])
                .contains("added user mei"))
        try await s.ok(["user", "add", "bob", "--time-zone", "Europe/Berlin"])

        let list = try await s.json(["user", "list", "--json"])
        let users = list.array("users")
        #expect(users.map { $0.string("id") } == ["bob", "mei"])
        let mei = try #require(users.first { $0.string("id") == "mei" })
        #expect(
            mei.string("timeZone") == "Asia/Taipei" && mei.string("language") == "zh-TW"
                && mei.string("displayName") == "Mei")
        #expect(users.first { $0.string("id") == "bob" }?.string("language") == "en")

        let again = try await s.run(["user", "add", "mei", "--time-zone", "UTC"])
        #expect(again.code == 65 && again.stderr.contains("already exists"), "\(again)")

        let unasked = try await s.run(["user", "rm", "bob"])
        #expect(
            unasked.code == 64 && unasked.stderr.contains("--yes"), "off a terminal user rm needs --yes: \(unasked)")
        #expect(try await s.ok(["user", "rm", "bob", "--yes"]).contains("removed user bob"))
        #expect(try await s.json(["user", "list", "--json"]).array("users").map { $0.string("id") } == ["mei"])
        let gone = try await s.run(["user", "rm", "bob", "--yes"])
        #expect(gone.code == 65 && gone.stderr.contains("bob"), "\(gone)")
    }

    @Test func userRemoveTakesTheirTasksAndChangesetsAlong() async throws {
        let s = try Sandbox()
        try await s.ok([
            "import",
            s.writeJSON("doc.json", Documents.document([Documents.englishWeek(), Documents.englishWeek(user: "bob")])),
        ])
        try await s.ok(["run", "--no-model"])
        let bobBefore = try SQL.rows(s.db, "SELECT id, title, start FROM tasks WHERE user_id = 'bob' ORDER BY id")
        try await s.ok(["user", "rm", "bob", "--yes", "--keep-export", s.path("bob.json")])
        #expect(mode(s.path("bob.json")) == 0o600)
        for table in ["tasks", "changesets", "user_runs", "settings"] {
            #expect(try SQL.int(s.db, "SELECT count(*) FROM \(table) WHERE user_id = 'bob'") == 0, "\(table)")
            #expect(try SQL.int(s.db, "SELECT count(*) FROM \(table) WHERE user_id = 'mei'") > 0, "\(table)")
        }
        #expect(try SQL.value(s.db, "PRAGMA foreign_key_check") == "")
        // The kept export brings the plan back.
        try await s.ok(["import", s.path("bob.json")])
        #expect(try SQL.rows(s.db, "SELECT id, title, start FROM tasks WHERE user_id = 'bob' ORDER BY id") == bobBefore)
        let existing = try await s.run(["user", "rm", "bob", "--yes", "--keep-export", s.path("bob.json")])
        #expect(
            existing.code == 65 && existing.stderr.contains("nothing removed"),
            "an existing file is never overwritten: \(existing)")
        #expect(try SQL.int(s.db, "SELECT count(*) FROM tasks WHERE user_id = 'bob'") == bobBefore.count)
    }

    @Test func userAddWithAnUnknownZoneExits65AndWritesNothing() async throws {
        let s = try Sandbox()
        let fresh = try await s.run(["user", "add", "mei", "--time-zone", "Mars/Olympus"])
        #expect(fresh.code == 65, "\(fresh)")
        #expect(
            fresh.stderr.contains("Mars/Olympus") && fresh.stderr.contains("IANA"),
            "the message names the zone and what to use: \(fresh.stderr)")
        #expect(fresh.stdout.isEmpty)
        #expect(!FileManager.default.fileExists(atPath: s.db), "a rejected command does not even create the database")

        try await s.ok(["user", "add", "zoe", "--time-zone", "UTC"])
        let bytes = try Data(contentsOf: URL(fileURLWithPath: s.db))
        for zone in ["Asia/Taipeh", "utc+8", "", "GMT+25"] {
            let bad = try await s.run(["user", "add", "mei", "--time-zone", zone])
            #expect(bad.code == 65, "zone '\(zone)': \(bad)")
        }
        #expect(try Data(contentsOf: URL(fileURLWithPath: s.db)) == bytes, "the database file is untouched")
        #expect(try await s.json(["user", "list", "--json"]).array("users").map { $0.string("id") } == ["zoe"])
    }

    @Test func userAddRejectsBadIdsAndLanguages() async throws {
        let s = try Sandbox()
        for id in ["has space", String(repeating: "x", count: 65), "semi;colon"] {
            let r = try await s.run(["user", "add", id, "--time-zone", "UTC"])
            #expect(r.code == 65 && r.stderr.contains("user id"), "id '\(id)': \(r)")
        }
        let lang = try await s.run(["user", "add", "mei", "--time-zone", "UTC", "--language", "not a tag!"])
        #expect(lang.code == 65, "\(lang)")
        let missing = try await s.run(["user", "add", "mei"])
        #expect(missing.code == 64 && missing.stderr.contains("--time-zone"), "\(missing)")
        // None of them created a database, and listing does not either (issue 13, item 5).
        let list = try await s.run(["user", "list"])
        #expect(list.code == 73 && list.stderr.contains(s.db), "\(list)")
        #expect(!FileManager.default.fileExists(atPath: s.db))
    }

    // MARK: settings

    @Test func settingsShowDefaultsThenSetWindowsAndKnobs() async throws {
        let s = try Sandbox()
        try await s.ok(["user", "add", "mei", "--time-zone", "Asia/Taipei"])
        let defaults = try #require(
            try await s.json(["settings", "show", "--user", "mei", "--json"]).object("settings"))
        let windows = try #require(defaults.object("windows"))
        for day in ["mon", "tue", "wed", "thu", "fri"] {
            #expect(windows[day] as? [String] == ["09:00-17:00"], "\(day)")
        }
        #expect(windows["sat"] as? [String] == [] && windows["sun"] as? [String] == [])
        #expect(defaults.int("sessionMinutes") == 60 && defaults.bool("autoUpdate") == true)
        #expect(defaults.bool("notificationsEnabled") == false && defaults.int("reminderMinutes") == 10)
        #expect(defaults.int("deleteAfterDays") == 7 && defaults.int("horizonDays") == 14)

        try await s.ok([
            "settings", "set", "--user", "mei", "--window", "mon=09:00-12:00,14:00-17:00", "--window",
            "sat,sun=10:00-12:00",
            "--window", "fri=", "--session-minutes", "45", "--tone", "a cheerful coach", "--instruction",
            "two hours of English",
            "--notifications", "on", "--reminder-minutes", "30", "--auto-update", "off",
        ])
        let set = try #require(try await s.json(["settings", "show", "--user", "mei", "--json"]).object("settings"))
        let w = try #require(set.object("windows"))
        #expect(w["mon"] as? [String] == ["09:00-12:00", "14:00-17:00"])
        #expect(w["sat"] as? [String] == ["10:00-12:00"] && w["sun"] as? [String] == ["10:00-12:00"])
        #expect(w["fri"] as? [String] == [] && w["tue"] as? [String] == ["09:00-17:00"])
        #expect(set.int("sessionMinutes") == 45 && set.string("tone") == "a cheerful coach")
        #expect(set.string("instruction") == "two hours of English" && set.bool("notificationsEnabled") == true)
        #expect(set.int("reminderMinutes") == 30 && set.bool("autoUpdate") == false)

        let text = try await s.ok(["settings", "show", "--user", "mei"])
        #expect(text.contains("mon  09:00-12:00, 14:00-17:00") && text.contains("auto update:         off"), "\(text)")

        try await s.ok(["settings", "set", "--user", "mei", "--windows", "off"])
        #expect(
            try await s.json(["settings", "show", "--user", "mei", "--json"]).object("settings")?.bool("windowsEnabled")
                == false)
    }

    @Test func settingsRejectsBadValuesWith65AndKeepsTheOldOnes() async throws {
        let s = try Sandbox()
        try await s.ok(["user", "add", "mei", "--time-zone", "Asia/Taipei"])
        try await s.ok(["settings", "set", "--user", "mei", "--window", "mon=08:00-10:00"])
        let before = try SQL.planDump(s.db)
        let bad: [([String], String)] = [
            (["--window", "mon=10:00-09:00"], "10:00-09:00"),
            (["--window", "mon=09:00-12:00,11:00-13:00"], "overlap"),
            (["--window", "mond=09:00-10:00"], "mond"),
            (["--window", "mon=9-10"], "mon=9-10"),
            (["--window", "mon"], "--window"),
            (["--session-minutes", "300"], "--session-minutes"),
            (["--reminder-minutes", "7"], "reminder"),
            (["--windows", "maybe"], "--windows"),
            // One bad window among good ones changes nothing at all.
            (["--window", "tue=09:00-10:00", "--window", "wed=25:00-26:00"], "25:00"),
        ]
        for (args, mention) in bad {
            let r = try await s.run(["settings", "set", "--user", "mei"] + args)
            #expect(r.code == 65, "\(args): \(r)")
            #expect(r.stderr.contains(mention), "\(args): the message should mention '\(mention)': \(r.stderr)")
        }
        expectSamePlan(before, try SQL.planDump(s.db), "after rejected settings")
        let unknown = try await s.run(["settings", "show", "--user", "nobody"])
        #expect(unknown.code == 65 && unknown.stderr.contains("nobody"), "\(unknown)")
    }

    // MARK: task

    @Test func taskListJSONHasTheCLIShapeSortedByStart() async throws {
        let s = try Sandbox()
        try await s.ok(["user", "add", "mei", "--time-zone", "Asia/Taipei"])
        // Added out of order: Thursday, Monday all day, Tuesday evening, Tuesday morning.
        try await s.addTask("thu", "Physics", "2025-01-09T14:00", "2025-01-09T15:00", category: "Physics")
        try await s.ok([
            "task", "add", "--user", "mei", "--id", "holiday", "--title", "Holiday", "--category", "Life", "--all-day",
            "--start", "2025-01-06", "--end", "2025-01-06",
        ])
        try await s.ok([
            "task", "add", "--user", "mei", "--id", "vocab", "--title", "Vocab", "--category", "English",
            "--start", "2025-01-07T20:00", "--end", "2025-01-07T20:30", "--repeat", "daily", "--until", "2025-01-08",
        ])
        try await s.ok([
            "task", "add", "--user", "mei", "--id", "tue", "--title", "Math", "--category", "Math", "--task-color",
            "red",
            "--start", "2025-01-07T09:00", "--end", "2025-01-07T10:30", "--note", "chapter 2", "--subtask", "exercises",
        ])

        let list = try await s.json([
            "task", "list", "--user", "mei", "--from", "2025-01-06", "--to", "2025-01-12", "--json",
        ])
        #expect(list.string("schema") != nil && list.string("user") == "mei")
        let occurrences = list.array("occurrences")
        #expect(
            occurrences.map { $0.string("id") } == ["holiday", "tue", "vocab@2025-01-07", "vocab@2025-01-08", "thu"])
        let starts = occurrences.compactMap { $0.string("start") }
        #expect(starts == starts.sorted(), "sorted by start")
        for o in occurrences {
            for key in ["id", "taskId", "title", "category", "start", "end", "allDay", "state"] {
                #expect(o[key] != nil, "occurrence \(o["id"] ?? "?") lacks \(key)")
            }
        }
        let tue = try #require(occurrences.first { $0.string("id") == "tue" })
        #expect(tue.string("taskId") == "tue" && tue.string("title") == "Math" && tue.string("category") == "Math")
        #expect(tue.string("start") == "2025-01-07T09:00" && tue.string("end") == "2025-01-07T10:30")
        #expect(tue.bool("allDay") == false && tue.string("state") == "open")
        let series = try #require(occurrences.first { $0.string("id") == "vocab@2025-01-08" })
        #expect(series.string("taskId") == "vocab" && series.string("start") == "2025-01-08T20:00")
        #expect(occurrences.first { $0.string("id") == "holiday" }?.bool("allDay") == true)

        // --from/--to are inclusive local dates.
        let oneDay = try await s.json([
            "task", "list", "--user", "mei", "--from", "2025-01-08", "--to", "2025-01-08", "--json",
        ])
        #expect(oneDay.array("occurrences").map { $0.string("id") } == ["vocab@2025-01-08"])
    }

    /// docs/planning.md §4: a series' missed policy through `task add`, `task edit` and `task list`.
    @Test func taskMissedPolicyIsSetShownChangedAndValidated() async throws {
        let s = try Sandbox()
        try await s.ok(["user", "add", "mei", "--time-zone", "Asia/Taipei"])
        try await s.ok([
            "task", "add", "--user", "mei", "--id", "piano", "--title", "Piano", "--category", "Music",
            "--start", "2025-01-07T18:00", "--end", "2025-01-07T19:00", "--repeat", "daily", "--missed", "make-up",
        ])
        func policy() async throws -> String? {
            try await s.json(["task", "list", "--user", "mei", "--from", "2025-01-07", "--to", "2025-01-07", "--json"])
                .array("occurrences").first?.object("repeat")?.string("missed")
        }
        #expect(try await policy() == "make-up")
        #expect(
            try await s.ok(["task", "list", "--user", "mei", "--from", "2025-01-07", "--to", "2025-01-07"]).contains(
                "daily, missed: make-up"))
        try await s.ok(["task", "edit", "piano", "--missed", "default"])
        #expect(try await policy() == "skip", "a daily series without an end is a habit")
        try await s.ok(["task", "edit", "piano", "--missed", "shift", "--until", "2025-02-28"])
        #expect(try await policy() == "shift")
        #expect(try SQL.value(s.db, "SELECT repeat_missed FROM tasks WHERE id = 'piano'") == "shift")

        let bad = try await s.run(["task", "edit", "piano", "--missed", "later"])
        #expect(bad.code == 65 && bad.stderr.contains("--missed 'later' is not shift, skip or make-up"), "\(bad)")
        let oneOff = try await s.run([
            "task", "add", "--user", "mei", "--title", "Essay", "--category", "English",
            "--start", "2025-01-07T10:00", "--end", "2025-01-07T11:00", "--missed", "skip",
        ])
        #expect(oneOff.code == 64 && oneOff.stderr.contains("--missed needs --repeat"), "\(oneOff)")
        let occurrence = try await s.run(["task", "edit", "piano@2025-01-08", "--missed", "skip"])
        #expect(occurrence.code == 64, "\(occurrence)")
    }

    @Test func taskEditRemoveAndDoneOnOneOffTasks() async throws {
        let s = try Sandbox()
        try await s.ok(["user", "add", "mei", "--time-zone", "Asia/Taipei"])
        try await s.addTask("a", "Essay", "2025-01-08T10:00", "2025-01-08T11:00", category: "English")
        try await s.addTask("b", "Lab", "2025-01-09T10:00", "2025-01-09T12:00", category: "Physics")
        let edited = try await s.ok([
            "task", "edit", "a", "--title", "Essay, second draft", "--start", "2025-01-08T14:00",
        ])
        #expect(edited.contains("edited a") && edited.contains("replan undo cs-"), "\(edited)")
        try await s.ok(["task", "done", "b"])
        try await s.addTask("c", "Scratch", "2025-01-10T10:00", "2025-01-10T11:00", category: "Misc")
        try await s.ok(["task", "rm", "c"])

        let occ = try await s.json([
            "task", "list", "--user", "mei", "--from", "2025-01-06", "--to", "2025-01-12", "--json",
        ]).array("occurrences")
        #expect(occ.map { $0.string("id") } == ["a", "b"])
        let a = try #require(occ.first)
        #expect(a.string("title") == "Essay, second draft")
        #expect(
            a.string("start") == "2025-01-08T14:00" && a.string("end") == "2025-01-08T15:00",
            "moving the start keeps the length")
        #expect(occ.last?.string("state") == "completed")
        // Each manual change is its own undoable changeset.
        #expect(try SQL.int(s.db, "SELECT count(*) FROM changesets WHERE origin = 'manual'") == 6)

        for (args, code) in [
            (["task", "edit", "nope", "--title", "x"], Int32(65)), (["task", "rm", "nope"], 65),
            (["task", "done", "nope"], 65),
            (["task", "edit", "a", "--end", "2025-01-08T13:00"], 65),
        ] {
            let r = try await s.run(args)
            #expect(r.code == code, "\(args): \(r)")
        }
    }

    @Test func taskDoneOnASeriesOccurrenceMarksOnlyThatOccurrence() async throws {
        let s = try Sandbox()
        try await s.ok(["user", "add", "mei", "--time-zone", "Asia/Taipei"])
        try await s.ok([
            "task", "add", "--user", "mei", "--id", "vocab", "--title", "Vocab", "--category", "English",
            "--start", "2025-01-06T20:00", "--end", "2025-01-06T20:30", "--repeat", "daily", "--until", "2025-01-12",
        ])
        try await s.ok(["task", "done", "vocab@2025-01-08"])
        let occ = try await s.json([
            "task", "list", "--user", "mei", "--from", "2025-01-06", "--to", "2025-01-12", "--json",
        ]).array("occurrences")
        #expect(occ.count == 7)
        for o in occ {
            let expected = o.string("id") == "vocab@2025-01-08" ? "completed" : "open"
            #expect(o.string("state") == expected, "\(o.string("id") ?? "?")")
        }
        // One sparse override row, not a materialised series.
        #expect(
            try SQL.rows(s.db, "SELECT task_id, original_date, state FROM occurrence_overrides") == [
                "'vocab'|'2025-01-08'|'completed'"
            ])
        #expect(try SQL.value(s.db, "SELECT completed FROM tasks WHERE id = 'vocab'") == "0")

        let whole = try await s.run(["task", "done", "vocab"])
        #expect(
            whole.code == 65 && whole.stderr.contains("vocab@YYYY-MM-DD"),
            "a series needs the occurrence named: \(whole)")
        let notADate = try await s.run(["task", "done", "vocab@2025-02-08"])
        #expect(notADate.code == 65, "\(notADate)")

        // Skipping one occurrence (task rm ID@DATE) also leaves the rest alone.
        try await s.ok(["task", "rm", "vocab@2025-01-10"])
        let after = try await s.json([
            "task", "list", "--user", "mei", "--from", "2025-01-06", "--to", "2025-01-12", "--json",
        ]).array("occurrences")
        #expect(
            Dictionary(grouping: after.compactMap { $0.string("state") }, by: { $0 }).mapValues(\.count)
                == ["open": 5, "completed": 1, "skipped": 1])
    }

    @Test func taskEditOnAnOccurrenceMovesOnlyThatOccurrence() async throws {
        let s = try Sandbox()
        try await s.ok(["user", "add", "mei", "--time-zone", "Asia/Taipei"])
        try await s.ok([
            "task", "add", "--user", "mei", "--id", "vocab", "--title", "Vocab", "--category", "English",
            "--start", "2025-01-06T20:00", "--end", "2025-01-06T20:30", "--repeat", "daily", "--until", "2025-01-12",
        ])
        try await s.ok(["task", "edit", "vocab@2025-01-08", "--start", "2025-01-08T18:00"])
        let occ = try await s.json([
            "task", "list", "--user", "mei", "--from", "2025-01-07", "--to", "2025-01-09", "--json",
        ]).array("occurrences")
        #expect(
            occ.map { "\($0.string("id") ?? "") \($0.string("start") ?? "") \($0.string("end") ?? "")" } == [
                "vocab@2025-01-07 2025-01-07T20:00 2025-01-07T20:30",
                "vocab@2025-01-08 2025-01-08T18:00 2025-01-08T18:30",
                "vocab@2025-01-09 2025-01-09T20:00 2025-01-09T20:30",
            ])
        let title = try await s.run(["task", "edit", "vocab@2025-01-09", "--title", "Other"])
        #expect(title.code == 64 && title.stderr.contains("whole series"), "\(title)")
        // Editing the series moves every occurrence without its own time, not the moved one.
        try await s.ok(["task", "edit", "vocab", "--start", "2025-01-06T21:00", "--all"])
        let after = try await s.json([
            "task", "list", "--user", "mei", "--from", "2025-01-08", "--to", "2025-01-09", "--json",
        ]).array("occurrences")
        #expect(after.compactMap { $0.string("start") } == ["2025-01-08T18:00", "2025-01-09T21:00"])
    }

    @Test func taskAddValidatesItsInput() async throws {
        let s = try Sandbox()
        try await s.ok(["user", "add", "mei", "--time-zone", "Asia/Taipei"])
        let base = [
            "task", "add", "--user", "mei", "--title", "Essay", "--start", "2025-01-08T10:00", "--end",
            "2025-01-08T11:00",
        ]
        let cases: [([String], Int32, String)] = [
            (base, 64, "--category"),
            (base + ["--category", "English", "--task-color", "purple"], 65, "purple"),
            (
                [
                    "task", "add", "--user", "mei", "--title", "Essay", "--category", "E", "--start", "tomorrow",
                    "--end", "2025-01-08T11:00",
                ], 65, "tomorrow"
            ),
            (
                [
                    "task", "add", "--user", "mei", "--title", "Essay", "--category", "E", "--start",
                    "2025-01-08T10:00", "--end", "2025-01-08T09:00",
                ], 65, "end"
            ),
            (
                [
                    "task", "add", "--user", "mei", "--title", "  ", "--category", "E", "--start", "2025-01-08T10:00",
                    "--end", "2025-01-08T11:00",
                ], 65, "title"
            ),
            (base + ["--category", "E", "--repeat", "yearly"], 65, "yearly"),
            (base + ["--category", "E", "--until", "2025-02-01"], 64, "--repeat"),
            (
                [
                    "task", "add", "--user", "nobody", "--title", "Essay", "--category", "E", "--start",
                    "2025-01-08T10:00", "--end", "2025-01-08T11:00",
                ], 65, "nobody"
            ),
        ]
        for (args, code, mention) in cases {
            let r = try await s.run(args)
            #expect(r.code == code, "\(args): \(r)")
            #expect(r.stderr.contains(mention), "\(args) should mention '\(mention)': \(r.stderr)")
        }
        #expect(try SQL.int(s.db, "SELECT count(*) FROM tasks") == 0)
        // An RGBA colour of the original app is accepted here too, and an offset is converted into the zone.
        try await s.ok(base + ["--category", "English", "--task-color", "0.2,0.4,0.75,1", "--id", "e"])
        try await s.addTask("z", "Call", "2025-01-08T02:00:00Z", "2025-01-08T03:00:00Z", category: "Life")
        #expect(
            try SQL.rows(s.db, "SELECT id, color, start, \"end\" FROM tasks ORDER BY id")
                == [
                    "'e'|'blue'|'2025-01-08T10:00'|'2025-01-08T11:00'",
                    "'z'|'green'|'2025-01-08T10:00'|'2025-01-08T11:00'",
                ])
        let duplicate = try await s.run(base + ["--category", "English", "--id", "e"])
        #expect(duplicate.code == 65 && duplicate.stderr.contains("already exists"), "\(duplicate)")
    }

    // MARK: stats

    @Test func statsJSONCountsSessionsCompletionAndFocusPerCategory() async throws {
        let s = try Sandbox()
        try await s.ok(["import", s.writeJSON("rich.json", Documents.rich)])
        let stats = try await s.json(["stats", "--user", "mei", "--json"])
        #expect(stats.string("schema") != nil && stats.string("user") == "mei" && stats.string("to") == "2025-01-07")
        let byCategory = Dictionary(
            uniqueKeysWithValues: stats.array("categories").map { ($0.string("category") ?? "?", $0) })
        // English: the series' 1/6 (completed) and 1/7 (open) up to today; Chemistry: the completed quiz.
        let english = try #require(byCategory["English"])
        #expect(
            english.int("taskCount") == 2 && english.int("completedCount") == 1 && english.int("focusMinutes") == 55)
        #expect((english["completionRate"] as? NSNumber)?.doubleValue == 0.5)
        let chemistry = try #require(byCategory["Chemistry"])
        #expect(
            chemistry.int("taskCount") == 1 && chemistry.int("completedCount") == 1
                && chemistry.int("focusMinutes") == 40)
        #expect(byCategory["作業"] == nil, "the essay is in the future")

        let today = try await s.json(["stats", "--user", "mei", "--today", "--json"])
        #expect(today.string("from") == "2025-01-07")
        #expect(today.array("categories").first { $0.string("category") == "English" }?.int("taskCount") == 1)

        let text = try await s.ok(["stats", "--user", "mei"])
        #expect(text.contains("English") && !text.contains("█"), "no bar chart when stdout is not a terminal: \(text)")
        let unknown = try await s.run(["stats", "--user", "nobody"])
        #expect(unknown.code == 65, "\(unknown)")
    }
}
