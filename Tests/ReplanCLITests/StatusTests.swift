import Foundation
import ReplanTestSupport
import Testing

/// `replan status`, the health check a monitor runs (issue 26): the Nagios exit convention
/// (0 OK, 1 WARNING, 2 CRITICAL, 3 UNKNOWN) in every state it knows.
@Suite struct StatusTests {
    /// mei (Taipei) with one missed session, planned by one run at the sandbox's instant.
    static func plannedStudent() async throws -> Sandbox {
        let s = try Sandbox()
        try await s.ok(["user", "add", "mei", "--time-zone", "Asia/Taipei"])
        try await s.addTask("math", "Math", "2025-01-06T10:00", "2025-01-06T11:00", category: "Math")
        try await s.ok(["run", "--no-model"])
        return s
    }

    static func checks(_ s: Sandbox, _ extra: [String] = [], now: String? = nil) async throws -> (
        code: Int32, json: [String: Any], states: [String: String]
    ) {
        var args = ["status", "--json"] + extra
        if let now { args += ["--now", now] }
        let r = try await s.run(args)
        let json = try r.json()
        var states: [String: String] = [:]
        for c in json["checks"] as? [[String: Any]] ?? [] {
            states[c["check"] as? String ?? "?"] = c["state"] as? String
        }
        #expect(json["exitCode"] as? Int == Int(r.code), "\(r)")
        return (r.code, json, states)
    }

    @Test func noDatabaseIsUnknownAndSaysWhy() async throws {
        let s = try Sandbox()
        let r = try await s.run(["status"])
        #expect(r.code == 3 && r.stdout.hasPrefix("REPLAN UNKNOWN - ") && r.stdout.contains(s.db), "\(r)")
        #expect(!FileManager.default.fileExists(atPath: s.db), "status never creates a database")
    }

    @Test func aDatabaseWithoutStudentsIsOKAndOneWithStudentsButNoRunIsCritical() async throws {
        let s = try Sandbox()
        try await s.ok(["user", "add", "mei", "--time-zone", "Asia/Taipei"])
        let never = try await Self.checks(s)
        #expect(never.code == 2 && never.states["last-run"] == "CRITICAL", "\(never.json)")
        #expect((never.json["summary"] as? String ?? "").contains("no run has finished yet"), "\(never.json)")
        try await s.ok(["user", "rm", "mei", "--yes"])
        let empty = try await Self.checks(s)
        #expect(empty.code == 0 && empty.states["last-run"] == "OK", "\(empty.json)")
    }

    @Test func aRecentRunIsOKOnOneLineWithPerformanceData() async throws {
        let s = try await Self.plannedStudent()
        let r = try await s.run(["status", "--now", "2025-01-07T03:30:00+08:00"])
        #expect(r.code == 0, "\(r)")
        let lines = r.stdout.split(separator: "\n")
        #expect(lines.count == 1 && lines[0].hasPrefix("REPLAN OK - last run 1 finished"), "\(r)")
        #expect(r.stdout.contains("| last_run_age=") && r.stdout.contains("failing_students=0"), "\(r)")
        let verbose = try await s.run(["status", "--verbose", "--now", "2025-01-07T03:30:00+08:00"])
        #expect(verbose.stdout.contains("[OK] model: model off: no API key configured"), "\(verbose)")
        #expect(verbose.stdout.contains("[OK] outbox:"), "\(verbose)")
    }

    @Test func aLastRunOlderThanMaxAgeIsCritical() async throws {
        let s = try await Self.plannedStudent()
        let late = try await Self.checks(s, now: "2025-01-07T06:30:00+08:00")
        #expect(late.code == 2 && late.states["last-run"] == "CRITICAL", "\(late.json)")
        let lenient = try await Self.checks(s, ["--max-age", "4h"], now: "2025-01-07T06:30:00+08:00")
        #expect(lenient.states["last-run"] == "OK", "\(lenient.json)")
        for bad in ["yesterday", "0", "-2h", "2w"] {
            let r = try await s.run(["status", "--max-age", bad])
            #expect(r.code == 3 && r.stdout.contains("--max-age"), "\(bad): \(r)")
        }
    }

