import Exchange
import Foundation
import Planning
import Store
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// `feeds`: one iCalendar file per student (`DIR/<id>.ics`), for a static web server to serve
/// as each student's subscription URL.
///
/// Each file is written beside its final name and renamed over it, so the web server only ever
/// serves a whole old file or a whole new one. Students are streamed (one batch of ids in
/// memory), each plan read for the feed's window only.
package struct FeedPublisher: Sendable {
    /// What a pass wrote.
    package struct Published: Sendable {
        package var written = 0
        package var failed = 0
        /// Every student handed to a worker (written or not: a failed write keeps the old feed).
        package var handedOut: Set<String> = []
    }

    package let databasePath: String
    package let directory: String
    package let now: Date
    /// Days before and after each student's today in their feed.
    package let daysBack: Int
    package let daysAhead: Int

    package init(databasePath: String, directory: String, now: Date, daysBack: Int, daysAhead: Int) {
        self.databasePath = databasePath
        self.directory = directory
        self.now = now
        self.daysBack = daysBack
        self.daysAhead = daysAhead
    }

    /// Writes the feeds of `only` (empty: every student) with `workers` threads, each with its
    /// own connection; stops handing out students once `shouldStop` says so. A student whose
    /// feed fails is logged through `log` and counted, never fatal to the others.
    package func publish(
        only: [String], database: ReplanDatabase, workers: Int, shouldStop: @escaping @Sendable () -> Bool,
        log: @escaping @Sendable (String) -> Void
    ) throws(UseCaseError) -> Published {
        try Self.checkDirectory(directory)
        _ = Self.removeStaleTemporaries(in: directory)
        var source: UserSource
        if only.isEmpty {
            // The cursor gets a connection of its own: the workers share it under the source's
            // lock, and nothing else may use it meanwhile.
            let location = database.location
            let connection = try storeCall { () throws(StoreError) in try location.open() }
            source = UserSource(cursor: UserRepository(connection).cursor(), users: [])
        } else {
            let roster = Roster(database: database)
            // `--user a --user a` is one student: two workers writing one feed would race for
            // its temporary file.
            var seen: Set<String> = []
            let ids = only.filter { seen.insert($0).inserted }
            source = UserSource(cursor: nil, users: try ids.map { id throws(UseCaseError) in try roster.user(id) })
        }
        let tally = Tally()
        let group = DispatchGroup()
        let (location, feeds) = (database.location, self)
        for _ in 0..<workers {
            group.enter()
            // A thread per worker with its own connection: a SQLite handle belongs to one thread.
            Thread { [source] in
                defer { group.leave() }
                let plans: PlanRepository
                let changesets: ChangesetStore
                do throws(StoreError) {
                    let connection = try location.open()
                    plans = PlanRepository(connection)
                    changesets = ChangesetStore(connection)
                } catch {
                    log("feeds: cannot open \(location): \(error)")
                    tally.failed()
                    return
                }
                while !shouldStop(), let next = source.next() {
                    switch next {
                    case .failure(let error):
                        tally.failed()
                        log("feeds: \(error)")
                    case .success(let user):
                        do {
                            try feeds.feed(user, plans: plans, changesets: changesets)
                            tally.written()
                        } catch {
                            tally.failed()
                            log("feeds: \(user.id): \(error)")
                        }
                    }
                }
            }.start()
        }
        group.wait()
        let (written, failed) = tally.counts
        return Published(written: written, failed: failed, handedOut: source.handedOut)
    }

    /// Deletions from 30 days before the window's first day on are listed as cancelled: the
    /// rules drop a stale session after it (a week later by default), a student may delete a
    /// coming one earlier.
    package static func droppedSince(_ window: ClosedRange<CivilDate>, zone: UserZone) -> Date {
        zone.instant(CivilDateTime(date: window.lowerBound.adding(days: -30), time: TimeOfDay(minutes: 0)))
    }

    func feed(_ user: User, plans: PlanRepository, changesets: ChangesetStore) throws {
        let today = user.zone.civil(now).date
        let window = today.adding(days: -daysBack)...today.adding(days: daysAhead)
        let plan = try plans.loadPlan(user: user, window: window)
        let dropped = try changesets.droppedSessions(
            userID: user.id, since: Self.droppedSince(window, zone: user.zone))
        let ics = ICalendarExport.render(
            plan, from: window.lowerBound, through: window.upperBound, stamp: now, dropped: dropped,
            moves: try Self.nightMoves(userID: user.id, window: window, zone: user.zone, changesets: changesets))
        try Self.replace(directory: directory, name: user.id + ".ics", contents: Data(ics.utf8))
    }

    /// The moves of the student's applied nightly changesets since the feed's first day, oldest
    /// first: the feed says of a session why and from where its latest move took it, for as
    /// long as it is open and still where that move put it (docs/planning.md §12). A move
    /// made before the feed's first day is no longer told.
    static func nightMoves(
        userID: String, window: ClosedRange<CivilDate>, zone: UserZone, changesets: ChangesetStore
    ) throws(StoreError) -> [PlanEdit] {
        let since = zone.instant(CivilDateTime(date: window.lowerBound, time: TimeOfDay(minutes: 0)))
        return try changesets.nightlyReports(userID: userID, since: since).flatMap { report in
            (report["edits"]?.arrayValue ?? []).compactMap(EditReport.edit(from:)).filter { $0.op == .move }
        }
    }

    /// The students to write, handed out one at a time to the workers: streamed from the
    /// database (one batch of ids in memory) or a fixed list (`--user`).
    final class UserSource: Sendable {
        private struct State {
            var cursor: UserCursor?
            var users: [User]
            var seen: Set<String> = []
        }
        private let state: Mutex<State>

        init(cursor: sending UserCursor?, users: [User]) {
            state = Mutex(State(cursor: cursor, users: users.reversed()))
        }

        /// The next student, a student whose row could not be read, or nil at the end.
        func next() -> Result<User, StoreError>? {
            state.withLock { s in
                var result: Result<User, StoreError>?
                if s.cursor == nil {
                    result = s.users.popLast().map { .success($0) }
                } else {
                    do throws(StoreError) { result = try s.cursor!.next().map { .success($0) } } catch {
                        result = .failure(error)
                    }
                }
                if case .success(let user)? = result { s.seen.insert(user.id) }
                return result
            }
        }

        /// The ids of every student handed out.
        var handedOut: Set<String> { state.withLock { $0.seen } }
    }

    /// Counts from the worker threads.
    final class Tally: Sendable {
        private let state = Mutex((ok: 0, bad: 0))
        func written() { state.withLock { $0.ok += 1 } }
        func failed() { state.withLock { $0.bad += 1 } }
        var counts: (Int, Int) { state.withLock { ($0.ok, $0.bad) } }
    }

    /// Refuses a feed directory that someone else could plant or swap files in: writable by its
    /// group or by everyone, unless it is sticky (nobody may rename or delete another's entries)
    /// and owned by replan's user. The feeds are published from it, so a file swapped in there
    /// would be served as a student's calendar, and a link planted at a temporary name once made
    /// replan overwrite a file of its user's (issue 28).
    package static func checkDirectory(_ directory: String) throws(UseCaseError) {
        var st = stat()
        guard stat(directory, &st) == 0 else {
            throw UseCaseError(
                .cannotOpenDatabase,
                "cannot use the feed directory \(directory): \(String(cString: strerror(errno)))")
        }
        let mode = st.st_mode
        let writableByOthers = mode & (S_IWGRP | S_IWOTH) != 0
        let sticky = mode & S_ISVTX != 0
        if writableByOthers && !(sticky && st.st_uid == geteuid()) {
            throw UseCaseError(
                .cannotOpenDatabase,
                "the feed directory \(directory) is writable by other users (mode \(String(mode & 0o7777, radix: 8))); make it writable by its owner only (chmod go-w), or sticky and owned by this user"
            )
        }
    }

    /// Deletes temporary files left in `directory` by feed passes that died before renaming
    /// them (their process is gone). A pass still running keeps its own.
    package static func removeStaleTemporaries(in directory: String) -> Int {
        var removed = 0
        for name in (try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? [] {
            guard let pid = temporaryOwner(name), pid != getpid(), kill(pid, 0) != 0, errno == ESRCH else { continue }
            // unlink(2) removes a link itself, never what it points to.
            if unlink((directory as NSString).appendingPathComponent(name)) == 0 { removed += 1 }
        }
        return removed
    }

    /// The process id in a temporary file's name (`.<name>.<pid>.tmp`), nil for other names.
    static func temporaryOwner(_ name: String) -> pid_t? {
        guard name.hasPrefix("."), name.hasSuffix(".tmp") else { return nil }
        let parts = name.dropLast(4).split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count >= 3, let pid = pid_t(parts[parts.count - 1]), pid > 0 else { return nil }
        return pid
    }

    /// Writes `contents` to a hidden temporary file in `directory` and renames it over `name`:
    /// rename(2) within one directory is atomic, so readers see the old file or the new one.
    /// No fsync per file: after a crash the next run rewrites every feed anyway.
    ///
    /// The temporary file is created exclusively and never through a link (`O_EXCL` with
    /// `O_NOFOLLOW`): whatever already has its name, a file or a link someone planted, is
    /// removed (the entry itself) and the name created afresh, or the feed fails.
    static func replace(directory: String, name: String, contents: Data) throws {
        let final = (directory as NSString).appendingPathComponent(name)
        let temporary = (directory as NSString).appendingPathComponent(".\(name).\(getpid()).tmp")
        let flags = O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC
        var fd = open(temporary, flags, 0o644)
        if fd < 0 && errno == EEXIST {
            unlink(temporary)
            fd = open(temporary, flags, 0o644)
        }
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

    /// A feed file that could not be written, with the system's reason.
    struct FeedError: Error, CustomStringConvertible {
        var path: String
        var call: String
        var reason = String(cString: strerror(errno))
        var description: String { "cannot write \(path) (\(call): \(reason))" }
    }
}
