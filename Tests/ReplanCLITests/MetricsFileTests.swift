import Foundation
import ReplanTestSupport
import Testing

/// The run's metrics file (issue 26): Prometheus text format, read here by
/// `prometheus_client`'s parser, replaced atomically after every run.
@Suite struct MetricsFileTests {
    static func read(_ path: String) throws -> (samples: [String: Double], types: [String: String]) {
        let r = try Outcome.of("/usr/bin/env", ["python3", TestFiles.path("Tests/Support/read_metrics.py"), path])
        guard r.code == 0, let object = try JSONSerialization.jsonObject(with: Data(r.stdout.utf8)) as? [String: Any]
        else { throw TestFailure("the parser refused \(path): \(r)") }
        return (object["samples"] as? [String: Double] ?? [:], object["types"] as? [String: String] ?? [:])
    }

    @Test func everyRunWritesItsMetricsAndTheParserReadsThem() async throws {
        let s = try Sandbox()
        try await s.ok(["user", "add", "mei", "--time-zone", "Asia/Taipei"])
        try await s.ok(["user", "add", "ken", "--time-zone", "Asia/Taipei"])
        try await s.addTask("math", "Math", "2025-01-06T10:00", "2025-01-06T11:00", category: "Math")
        let path = s.path("replan.prom")
        let conf = try s.write("replan.conf", "metrics_file = \(path)\n")
        try await s.ok(["run", "--no-model", "--config", conf])
        let first = try Self.read(path)
        #expect(first.samples["replan_last_run_due_students"] == 2, "\(first)")
        #expect(first.samples["replan_last_run_students{outcome=changed}"] == 1, "\(first)")
        #expect(first.samples["replan_last_run_students{outcome=unchanged}"] == 1, "\(first)")
        #expect(first.samples["replan_last_run_students{outcome=failed}"] == 0, "\(first)")
        #expect(first.samples["replan_last_run_tokens{kind=prompt}"] == 0, "\(first)")
        #expect(first.samples["replan_last_run_estimated_cost_usd"] == 0, "\(first)")
        #expect(first.samples["replan_last_run_model_requests"] == 0, "\(first)")
        #expect(first.samples["replan_outbox_rows"] == 0, "\(first)")
        // The run's own clock: --now is 2025-01-06T19:00:00Z.
        #expect(first.samples["replan_last_run_start_timestamp_seconds"] == 1_736_190_000, "\(first)")
        let end = try #require(first.samples["replan_last_run_end_timestamp_seconds"])
        #expect(end >= 1_736_190_000 && end < 1_736_190_000 + 600, "\(first)")
        #expect(first.types.values.allSatisfy { $0 == "gauge" }, "\(first.types)")
        #expect(first.types.keys.allSatisfy { $0.hasPrefix("replan_") }, "\(first.types)")
        let mode = try FileManager.default.attributesOfItem(atPath: path)[.posixPermissions] as? Int
        #expect(mode == 0o644, "the collector runs as another user")

        // The next run replaces the file whole (the same inode is never rewritten in place)
        // and leaves no temporary behind.
        let inode = try FileManager.default.attributesOfItem(atPath: path)[.systemFileNumber] as? Int
        try await s.ok(["run", "--no-model", "--config", conf, "--now", "2025-01-08T03:00:00+08:00"])
        let second = try Self.read(path)
        #expect(second.samples["replan_last_run_id"] == 2, "\(second)")
        #expect(try FileManager.default.attributesOfItem(atPath: path)[.systemFileNumber] as? Int != inode)
        #expect(try FileManager.default.contentsOfDirectory(atPath: s.directory).filter { $0.hasSuffix(".tmp") } == [])
    }

    @Test func aBadMetricsPathIsBadInputAndAnUnwritableOneOnlyWarns() async throws {
        let s = try Sandbox()
        try await s.ok(["user", "add", "mei", "--time-zone", "Asia/Taipei"])
        let relative = try await s.run(["run", "--no-model", "--metrics-file", "replan.prom"])
        #expect(relative.code == 65 && relative.stderr.contains("--metrics-file"), "\(relative)")
        let show = try await s.run(["config", "show"], environment: ["REPLAN_METRICS_FILE": "/x/metrics.txt"])
        #expect(show.code == 65, "config show checks it like run: \(show)")
        let missing = try await s.run(["run", "--no-model", "--metrics-file", s.path("no/such/dir/replan.prom")])
        #expect(missing.code == 0 && missing.stderr.contains("cannot write the metrics file"), "\(missing)")
    }
}