    @Test func aStudentDueLongerThanMaxAgeAndNotPlannedWarns() async throws {
        let s = try await Self.plannedStudent()
        // The next night: mei's 03:00 came 2.5 hours ago, and no run has planned her.
        let r = try await Self.checks(s, ["--max-age", "2h"], now: "2025-01-08T05:30:00+08:00")
        #expect(r.states["due-not-planned"] == "WARNING", "\(r.json)")
        #expect(r.json["dueNotPlanned"] as? [String] == ["mei"], "\(r.json)")
        // Within the first two hours of her night she is simply not due long enough.
        let early = try await Self.checks(s, ["--max-age", "2h"], now: "2025-01-08T04:30:00+08:00")
        #expect(early.states["due-not-planned"] == nil, "\(early.json)")
    }

    @Test func theFailureMarkerOfTheHookIsCriticalUntilALaterRunFinishes() async throws {
        let s = try await Self.plannedStudent()
        let marker = s.path("last-failure")
        try "replan.service\n".write(toFile: marker, atomically: true, encoding: .utf8)
        // The marker was written (now, in real time) after the run recorded in 2025 finished.
        let failed = try await Self.checks(s, now: "2025-01-07T03:30:00+08:00")
        #expect(failed.code == 2 && failed.states["failure-marker"] == "CRITICAL", "\(failed.json)")
        #expect((failed.json["summary"] as? String ?? "").contains("replan.service failed"), "\(failed.json)")
        // A run that finishes after the marker clears it.
        try await s.ok(["run", "--no-model", "--force", "--now", "2099-01-07T03:00:00+08:00"])
        let later = try await Self.checks(s, now: "2099-01-07T03:30:00+08:00")
        #expect(later.states["failure-marker"] == nil, "\(later.json)")
    }

    @Test func studentsFailingSeveralNightsInARowWarnAndARunThatFailedEveryoneIsCritical() async throws {
        let s = try await Self.plannedStudent()
        try await s.ok(["user", "add", "ken", "--time-zone", "Asia/Taipei"])
        // Three nights in which ken failed (twice on the last, a retry), then a run that failed
        // only him.
        var sql = ""
        for (run, date) in [(10, "2025-01-04"), (11, "2025-01-05"), (12, "2025-01-06"), (13, "2025-01-06")] {
            sql +=
                "INSERT INTO runs (id, started_at, finished_at) VALUES (\(run), '\(date)T00:00:00Z', '\(date)T00:01:00Z');"
            sql +=
                "INSERT INTO user_runs (run_id, user_id, plan_date, status, error, finished_at) VALUES (\(run), 'ken', '\(date)', 'failed', 'boom', '\(date)T00:01:00Z');"
        }
        try SQL.execute(s.db, sql)
        let r = try await Self.checks(s, now: "2025-01-07T03:30:00+08:00")
        #expect(r.json["failingStudents"] as? [String] == ["ken"], "\(r.json)")
        #expect(r.states["failing-students"] == "WARNING", "\(r.json)")
        let two = try await Self.checks(s, ["--failing-nights", "4"], now: "2025-01-07T03:30:00+08:00")
        #expect(two.json["failingStudents"] as? [String] == [], "four nights were not all failed: \(two.json)")
        // The latest finished run failed its only student.
        try SQL.execute(
            s.db,
            "INSERT INTO runs (id, started_at, finished_at) VALUES (20, '2025-01-06T19:10:00Z', '2025-01-06T19:11:00Z');"
                + "INSERT INTO user_runs (run_id, user_id, plan_date, status, error, finished_at) VALUES (20, 'ken', '2025-01-07', 'failed', 'boom', '2025-01-06T19:11:00Z');"
        )
        let all = try await Self.checks(s, now: "2025-01-07T03:30:00+08:00")
        #expect(all.code == 2 && all.states["failed-students"] == "CRITICAL", "\(all.json)")
    }

