import Foundation
import ReplanTestSupport
import Testing

/// The calendar feed (issue 17): `export --format ics` and `feeds --out DIR` read by two
/// independent parsers (Python's icalendar and vobject, `Tests/Support/validate_ics.py`).
@Suite struct FeedsTests {
    /// Runs the validator on `files`; its JSON summary, one object per file.
    static func validate(_ files: [String]) throws -> [[String: Any]] {
        let outcome = try Outcome.of("/usr/bin/env", ["python3", TestFiles.support("validate_ics.py")] + files)
        guard outcome.code == 0 else {
            throw TestFailure(
                "the iCalendar parsers reject the feed: \(outcome.stderr) (scripts/test installs icalendar and vobject)"
            )
        }
        return try JSONSerialization.jsonObject(with: Data(outcome.stdout.utf8)) as? [[String: Any]] ?? []
    }

    /// mei (notifications on, 15 minutes) with a daily series whose Monday was completed and
    /// Tuesday skipped, a session with a tab in its title and line breaks in its note (other
    /// control characters are refused on input; the export's own escaping of them is a
    /// PlanningTests case); bob with one session.
    static func students() async throws -> Sandbox {
        let s = try Sandbox()
        let document: [String: Any] = [
            "format": "replan/1",
            "users": [
                [
                    "id": "mei", "timeZone": "Asia/Taipei", "displayName": "Mei",
                    "settings": ["notificationsEnabled": true, "reminderMinutes": 15],
                    "tasks": [
                        [
                            "id": "vocab", "title": "Vocabulary", "category": "English", "start": "2025-01-06T20:00",
                            "end": "2025-01-06T20:30",
                            "repeat": ["every": "daily", "until": "2025-01-10"],
                            "occurrences": [
                                ["date": "2025-01-06", "state": "completed"],
                                ["date": "2025-01-07", "state": "skipped"],
                            ],
                        ],
                        [
                            "id": "bell", "title": "Bell and\ttab", "note": "line 1\nline 2\r\nline 3",
                            "category": "英文",
                            "start": "2025-01-08T10:00", "end": "2025-01-08T11:00",
                        ],
                    ],
                ],
                [
                    "id": "bob", "timeZone": "Europe/Berlin",
                    "tasks": [
                        [
                            "id": "b1", "title": "Math, again; really", "category": "Math", "start": "2025-01-08T09:00",
                            "end": "2025-01-08T10:00",
                        ]
                    ],
                ],
            ],
        ]
        try await s.ok(["import", try s.writeJSON("students.json", document)])
        return s
    }

    @Test func theExportParsesInTwoParsersWithWhatASubscribedCalendarNeeds() async throws {
        let s = try await Self.students()
        let ics = try await s.ok([
            "export", "--user", "mei", "--format", "ics", "--from", "2025-01-06", "--to", "2025-01-10",
        ])
        #expect(ics.hasSuffix("END:VCALENDAR\r\n"), "no stray LF after the last CRLF")
        let file = try s.write("mei.ics", ics)
        let calendar = try #require(try Self.validate([file]).first)
        #expect(calendar["name"] as? String == "Mei — study plan")
        #expect(calendar["refresh"] as? String == "PT6H" && calendar["ttl"] as? String == "PT6H")
        let events = try #require(calendar["events"] as? [[String: Any]])
        let byUID = Dictionary(uniqueKeysWithValues: events.map { ($0["uid"] as! String, $0) })
        #expect(byUID["vocab@2025-01-06@mei.replan"]?["summary"] as? String == "✓ Vocabulary")
        #expect(byUID["vocab@2025-01-07@mei.replan"]?["status"] as? String == "CANCELLED")
        #expect(byUID["vocab@2025-01-08@mei.replan"]?["alarms"] as? [String] == ["-PT15M"])
        #expect(byUID["vocab@2025-01-06@mei.replan"]?["alarms"] as? [String] == [], "no alarm for a completed session")
        #expect(byUID["bell@mei.replan"]?["summary"] as? String == "Bell and\ttab")
        #expect(events.allSatisfy { $0["sequence"] is Int && $0["lastModified"] is String }, "\(events)")
    }

    @Test func feedsWritesOneValidFilePerStudentAndReplacesThem() async throws {
        let s = try await Self.students()
        let out = s.path("public/feeds")
        let first = try await s.json(["feeds", "--out", out, "--json"])
        #expect(first["written"] as? Int == 2 && first["failed"] as? Int == 0, "\(first)")
        let files = try FileManager.default.contentsOfDirectory(atPath: out).sorted()
        #expect(files == ["bob.ics", "mei.ics"], "one file per student and nothing left over: \(files)")
        for f in files {
            let attributes = try FileManager.default.attributesOfItem(atPath: out + "/" + f)
            #expect((attributes[.posixPermissions] as? Int) == 0o644, "a web server can read \(f)")
        }
        let calendars = try Self.validate(files.map { out + "/" + $0 })
        #expect(calendars.map { ($0["events"] as? [Any])?.count } == [1, 6], "\(calendars)")

        // A session moved by a manual edit shows up with a higher SEQUENCE after the next write.
        func sequence() throws -> Int? {
            let events = try Self.validate([out + "/bob.ics"]).first?["events"] as? [[String: Any]]
            return events?.first?["sequence"] as? Int
        }
        let before = try sequence()
        try await s.ok(["task", "edit", "b1", "--start", "2025-01-08T11:00", "--end", "2025-01-08T12:00"])
        try await s.ok(["feeds", "--out", out, "--user", "bob"])
        #expect(try sequence().map { $0 > before! } == true)
        #expect(try FileManager.default.contentsOfDirectory(atPath: out).sorted() == ["bob.ics", "mei.ics"])
    }

