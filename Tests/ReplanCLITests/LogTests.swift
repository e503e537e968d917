import Foundation
import ReplanTestSupport
import Testing

@testable import ReplanCLI

/// `replan log` scales with runs, not students (issue 17): one line per run by default, the
/// students of a run on request, filters, and runs in which nobody was due hidden.
@Suite struct LogTests {
    /// `count` students with a missed session each, and one night run for them.
    static func night(students count: Int) async throws -> Sandbox {
        let s = try Sandbox()
        let users = (0..<count).map { i -> [String: Any] in
            [
                "id": "s\(i)", "timeZone": "Asia/Taipei",
                "tasks": [
                    [
                        "id": "s\(i)-m", "title": "Math", "category": "Math", "start": "2025-01-06T10:00",
                        "end": "2025-01-06T11:00",
                    ]
                ],
            ]
        }
        try await s.ok(["import", try s.writeJSON("users.json", ["format": "replan/1", "users": users])])
        try await s.ok(["run", "--no-model"])
        return s
    }

    @Test func aNightIsOneLineWithItsTotalsHoweverManyStudents() async throws {
        let s = try await Self.night(students: 30)
        let text = try await s.ok(["log", "--limit", "1"])
        let lines = text.split(separator: "\n").map(String.init)
        #expect(lines.count == 4, "header, the run, the changesets heading and one changeset: \(text)")
        let columns = lines[0].split(separator: " ", omittingEmptySubsequences: true).joined(separator: " ")
        #expect(
            columns == "run started due changed unchanged skipped failed model err tokens cost duration", "\(lines[0])")
        let run = lines[1].split(separator: " ").map(String.init)
        #expect(
            Array(run.prefix(9)) == ["1", "2025-01-06T19:00:00Z", "30", "30", "0", "0", "0", "0", "0"], "\(lines[1])")
        #expect(run[9] == "$0.0000", "no model tokens, no cost (gpt-5.1's prices unless configured): \(lines[1])")
    }

    @Test func runsInWhichNobodyWasDueAreHiddenUnlessAll() async throws {
        let s = try await Self.night(students: 2)
        try await s.ok(["run", "--no-model"]) // the hourly timer's next tick: nobody is due
        let shown = try await s.json(["log", "--json"])
        #expect((shown["runs"] as? [[String: Any]])?.map { $0["id"] as? Int } == [1])
        let all = try await s.json(["log", "--json", "--all"])
        #expect((all["runs"] as? [[String: Any]])?.map { $0["id"] as? Int } == [2, 1])
        let totals = try #require((all["runs"] as? [[String: Any]])?.last?["totals"] as? [String: Any])
        #expect(
            totals["due"] as? Int == 2 && totals["changed"] as? Int == 2 && totals["modelErrors"] as? Int == 0,
            "\(totals)")
        #expect(try await s.ok(["log", "--all"]).split(separator: "\n").filter { $0.hasPrefix("    2  ") }.count == 1)
    }

    @Test func runShowsEveryStudentAndStatusUserAndSinceFilter() async throws {
        let s = try await Self.night(students: 3)
        let detail = try await s.ok(["log", "--run", "1"])
        for i in 0..<3 { #expect(detail.contains("s\(i) 2025-01-07 changed cs-"), "\(detail)") }
        #expect(!detail.contains("changesets"), "a question about a run gets the run: \(detail)")

        let failed = try await s.ok(["log", "--status", "failed"])
        #expect(failed.contains("(none)"), "no run had a failed student: \(failed)")
        let changed = try await s.json(["log", "--json", "--status", "changed"])
        #expect((changed["runs"] as? [[String: Any]])?.first?["users"].map { ($0 as? [Any])?.count } == 3)

        let one = try await s.ok(["log", "--user", "s1"])
        #expect(one.contains("run 1  2025-01-06T19:00:00Z  s1 2025-01-07 changed") && !one.contains("s2 "), "\(one)")

        let future = try await s.json(["log", "--json", "--since", "2025-02-01"])
        #expect((future["runs"] as? [Any])?.isEmpty == true && (future["changesets"] as? [Any])?.isEmpty == true)
        let past = try await s.json(["log", "--json", "--since", "2025-01-06T18:00:00Z"])
        #expect((past["runs"] as? [Any])?.count == 1)
    }

    @Test func onATerminalALongLogGoesThroughThePager() async throws {
        let s = try await Self.night(students: 25)
        let paged = s.path("paged.txt")
        func log(_ extra: [String], tty: Bool) -> String {
            let captured = Captured()
            let console = Console(
                stdoutIsTTY: tty, stderrIsTTY: tty, stdinIsTTY: false, noColor: true, journal: false,
                writeOut: { captured.appendOut($0) }, writeErr: { _ in })
            var env = s.environment
            env["PAGER"] = "cat > \(paged)"
            #expect(ReplanCommandLine.run(["log"] + extra, environment: env, console: console) == .success)
            return captured.stdout
        }
        #expect(log(["--detail"], tty: true).isEmpty, "the pager got the text")
        let text = try String(contentsOfFile: paged, encoding: .utf8)
        #expect(text.contains("s24 2025-01-07 changed"), "\(text)")
        try FileManager.default.removeItem(atPath: paged)
        #expect(log(["--detail", "--no-pager"], tty: true).contains("s24 2025-01-07 changed"))
        #expect(log(["--detail"], tty: false).contains("s24 2025-01-07 changed"), "not a terminal: no pager")
        #expect(!log(["--limit", "1"], tty: true).isEmpty, "a short log is printed directly")
        #expect(!FileManager.default.fileExists(atPath: paged))
    }

    @Test func badFiltersExit65NamingTheValue() async throws {
        let s = try await Self.night(students: 1)
        for (args, mention) in [
            (["log", "--status", "great"], "great"), (["log", "--run", "99"], "no run 99"),
            (["log", "--since", "last week"], "last week"), (["log", "--user", "nobody"], "nobody"),
        ] {
            let r = try await s.run(args)
            #expect(r.code == 65 && r.stderr.contains(mention), "\(args): \(r)")
        }
    }

    @Test func onSQLiteThereIsNoSharedNightAndLogKeepsARunPerNight() async throws {
        let s = try await Self.night(students: 2)
        let r = try await s.run(["night"])
        #expect(r.code == 64 && r.stderr.contains("no shared night") && r.stdout.isEmpty, "\(r)")
        let log = try await s.json(["log", "--json"])
        let nights = try #require(log["nights"] as? [[String: Any]])
        #expect(nights.count == 1 && nights.first?["runs"] as? [Int] == [1] && nights.first?["id"] as? Int == 1)
        #expect((log["runs"] as? [[String: Any]])?.first?["night"] as? Int == 1)
    }

    @Test func theCostIsEstimatedFromTheConfiguredPrices() async throws {
        let s = try await Self.night(students: 1)
        let conf = try s.write("prices.conf", "price_input = 2\nprice_output = 8\n")
        let log = try await s.json(["log", "--json", "--config", conf])
        let totals = try #require((log["runs"] as? [[String: Any]])?.first?["totals"] as? [String: Any])
        #expect(totals["estimatedCostUSD"] as? Double == 0, "no tokens without the model: \(totals)")
        let bad = try s.write("bad.conf", "price_output = free\n")
        let r = try await s.run(["log", "--config", bad])
        #expect(r.code == 65 && r.stderr.contains("bad.conf:1: price_output"), "\(r)")
    }
}
