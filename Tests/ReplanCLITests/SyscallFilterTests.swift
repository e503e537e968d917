import Foundation
import ReplanTestSupport
import Testing

/// The unit's `SystemCallFilter=` against the calls a run makes (issue 26): the filter denied
/// `setpriority`, so the workers silently stayed at the writer's priority. The calls are
/// recorded with strace; the filter's sets are expanded by `systemd-analyze syscall-filter`,
/// which works without a running systemd.
@Suite struct SyscallFilterTests {
    static let tools = ["/usr/bin/strace", "/usr/bin/systemd-analyze"].allSatisfy {
        FileManager.default.isExecutableFile(atPath: $0)
    }

    /// The system calls of a set, with the sets it includes expanded.
    static func expand(_ name: String, cache: inout [String: Set<String>]) throws -> Set<String> {
        if !name.hasPrefix("@") { return [name] }
        if let known = cache[name] { return known }
        let r = try Outcome.of("/usr/bin/systemd-analyze", ["syscall-filter", "--no-pager", name])
        guard r.code == 0 else { throw TestFailure("systemd-analyze syscall-filter \(name): \(r)") }
        var calls: Set<String> = []
        for line in r.stdout.split(separator: "\n").dropFirst() {
            let item = line.trimmingCharacters(in: .whitespaces)
            if item.isEmpty || item.hasPrefix("#") { continue }
            calls.formUnion(try expand(item, cache: &cache))
        }
        cache[name] = calls
        return calls
    }

    /// What the unit's `SystemCallFilter=` lines allow, in systemd's order: the first line
    /// decides allow-list mode, later lines add (plain) or remove (`~`) calls.
    static func allowed(byUnit path: String) throws -> Set<String> {
        var cache: [String: Set<String>] = [:]
        var allowed: Set<String> = []
        var first = true
        for line in try String(contentsOfFile: path, encoding: .utf8).split(separator: "\n")
        where line.hasPrefix("SystemCallFilter=") {
            var value = line.dropFirst("SystemCallFilter=".count).trimmingCharacters(in: .whitespaces)
            let deny = value.hasPrefix("~")
            if deny { value.removeFirst() }
            var names: Set<String> = []
            for item in value.split(separator: " ") { names.formUnion(try expand(String(item), cache: &cache)) }
            if first && deny {
                throw TestFailure("the unit's filter starts with a deny list; this test expects an allow list")
            }
            first = false
            if deny { allowed.subtract(names) } else { allowed.formUnion(names) }
        }
        return allowed
    }

    @Test(.enabled(if: tools, "needs strace and systemd-analyze"))
    func everyCallOfARunIsAllowedByTheUnitsFilter() async throws {
        let s = try Sandbox()
        for id in ["ann", "bob", "cat"] {
            try await s.ok(["user", "add", id, "--time-zone", "Asia/Taipei"])
            try await s.addTask(
                "math-\(id)", "Math", "2025-01-06T10:00", "2025-01-06T11:00", category: "Math", user: id)
        }
        let trace = s.path("strace.txt")
        let prom = s.path("replan.prom")
        let r = try Outcome.of(
            "/usr/bin/strace",
            ["-f", "-qq", "-o", trace, Binary.path, "run", "--no-model", "--concurrency", "2", "--metrics-file", prom],
            environment: s.environment, directory: s.directory)
        #expect(r.code == 0, "\(r)")
        var called: Set<String> = []
        for line in try String(contentsOfFile: trace, encoding: .utf8).split(separator: "\n") {
            // "1234  name(args…) = result"; resumed and signal lines carry no new call.
            let fields = line.split(separator: " ", maxSplits: 1, omittingEmptySubsequences: true)
            guard fields.count == 2 else { continue }
            let rest = fields[1].trimmingCharacters(in: .whitespaces)
            guard let paren = rest.firstIndex(of: "("), !rest.hasPrefix("<"), !rest.hasPrefix("-"),
                !rest.hasPrefix("+")
            else { continue }
            called.insert(String(rest[..<paren]))
        }
        #expect(called.contains("setpriority"), "the workers lower their priority: \(called.sorted())")
        let allowed = try Self.allowed(byUnit: TestFiles.path("systemd/replan.service"))
        // execve is strace starting the binary (and in @system-service anyway). SQLite gives
        // a new database file its directory's owner only when running as root, which the
        // service (User=replan) never is.
        let rootOnly: Set<String> = geteuid() == 0 ? ["fchown"] : []
        let denied = called.subtracting(allowed).subtracting(["execve"]).subtracting(rootOnly)
        #expect(denied.isEmpty, "the unit's SystemCallFilter= denies calls a run makes: \(denied.sorted())")
    }
}
