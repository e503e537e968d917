import Foundation
import JSON
import Nightly
import Planning

/// `replan feeds --out DIR`: one iCalendar file per student (`DIR/<id>.ics`), for a static web
/// server to serve as each student's subscription URL. Meant to run after every night. The
/// writing is `FeedPublisher`'s; this prepares the directory, removes stale feeds and reports.
struct FeedsCommand: ReplanCommand {
    static let configuration = CommandConfiguration(
        name: "feeds", abstract: "write one iCalendar feed per student (DIR/<id>.ics), each replaced atomically",
        discussion: """
            Each feed holds the student's sessions from --days-back (14) days before their today to
            --days-ahead (60) days after it, as `replan export --format ics` writes them. Files are
            named after the student id: serve DIR only behind access control, since ids can be guessed.
            """)

    @Option(
        name: "--out", value: "DIR", help: "directory to write the feeds to (created if missing)",
        completion: .directory)
    var out: String
    @Option(name: "--user", value: "ID", help: "only this student (repeatable)") var user: [String]
    @Option(name: "--days-back", range: 0...3650, help: "days before today in each feed (default 14)")
    var daysBack: Int?
    @Option(name: "--days-ahead", range: 0...3650, help: "days after today in each feed (default 60)")
    var daysAhead: Int?
    @Option(name: "--concurrency", range: 1...64, help: "students written at once (default: the number of processors)")
    var concurrency: Int?
    @Flag(name: "--remove-stale", help: "also delete DIR/*.ics of students that no longer exist") var removeStale: Bool
    @Flag(name: "--json", help: "print JSON") var json: Bool

    func run(_ ctx: CommandContext) throws -> ExitCode {
        let out = self.out
        let back = self.daysBack ?? 14
        let ahead = self.daysAhead ?? 60
        let started = Date()
        try Self.prepare(directory: out)
        let db = try ctx.openExistingDatabase()
        let workers = self.concurrency ?? ProcessInfo.processInfo.activeProcessorCount
        let only = self.user
        if self.removeStale, !only.isEmpty {
            throw CLIError.usage("--remove-stale needs every student: it cannot be combined with --user")
        }
        let (console, interruption) = (ctx.console, ctx.interruption)
        let feeds = FeedPublisher(
            databasePath: ctx.databasePath, directory: out, now: ctx.now, daysBack: back, daysAhead: ahead)
        let published = try useCase { () throws(UseCaseError) in
            try feeds.publish(
                only: only, database: db, workers: workers, shouldStop: { interruption.isRaised },
                log: { console.log($0, priority: .error) })
        }
        let (written, failed) = (published.written, published.failed)
        // Feeds of students who no longer exist, only when asked (the directory may hold other
        // .ics files) and only after a complete pass (an interrupted one saw too few students).
        var removed = 0
        if self.removeStale, !ctx.interruption.isRaised {
            let seen = published.handedOut
            for name in (try? FileManager.default.contentsOfDirectory(atPath: out)) ?? []
            where name.hasSuffix(".ics") && !name.hasPrefix(".") && !seen.contains(String(name.dropLast(4))) {
                if unlink((out as NSString).appendingPathComponent(name)) == 0 { removed += 1 }
            }
        }
        let seconds = Date().timeIntervalSince(started)
        if self.json {
            ctx.console.out(
                JSONValue.object([
                    "schema": "replan.feeds/1", "directory": .string(out), "written": .int(written),
                    "failed": .int(failed),
                    "removed": .int(removed),
                    "seconds": .number((seconds * 1000).rounded() / 1000),
                ]).prettyText)
        }
        ctx.console.log(
            "feeds: \(written) written to \(out), \(failed) failed\(removed > 0 ? ", \(removed) stale removed" : ""), \(String(format: "%.1f", seconds)) s",
            priority: failed > 0 ? .warning : .notice)
        if ctx.interruption.isRaised { return ctx.interruption.exitCode }
        return failed > 0 ? .someUsersFailed : .success
    }

    /// The output directory, created (mode 0755: a web server reads it) when missing.
    static func prepare(directory: String) throws(CLIError) {
        var isDirectory: ObjCBool = false
        if FileManager.default.fileExists(atPath: directory, isDirectory: &isDirectory) {
            guard isDirectory.boolValue else {
                throw CLIError(.cannotOpenDatabase, "--out \(directory) is not a directory")
            }
        } else {
            do {
                try FileManager.default.createDirectory(
                    atPath: directory, withIntermediateDirectories: true,
                    attributes: [.posixPermissions: 0o755])
            } catch {
                throw CLIError(
                    .cannotOpenDatabase, "cannot create the feed directory \(directory): \(error.localizedDescription)")
            }
        }
        guard access(directory, W_OK) == 0 else {
            throw CLIError(
                .cannotOpenDatabase,
                "cannot write to the feed directory \(directory): \(String(cString: strerror(errno)))")
        }
    }
}