    @Test func theModelStateIsReportedWithItsReasonAndAnUnusableKeyIsCritical() async throws {
        let s = try await Self.plannedStudent()
        let now = "2025-01-07T03:30:00+08:00"
        func model(_ extra: [String]) async throws -> (Int32, String) {
            let r = try await Self.checks(s, extra, now: now)
            let c = (r.json["checks"] as? [[String: Any]] ?? []).first { $0["check"] as? String == "model" }
            return (r.code, "\(c?["state"] ?? "-") \(c?["message"] ?? "-")")
        }
        #expect(
            try await model([]) == (
                0,
                "OK model off: no API key configured (--api-key-file, $CREDENTIALS_DIRECTORY/openai-api-key, $OPENAI_API_KEY or api_key_file); the model stage is skipped"
            ))
        let empty = try s.write("empty-key", "")
        #expect(try await model(["--api-key-file", empty]) == (0, "OK model off: --api-key-file \(empty) is empty"))
        let key = try s.write("key", "sk-test-123\n")
        let on = try await model(["--api-key-file", key])
        #expect(on.0 == 0 && on.1.hasPrefix("OK model on"), "\(on)")
        // A directory cannot be read, even by root: the system's reason is named.
        let unusable = try await model(["--api-key-file", s.directory])
        #expect(unusable.0 == 2 && unusable.1.contains("Is a directory"), "\(unusable)")
        #expect(!unusable.1.contains("sk-"), "\(unusable)")
    }

    @Test func retentionOverdueAndAnOldOutboxRowWarn() async throws {
        let s = try await Self.plannedStudent()
        try SQL.execute(
            s.db,
            "INSERT INTO notification_outbox (user_id, occurrence_id, fire_at, action, created_at) VALUES ('mei', 'math', '2025-01-08T00:00:00Z', 'schedule', '2025-01-05T00:00:00Z');"
        )
        let r = try await Self.checks(s, now: "2025-01-07T03:30:00+08:00")
        #expect(r.states["outbox"] == "WARNING" && r.code == 1, "\(r.json)")
        #expect((r.json["outbox"] as? [String: Any])?["rows"] as? Int == 1, "\(r.json)")
        let old = try await Self.checks(s, now: "2025-02-20T03:30:00+08:00")
        #expect(old.states["retention"] == "WARNING", "\(old.json)")
    }
}

/// The shipped `OnFailure=` hook, run as far as this machine allows without systemd: its
/// `ExecStart=` with the state directory moved into the sandbox writes the marker that
/// `status` reports.
@Suite struct FailureHookTests {
    @Test func theShippedHookWritesTheMarkerStatusReports() async throws {
        let s = try await StatusTests.plannedStudent()
        let unit = try String(contentsOfFile: TestFiles.path("systemd/replan-failure@.service"), encoding: .utf8)
        let line = try #require(unit.split(separator: "\n").first { $0.hasPrefix("ExecStart=/bin/sh -c '") })
        // ExecStart=/bin/sh -c 'SCRIPT' replan-failure %i, with systemd's %% for a literal %.
        let quoted = line.dropFirst("ExecStart=/bin/sh -c '".count)
        let script = try #require(quoted.range(of: "' replan-failure %i")).lowerBound
        let body = String(quoted[..<script]).replacingOccurrences(of: "%%", with: "%")
            .replacingOccurrences(of: "/var/lib/replan/", with: s.directory + "/")
            .replacingOccurrences(of: "/etc/replan/on-failure", with: s.path("no-hook"))
        let r = try Outcome.of("/bin/sh", ["-c", body, "replan-failure", "replan.service"])
        #expect(r.code == 0 && r.stdout.contains("<4>replan.service failed"), "\(r)")
        #expect(try String(contentsOfFile: s.path("last-failure"), encoding: .utf8) == "replan.service\n")
        let status = try await s.run(["status", "--now", "2025-01-07T03:30:00+08:00"])
        #expect(status.code == 2 && status.stdout.contains("replan.service failed at"), "\(status)")
        #expect(unit.contains("ReadWritePaths=/var/lib/replan"), "ProtectSystem=strict needs it to write the marker")
    }
}