    @Test func aDeletedSessionStaysInTheFeedAsCancelled() async throws {
        let s = try await Self.students()
        try await s.ok(["task", "rm", "bell"])
        let ics = try await s.ok([
            "export", "--user", "mei", "--format", "ics", "--from", "2025-01-06", "--to", "2025-01-10",
        ])
        let events = try #require(try Self.validate([try s.write("mei.ics", ics)]).first?["events"] as? [[String: Any]])
        let bell = try #require(events.first { $0["uid"] as? String == "bell@mei.replan" }, "\(events)")
        #expect(bell["status"] as? String == "CANCELLED" && bell["summary"] as? String == "Bell and\ttab", "\(bell)")
        // Undone, it is an ordinary session again.
        let cs = try SQL.value(
            s.db, "SELECT id FROM changesets WHERE origin = 'manual' ORDER BY created_at DESC, rowid DESC LIMIT 1"
        )
        .replacingOccurrences(of: "'", with: "")
        try await s.ok(["undo", cs, "--yes"])
        let again = try await s.ok([
            "export", "--user", "mei", "--format", "ics", "--from", "2025-01-06", "--to", "2025-01-10",
        ])
        let restored = try #require(
            try Self.validate([try s.write("again.ics", again)]).first?["events"] as? [[String: Any]])
        let back = try #require(restored.first { $0["uid"] as? String == "bell@mei.replan" })
        #expect(back["status"] is NSNull || back["status"] == nil, "\(back)")
    }

    /// Issue 25: after a night, the feed's copy of a session it moved says why and from where.
    @Test func aSessionTheNightMovedSaysWhyInTheFeed() async throws {
        let s = try Sandbox()
        try await s.ok(["user", "add", "ann", "--time-zone", "Asia/Taipei"])
        try await s.addTask("m1", "Math", "2025-01-06T10:00", "2025-01-06T11:00", category: "Math", user: "ann")
        try await s.ok(["run", "--no-model"])
        let out = s.path("feeds")
        try await s.ok(["feeds", "--out", out])
        let events = try #require(try Self.validate([out + "/ann.ics"]).first?["events"] as? [[String: Any]])
        let math = try #require(events.first { $0["uid"] as? String == "m1@ann.replan" }, "\(events)")
        #expect(math["description"] as? String == "moved from Mon 6 Jan: missed", "\(math)")
    }

    @Test func removeStaleDeletesOnlyTheFeedsOfStudentsWhoAreGone() async throws {
        let s = try await Self.students()
        let out = s.path("feeds")
        try await s.ok(["feeds", "--out", out])
        try await s.ok(["user", "rm", "bob", "--yes"])
        try "keep me".write(toFile: out + "/notes.txt", atomically: true, encoding: .utf8)
        let kept = try await s.json(["feeds", "--out", out, "--json"])
        #expect(kept["removed"] as? Int == 0)
        #expect(FileManager.default.fileExists(atPath: out + "/bob.ics"), "without --remove-stale nothing is deleted")
        let pruned = try await s.json(["feeds", "--out", out, "--remove-stale", "--json"])
        #expect(pruned["removed"] as? Int == 1 && pruned["written"] as? Int == 1, "\(pruned)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: out).sorted() == ["mei.ics", "notes.txt"])
        let both = try await s.run(["feeds", "--out", out, "--remove-stale", "--user", "mei"])
        #expect(both.code == 64 && both.stderr.contains("--remove-stale"), "\(both)")
    }

    @Test func anUnusableOutputDirectoryOrUnknownStudentIsAClearError() async throws {
        let s = try await Self.students()
        let file = try s.write("not-a-directory", "x")
        let r = try await s.run(["feeds", "--out", file])
        #expect(r.code == 73 && r.stderr.contains("not a directory"), "\(r)")
        let missing = try await s.run(["feeds"])
        #expect(missing.code == 64 && missing.stderr.contains("--out"), "\(missing)")
        let nobody = try await s.run(["feeds", "--out", s.path("out"), "--user", "nobody"])
        #expect(nobody.code == 65 && nobody.stderr.contains("nobody"), "\(nobody)")
    }

    @Test func theDaysBackHelpNamesTheDefaultTheCommandUses() async throws {
        let s = try await Self.students()
        let help = try await s.run(["feeds", "--help"])
        #expect(help.code == 0 && help.stdout.contains("days before today in each feed (default 14)"), "\(help)")
        // The default it names is the one a feed gets: 14 days back, nothing before.
        let out = s.path("window")
        try await s.ok(["feeds", "--out", out, "--user", "mei", "--user", "mei"])
        let ics = try String(contentsOfFile: (out as NSString).appendingPathComponent("mei.ics"), encoding: .utf8)
        #expect(ics.contains("Vocabulary"))
    }
}
