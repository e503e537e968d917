import Exchange
import Foundation
import JSON
import Planning
import Store

#if canImport(Glibc)
    import Glibc
#endif

/// `replan feeds --out DIR`: one iCalendar file per student (`DIR/<id>.ics`), for a static web
/// server to serve as each student's subscription URL. Meant to run after every night.
///
/// Each file is written beside its final name and renamed over it, so the web server only ever
/// serves a whole old file or a whole new one. Students are streamed (one batch of ids in
/// memory), each plan read for the feed's window only.
enum FeedsCommand {
    static let descriptor = CommandDescriptor(
        path: ["feeds"],
        synopsis:
            "feeds --out DIR [--user ID]… [--days-back N] [--days-ahead N] [--concurrency N] [--remove-stale] [--json]",
        summary: "write one iCalendar feed per student (DIR/<id>.ics), each replaced atomically",
        details: """
            Each feed holds the student's sessions from --days-back (14) days before their today to
            --days-ahead (60) days after it, as `replan export --format ics` writes them. Files are
            named after the student id: serve DIR only behind access control, since ids can be guessed.
            """,
        options: [
            .value("--out", "directory to write the feeds to (created if missing)"),
            .value("--user", "only this student (repeatable)", repeatable: true),
            .value("--days-back", "days before today in each feed (default 30)"),
            .value("--days-ahead", "days after today in each feed (default 60)"),
            .value("--concurrency", "students written at once (default: the number of processors)"),
            .flag("--remove-stale", "also delete DIR/*.ics of students that no longer exist"),
            .flag("--json", "print JSON"),
        ]
    ) { ctx in
        let a = ctx.arguments
        try a.rejectExtraPositionals(beyond: 0)
        let out = try a.required("--out")
        let back = try a.int("--days-back", in: 0...3650) ?? 14
        let ahead = try a.int("--days-ahead", in: 0...3650) ?? 60
        let started = Date()
        try prepare(directory: out)
        let db = try ctx.openExistingDatabase()
        let workers = try a.int("--concurrency", in: 1...64) ?? ProcessInfo.processInfo.activeProcessorCount
        let only = a.values("--user")
        if a.flag("--remove-stale"), !only.isEmpty {
            throw CLIError.usage("--remove-stale needs every student: it cannot be combined with --user")
        }
        var fixed: [User]?
        if !only.isEmpty {
            let users = UserRepository(db)
            fixed = try only.map { id throws(CLIError) in try storeCall { () throws(StoreError) in try users.get(id) } }
        }
        let source = UserSource(cursor: fixed == nil ? UserRepository(db).cursor() : nil, users: fixed ?? [])
        let tally = Tally()
        let (now, path, console, interruption) = (ctx.now, ctx.databasePath, ctx.console, ctx.interruption)
        let group = DispatchGroup()
        for _ in 0..<workers {
            group.enter()
            // A thread per worker with its own connection: a SQLite handle belongs to one thread.
            Thread {
                defer { group.leave() }
                let plans: PlanRepository
                let changesets: ChangesetStore
                do throws(StoreError) {
                    let connection = try Database.open(path: path)
                    plans = PlanRepository(connection)
                    changesets = ChangesetStore(connection)
                } catch {
                    console.log("feeds: cannot open \(path): \(error)", priority: .error)
                    tally.failed()
                    return
                }
                while !interruption.isRaised, let next = source.next() {
                    switch next {
                    case .failure(let error):
                        tally.failed()
                        console.log("feeds: \(error)", priority: .error)
                    case .success(let user):
                        do {
                            try feed(
                                user, plans: plans, changesets: changesets, out: out, now: now, back: back, ahead: ahead
                            )
                            tally.written()
                        } catch {
                            tally.failed()
                            console.log("feeds: \(user.id): \(error)", priority: .error)
                        }
                    }
                }
            }.start()
        }
        group.wait()
        let (written, failed) = tally.counts
        // Feeds of students who no longer exist, only when asked (the directory may hold other
        // .ics files) and only after a complete pass (an interrupted one saw too few students).
        var removed = 0
        if a.flag("--remove-stale"), !ctx.interruption.isRaised {
            let seen = source.handedOut
            for name in (try? FileManager.default.contentsOfDirectory(atPath: out)) ?? []
            where name.hasSuffix(".ics") && !name.hasPrefix(".") && !seen.contains(String(name.dropLast(4))) {
                if unlink((out as NSString).appendingPathComponent(name)) == 0 { removed += 1 }
            }
        }
        let seconds = Date().timeIntervalSince(started)
        if a.flag("--json") {
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

    /// Deletions from 30 days before the window's first day on are listed as cancelled: the
    /// rules drop a stale session after it (a week later by default), a student may delete a
    /// coming one earlier.
    static func droppedSince(_ window: ClosedRange<CivilDate>, zone: UserZone) -> Date {
        zone.instant(CivilDateTime(date: window.lowerBound.adding(days: -30), time: TimeOfDay(minutes: 0)))
    }

    static func feed(
        _ user: User, plans: PlanRepository, changesets: ChangesetStore, out: String, now: Date,
        back: Int, ahead: Int
    ) throws {
        let today = user.zone.civil(now).date
        let window = today.adding(days: -back)...today.adding(days: ahead)
        let plan = try plans.loadPlan(user: user, window: window)
        let dropped = try changesets.droppedSessions(userID: user.id, since: droppedSince(window, zone: user.zone))
        let ics = ICalendarExport.render(
            plan, from: window.lowerBound, through: window.upperBound, stamp: now, dropped: dropped)
        try replace(directory: out, name: user.id + ".ics", contents: Data(ics.utf8))
    }

    /// The students to write, handed out one at a time to the workers: streamed from the
    /// database (one batch of ids in memory) or a fixed list (`--user`).
    final class UserSource: @unchecked Sendable {
        private let lock = NSLock()
        private var cursor: UserCursor?
        private var users: [User]

        init(cursor: UserCursor?, users: [User]) {
            self.cursor = cursor
            self.users = users.reversed()
        }

        private var seen: Set<String> = []

        /// The next student, a student whose row could not be read, or nil at the end.
        func next() -> Result<User, StoreError>? {
            lock.withLock {
                var result: Result<User, StoreError>?
                if cursor == nil {
                    result = users.popLast().map { .success($0) }
                } else {
                    do throws(StoreError) { result = try cursor!.next().map { .success($0) } } catch {
                        result = .failure(error)
                    }
                }
                if case .success(let user)? = result { seen.insert(user.id) }
                return result
            }
        }

        /// The ids of every student handed out (written or not: a failed write keeps the old feed).
        var handedOut: Set<String> { lock.withLock { seen } }
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

    /// Writes `contents` to a hidden temporary file in `directory` and renames it over `name`:
    /// rename(2) within one directory is atomic, so readers see the old file or the new one.
    /// No fsync per file: after a crash the next run rewrites every feed anyway.
    static func replace(directory: String, name: String, contents: Data) throws {
        let final = (directory as NSString).appendingPathComponent(name)
        let temporary = (directory as NSString).appendingPathComponent(".\(name).\(getpid()).tmp")
        let fd = open(temporary, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
        guard fd >= 0 else { throw FeedError(path: temporary, call: "open") }
        var failure: FeedError?
        contents.withUnsafeBytes { buffer in
            var offset = 0
            while offset < buffer.count {
                let n = Glibc.write(fd, buffer.baseAddress! + offset, buffer.count - offset)
                if n < 0 {
                    if errno == EINTR { continue }
                    failure = FeedError(path: temporary, call: "write")
                    return
                }
                offset += n
            }
        }
        // The umask may have narrowed 0644; a feed must stay readable by the web server.
        if failure == nil, fchmod(fd, 0o644) != 0 { failure = FeedError(path: temporary, call: "fchmod") }
        if close(fd) != 0, failure == nil { failure = FeedError(path: temporary, call: "close") }
        if failure == nil, rename(temporary, final) != 0 { failure = FeedError(path: final, call: "rename") }
        if let failure {
            unlink(temporary)
            throw failure
        }
    }

    /// Counts from the worker threads.
    final class Tally: @unchecked Sendable {
        private let lock = NSLock()
        private var ok = 0, bad = 0
        func written() { lock.withLock { ok += 1 } }
        func failed() { lock.withLock { bad += 1 } }
        var counts: (Int, Int) { lock.withLock { (ok, bad) } }
    }

    struct FeedError: Error, CustomStringConvertible {
        var path: String
        var call: String
        var reason = String(cString: strerror(errno))
        var description: String { "cannot write \(path) (\(call): \(reason))" }
    }
}
