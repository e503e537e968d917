import Foundation
import ReplanTestSupport
import Testing

@testable import ReplanCLI

/// The pager of `replan log` (issue 26 item 4, issue 28 item 14): a pager that cannot start or
/// fails must not swallow the log, and Ctrl-C while it shows the log must not leave it running
/// without replan.
@Suite struct PagerTests {
    static let text = (1...40).map { "line \($0)" }.joined(separator: "\n")

    /// `Pager.show` on a console that claims a terminal, with `pager` as `$PAGER`.
    static func paged(_ pager: String) -> (stdout: String, stderr: String) {
        let captured = Captured()
        let console = Console(
            stdoutIsTTY: true, stderrIsTTY: false, stdinIsTTY: false, noColor: true, journal: false,
            writeOut: { captured.appendOut($0) }, writeErr: { captured.appendErr($0) })
        let env = ["PAGER": pager, "PATH": ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"]
        Pager.show(text, console: console, environment: env, allowed: true)
        return (captured.stdout, captured.stderr)
    }

    @Test func aPagerThatIsNotInstalledFallsBackToPrinting() {
        let r = Self.paged("no-such-pager-26 -R")
        #expect(r.stdout.contains("line 40"), "\(r)")
        #expect(r.stderr.contains("not installed") && r.stderr.contains("no-such-pager-26"), "\(r)")
        let absolute = Self.paged("/nonexistent/less")
        #expect(absolute.stdout.contains("line 40"), "\(absolute)")
    }

    @Test func aFailingPagerFallsBackToPrinting() {
        for pager in ["false", "sh -c 'exit 3'", "cat >/nonexistent/dir/x"] {
            let r = Self.paged(pager)
            #expect(r.stdout.contains("line 1\n") && r.stdout.contains("line 40"), "\(pager): \(r)")
            #expect(r.stderr.contains("failed (exit"), "\(pager): \(r)")
        }
    }

    @Test(
        .enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/script"), "needs script(1) for a terminal"))
    func ctrlCWhileThePagerShowsTheLogWaitsForThePager() async throws {
        let s = try await LogTests.night(students: 30)
        // The pager sends replan the SIGINT a Ctrl-C would, then keeps reading; replan must
        // wait for it rather than die and leave it behind.
        var env = s.environment
        env["PAGER"] = "kill -INT $PPID; sleep 0.5; cat >/dev/null; echo pager-finished"
        env["TERM"] = "xterm"
        let r = try Outcome.of(
            "/usr/bin/script", ["-qec", "\(Binary.path) log --detail; echo replan-exit=$?", "/dev/null"],
            environment: env, directory: s.directory)
        #expect(r.stdout.contains("pager-finished"), "\(r)")
        #expect(r.stdout.contains("replan-exit=0"), "\(r)")
    }
}
