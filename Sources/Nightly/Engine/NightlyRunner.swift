import Foundation
import JSON
import Planning
import Store
import Synchronization

/// The nightly job over many users: streams the due users from the database, runs their
/// pipelines on `concurrency` worker threads (each with its own read connection, at a lower
/// CPU priority than the writer) and hands every user's changeset, user-run row and statistics
/// to the writer threads and connections (`WriterPool`: one on SQLite), so a user's night is either fully
/// recorded or not at all (crash-only) and writers never fight over the database.
package final class NightlyRunner: Sendable {
    /// Why a run could not start.
    package enum RunError: Error, CustomStringConvertible {
        case locked(path: String)
        case store(StoreError)

        package var description: String {
            switch self {
            case .locked(let path): return "another replan run holds the lock on \(path); try again later"
            case .store(let e): return e.description
            }
        }

        /// The failure as the other use cases report theirs (another run's lock is `locked`).
        package var useCaseError: UseCaseError {
            switch self {
            case .locked: return UseCaseError(.locked, description)
            case .store(let e): return UseCaseError(store: e)
            }
        }
    }

    /// Counts of one run.
    package struct Report: Sendable {
        package var runID = 0
        package var due = 0
        package var changed = 0
        package var unchanged = 0
        package var skipped = 0
        package var failed = 0
        package var tokens = TokenCounts()
        /// Estimated cost of the run's model requests, US dollars.
        package var costUSD = 0.0
        /// Students by the call policy's reason (asked or not), e.g. `flags`, `unchanged`.
        package var modelReasons: [String: Int] = [:]
        /// Students the model was actually asked for.
        package var modelAsked = 0
        /// Users for whom the model was wanted, and how many of those got no answer.
        package var modelWanted = 0
        package var modelFailed = 0
        /// Students whose model stage ended in an error, by `ModelErrorKind` (with
        /// `--on-model-error=local` their local edits still committed, so they are not
        /// `failed`; these counts are what makes such errors visible).
        package var modelErrors: [String: Int] = [:]
        package var interrupted = false
        /// On PostgreSQL: claims this worker took over from a worker whose lease ran out, and
        /// nights whose commit was refused because another worker had taken the claim over
        /// (nothing of them was written).
        package var rescued = 0
        package var refused = 0
        /// The worker's name in the night's claims (PostgreSQL).
        package var worker: String?
        package var startedAt = Date()
        package var finishedAt = Date()

        package var done: Int { changed + unchanged + skipped + failed }
        package var modelErrorCount: Int { modelErrors.values.reduce(0, +) }
        /// docs/model.md §7 / docs/commands.md §5 exit 69: the model was needed and unavailable for every user.
        package var modelUnavailableForAll: Bool { modelWanted > 0 && modelFailed == modelWanted }
    }

    let databasePath: String
    let pipeline: UserPipeline
    let options: RunOptions
    let shouldStop: @Sendable () -> Bool
    /// Called once a user's night is committed (or lost), on the writer thread: keep it short,
    /// and never wait on the run from it.
    let onUser: @Sendable (UserNight) -> Void
    /// Called after `onUser`, on the writer thread.
    let onProgress: @Sendable (Report) -> Void
    /// Called with a user's id right before their night is committed: a seam for tests that
    /// land a student's edit between the night's reads and its commit.
    let beforeCommit: @Sendable (String) -> Void
    /// Opens each worker thread's reading connection: a seam for tests of a worker that
    /// cannot reach the database.
    let openWorkerConnection: @Sendable (StoreLocation) throws(StoreError) -> any SQLExecutor

    private let report = Mutex(Report())
    /// Every time the run records is read here (`--now` governs its start and finish alike).
    private let clock: RunClock

    package init(
        databasePath: String, pipeline: UserPipeline, options: RunOptions,
        shouldStop: @escaping @Sendable () -> Bool = { false },
        onUser: @escaping @Sendable (UserNight) -> Void = { _ in },
        onProgress: @escaping @Sendable (Report) -> Void = { _ in },
        beforeCommit: @escaping @Sendable (String) -> Void = { _ in },
        openWorkerConnection: @escaping @Sendable (StoreLocation) throws(StoreError) -> any SQLExecutor = {
            try $0.open()
        }
    ) {
        self.databasePath = databasePath
        self.pipeline = pipeline
        self.options = options
        self.shouldStop = shouldStop
        self.onUser = onUser
        self.onProgress = onProgress
        self.beforeCommit = beforeCommit
        self.clock = RunClock(start: options.now)
        self.openWorkerConnection = openWorkerConnection
    }

    package func run() throws(RunError) -> Report {
        let location = try wrap { () throws(StoreError) in try StoreLocation(databasePath) }
        // On PostgreSQL the night is shared through claims by every worker that runs it, on any
        // host; on SQLite one run at a time holds the file's lock.
        let shared = location.engine == .postgresql
        var runLock: (any AnyObject & Sendable)?
        if !shared {
            guard let held = try wrap({ () throws(StoreError) in try location.tryAcquireRunLock() }) else {
                throw .locked(path: location.description)
            }
            runLock = held
        }
        defer { withExtendedLifetime(runLock) {} }
        let worker = options.workerID ?? NightlyRunner.workerIdentity()
        // PostgreSQL commits each student in a transaction of its own: a write that meets a
        // row the app's backend changed fails as a serialization failure, and inside a shared
        // batch the retry would see the same snapshot again.
        let writer = WriterPool(
            try (0..<(shared ? WriterPool.postgresWriters : 1)).map { _ throws(RunError) in
                BatchingWriter(
                    try wrap { () throws(StoreError) in try location.open() },
                    maxStudents: shared ? 1 : BatchingWriter.defaultMaxStudents)
            })
        defer { writer.stop() }
        let runID = try wrap { () throws(StoreError) in
            try writer.perform { [options] (db) throws(StoreError) in
                let id = try RunStore(db).startRun(
                    startedAt: options.now, options: NightlyRunner.recorded(options, worker: shared ? worker : nil))
                if shared { try NightClaims(db).register(worker: worker, runID: id, lease: options.lease) }
                return id
            }
        }
        report.withLock {
            $0.runID = runID
            $0.startedAt = clock.start
            $0.worker = shared ? worker : nil
        }
        // The provider's limit is the organisation's: the workers registered now share it, and
        // the heartbeat keeps the count current (docs/model.md §16). On SQLite there is one.
        let admission = pipeline.reviewer == nil ? nil : pipeline.admission
        if shared, let admission {
            let workers = try? writer.perform { (db) throws(StoreError) in try NightClaims(db).liveWorkers() }
            admission.setWorkers(workers ?? 1)
        }
        let heartbeat =
            shared
            ? Heartbeat(
                location: location, worker: worker, lease: options.lease,
                onBeat: { db in
                    if let admission, let n = try? NightClaims(db).liveWorkers() { admission.setWorkers(n) }
                }) : nil
        defer { heartbeat?.stop() }

        // Users travel through the queue as decoded rows, read once by the producer. A settings
        // change in the few milliseconds a user waits in the queue applies from the next night.
        let queue = WorkQueue<DueStudent>(capacity: max(2 * options.concurrency, 16))
        let producerError = ErrorBox()
        let producerDone = DispatchSemaphore(value: 0)
        let producer = Thread { [self] in
            defer { producerDone.signal() }
            do throws(StoreError) {
                let reader = try location.open()
                if shared {
                    try claimDueStudents(reader, worker: worker, queue: queue)
                } else {
                    if let admission {
                        // How many are due tonight, for admitting the urgent first when the
                        // rate limit cannot reach everyone before the deadline: one more pass
                        // over the users, seconds against a night of model calls.
                        var due = 0
                        try forEachDueUser(reader) { _ in
                            due += 1
                            return true
                        }
                        admission.expect(due: due)
                    }
                    try forEachDueUser(reader) { user in
                        report.withLock { $0.due += 1 }
                        return queue.put(DueStudent(user: user, claim: nil))
                    }
                }
            } catch {
                producerError.set(error)
            }
            queue.close()
        }
        producer.start()

        let workerError = ErrorBox()
        let group = DispatchGroup()
        for _ in 0..<max(1, options.concurrency) {
            group.enter()
            let worker = Thread { [self] in
                defer { group.leave() }
                NightlyRunner.yieldToTheWriter()
                let reader: any SQLExecutor
                do throws(StoreError) { reader = try openWorkerConnection(location) } catch {
                    // The night cannot go on as configured: it stops (what is done is
                    // committed, claims go back to the others) and the run fails with the
                    // reason, rather than finishing green with students left out.
                    workerError.set(error)
                    queue.close()
                    return
                }
                while !shouldStop(), let student = queue.take() {
                    process(
                        student.user, claim: student.claim, worker: worker, reader: reader, writer: writer, runID: runID
                    )
                }
                if shouldStop() { queue.close() }
            }
            worker.start()
        }
        group.wait()
        producerDone.wait()
        // Every finished student is committed, also when the run stops early.
        writer.flush()
        if shared {
            // Claims taken but not planned (a stop, an error) go back to the others at once.
            heartbeat?.stop()
            _ = try? writer.perform { (db) throws(StoreError) in try NightClaims(db).release(worker: worker) }
        }
        if let error = producerError.error ?? workerError.error { throw .store(error) }

        let finishedAt = clock.now()
        try wrap { () throws(StoreError) in
            // Why model calls stopped during the run (the quota, a deadline, a provider that
            // refused everything) goes with the run's record, for `log` to show.
            var options = NightlyRunner.recorded(options, worker: shared ? worker : nil)
            if case .object(var fields) = options {
                if let stopped = pipeline.modelDisabledReason() { fields["modelStopped"] = .string(stopped) }
                if shared {
                    // What `log --detail` says of each worker of a shared night.
                    let counts = report.withLock { ($0.rescued, $0.refused) }
                    fields["rescued"] = .int(counts.0)
                    fields["refused"] = .int(counts.1)
                }
                options = .object(fields)
            }
            try writer.perform { [options] (db) throws(StoreError) in
                try RunStore(db).finishRun(id: runID, finishedAt: finishedAt, options: options)
            }
        }
        return report.withLock {
            $0.interrupted = shouldStop()
            $0.finishedAt = finishedAt
            return $0
        }
    }

    /// The options a run records: on PostgreSQL also the worker's name and its lease, for
    /// `log` and `night` (`SharedNights`).
    static func recorded(_ options: RunOptions, worker: String?) -> JSONValue {
        guard let worker, case .object(var fields) = options.json else { return options.json }
        fields["worker"] = .string(worker)
        fields["lease"] = .int(options.lease)
        return .object(fields)
    }

    /// How much nicer than the rest of the process a worker thread runs.
    static let workerNiceIncrement: Int32 = 10

    /// Lowers the calling worker thread's CPU priority below the writer thread's (Linux keeps
    /// a nice value per thread; raising it needs no privilege).
    ///
    /// Decision: every student's commit goes through the one writer thread, so the night can
    /// go no faster than that thread. At equal priority the scheduler gave it only its fair
    /// share next to eight runnable workers (about 0.6 of a core), the writer fell behind and
    /// the workers waited for its queue. Niced workers still get every cycle the writer leaves;
    /// a run that waits on the model is not affected (its workers sleep on the network).
    static func yieldToTheWriter() {
        #if os(Linux)
            let which = __priority_which_t(PRIO_PROCESS.rawValue)
            errno = 0
            let current = getpriority(which, 0)
            guard errno == 0 else { return }
            _ = setpriority(which, 0, min(current + workerNiceIncrement, 19))
        #endif
    }

    /// Streams users and hands over the due ones; stops when `handle` returns false.
    private func forEachDueUser(_ db: any SQLExecutor, _ handle: (User) -> Bool) throws(StoreError) {
        let runs = RunStore(db)
        // Whether the student is due before asking the database (nil: ask it whether tonight's
        // run is done).
        func dueByClock(_ user: User) -> Bool? {
            guard user.settings.autoUpdate else { return false }
            if options.force { return true }
            return user.zone.civil(options.now).time >= options.runAfter ? nil : false
        }
        if !options.userIDs.isEmpty {
            let users = UserRepository(db)
            for id in options.userIDs {
                if shouldStop() { return }
                let user = try users.get(id)
                var due = dueByClock(user)
                if due == nil { due = try !runs.isDone(userID: user.id, planDate: user.zone.civil(options.now).date) }
                if due == true, !handle(user) { return }
            }
            return
        }
        // The runs already done are asked for a page of students at a time (`RunStore.done`):
        // one statement each was a round trip each, as many as there are students.
        var cursor = UserRepository(db).cursor()
        var page: [(user: User, ask: Bool)] = []
        func handOver() throws(StoreError) -> Bool {
            let asked = page.filter(\.ask).map { ($0.user.id, $0.user.zone.civil(options.now).date) }
            let done = try runs.done(among: asked)
            defer { page.removeAll(keepingCapacity: true) }
            for entry in page where !entry.ask || !done.contains(entry.user.id) {
                if shouldStop() || !handle(entry.user) { return false }
            }
            return true
        }
        while let user = try cursor.next() {
            if shouldStop() { return }
            switch dueByClock(user) {
            case false?: continue
            case true?: page.append((user, false))
            case nil: page.append((user, true))
            }
            if page.count == NightlyRunner.duePage, !(try handOver()) { return }
        }
        _ = try handOver()
    }

    /// How many students `forEachDueUser` checks together.
    static let duePage = 64

    /// Seeds the students this worker finds due as claims, then takes claims in small batches
    /// (its own seeds, the others', and those of workers whose lease ran out) until none is
    /// left and no other live worker holds one: a worker that died is made good in the same
    /// night by the ones still running.
    private func claimDueStudents(_ db: any SQLExecutor, worker: String, queue: WorkQueue<DueStudent>)
        throws(StoreError)
    {
        let claims = NightClaims(db)
        var due: [(userID: String, planDate: CivilDate)] = []
        try forEachDueUser(db) { user in
            due.append((user.id, user.zone.civil(options.now).date))
            return true
        }
        if pipeline.reviewer != nil { pipeline.admission?.expect(due: due.count) }
        var start = 0
        while start < due.count {
            let end = min(start + 500, due.count)
            try claims.seed(Array(due[start..<end]), force: options.force, worker: worker)
            start = end
        }
        // Every zone's plan date of tonight is on or after yesterday in UTC.
        let from = CivilDate(String(Timestamp.text(options.now).prefix(10)))!.adding(days: -1)
        let users = UserRepository(db)
        let batch = max(1, min(options.concurrency, 64))
        while !shouldStop() {
            let taken = try claims.claim(worker: worker, limit: batch, from: from)
            if taken.isEmpty {
                let left = try claims.outstanding(from: from, excluding: worker)
                if left.pending == 0 && left.abandoned == 0 && left.held == 0 { return }
                // Another worker still holds claims: wait for it to finish them or for its lease
                // to run out, whichever comes first.
                let wait = min(max(left.soonestExpiry ?? 1, 0.05), 1)
                usleep(UInt32(wait * 1_000_000))
                continue
            }
            // The batch's students in one lookup (one round trip), not one each.
            let found = try users.find(taken.map(\.userID))
            for claim in taken {
                report.withLock {
                    $0.due += 1
                    if claim.rescued { $0.rescued += 1 }
                }
                guard let user = try found[claim.userID]?.get() else {
                    try claims.finish(claim, worker: worker, failed: true)
                    continue
                }
                if !queue.put(DueStudent(user: user, claim: claim)) { return }
            }
        }
    }

    private func process(
        _ user: User, claim: NightClaims.Claim?, worker: String, reader: any SQLExecutor, writer: WriterPool,
        runID: Int
    ) {
        let userID = user.id
        let started = clock.elapsed
        var night: UserNight
        var review: ModelReview?
        var statisticsSource: StatisticsRefresh.Source?
        do throws(StoreError) {
            let window = UserPipeline.window(of: user, now: options.now)
            let read = try NightRead.read(user: user, window: window, db: reader)
            (night, review) = pipeline.prepare(
                original: read.plan, now: options.now, memory: read.memory,
                loaded: window, takenBack: read.takenBack)
            night.windowStart = window.lowerBound
            statisticsSource = read.statistics
        } catch {
            // Record the failure under the user's own plan date (the log and `run --json` show
            // it), not day zero (1970-01-01).
            let local = user.zone.civil(options.now)
            night = UserNight(
                userID: userID, planDate: local.date,
                localNow: local, status: .failed,
                prepared: nil, flags: [], summary: PlanSummary(), model: ModelSummary(), transcript: [],
                error: "could not load the plan: \(error)")
        }
        if night.status == .changed || night.status == .unchanged {
            do throws(StoreError) {
                if let plans = night.plans, let windowStart = night.windowStart, let statisticsSource {
                    night.statistics = try StatisticsRefresh.night(
                        user: user, planDate: night.planDate, windowStart: windowStart,
                        original: plans.original, after: plans.after,
                        changes: night.prepared?.changeset.changes ?? [],
                        source: statisticsSource, db: reader)
                }
            } catch {
                // Statistics are derived data: a failed recount leaves yesterday's numbers.
                night.statistics = nil
            }
        }
        // An interruption during the pipeline discards the user: nothing of theirs is written.
        if shouldStop() { return }
        beforeCommit(userID)
        night.durationMilliseconds = clock.milliseconds(since: started)
        night.plans = nil // done with; a staged night waits for its batch
        let staged = night
        // The writer thread commits the night; when that fails (a conflict with a student's
        // edit made meanwhile, say), nothing of it is written and the failure is recorded in
        // its place, so the log says why; the next run retries the student.
        writer.stage(
            { [self] (db) throws(StoreError) -> UserNight in
                var committed = staged
                committed.changesetID = try commit(staged, claim: claim, worker: worker, writer: db, runID: runID)
                return committed
            },
            otherwise: { [self] (error, db) throws(StoreError) -> UserNight in
                if case .fenced = error { throw error }
                if let claim { try NightClaims(db).finish(claim, worker: worker, failed: true) }
                let failed = NightlyRunner.failed(staged, error)
                try record(failed, writer: db, runID: runID)
                return failed
            }, then: { [self] result in tally(result, orElse: staged, review: review) })
    }

    /// A night whose commit failed: nothing of it written, its status and error say why.
    private static func failed(_ night: UserNight, _ error: StoreError) -> UserNight {
        var failed = night
        if case .conflict(let c) = error {
            failed.error =
                "the plan changed while it was being planned (\(c.rows.count) row(s)); nothing written, the next run retries: \(c)"
        } else {
            failed.error = "commit failed: \(error)"
        }
        failed.status = .failed
        failed.changesetID = nil
        return failed
    }

    /// Counts and reports a night once its batch is committed; a night lost with its batch
    /// counts as failed.
    private func tally(_ result: Result<UserNight, StoreError>, orElse staged: UserNight, review: ModelReview?) {
        var night: UserNight
        var refused = false
        switch result {
        case .success(let committed): night = committed
        case .failure(let error):
            night = staged
            night.status = .failed
            night.changesetID = nil
            if case .fenced = error {
                // Not this worker's student any more: the one that took the claim over plans it.
                refused = true
                night.error = error.description
            } else {
                night.error = "commit failed: \(error); nothing written, the next run retries"
            }
        }
        report.withLock { report in
            if refused {
                report.refused += 1
                return
            }
            switch night.status {
            case .changed: report.changed += 1
            case .unchanged: report.unchanged += 1
            case .skipped: report.skipped += 1
            case .failed: report.failed += 1
            }
            report.tokens = report.tokens + night.model.tokens
            report.costUSD += night.model.costUSD
            if let reason = night.model.decision?.reason { report.modelReasons[reason, default: 0] += 1 }
            if night.model.called { report.modelAsked += 1 }
            if let error = night.model.error { report.modelErrors[ModelErrorKind.of(error), default: 0] += 1 }
            if night.model.called || night.model.error != nil {
                report.modelWanted += 1
                if review?.failed ?? true { report.modelFailed += 1 }
            }
        }
        onUser(night)
        onProgress(report.withLock { $0 })
    }

    /// The changeset, the user-run row and the transcript in one transaction: `db` is in the
    /// student's savepoint of the writer's batch. Nothing in here catches an error, so the
    /// store calls join that savepoint instead of nesting their own.
    private func commit(
        _ night: UserNight, claim: NightClaims.Claim?, worker: String, writer db: any SQLExecutor, runID: Int
    ) throws(StoreError) -> ChangesetID? {
        try db.joiningNestedWrites { (db) throws(StoreError) -> ChangesetID? in
            // The fence first: a claim taken over meanwhile writes nothing at all. A plan write
            // since the night was read (a student's edit) raised the statistics serial: the
            // base counted from that read may be stale, so it is not kept. Both in one batch
            // (one round trip on PostgreSQL, with the transaction's BEGIN).
            var queries: [(sql: String, values: [SQLValue])] = []
            if let claim { queries.append(NightClaims.finishQuery(claim, worker: worker, failed: false)) }
            if night.statistics != nil { queries.append((StatisticsBaseRepository.serialSQL, [.text(night.userID)])) }
            let answers = queries.isEmpty ? [] : try db.queryEach(queries) { (_, s) in s.int(0) }
            if let claim { try NightClaims.checkFinished(claim, rows: answers[0]) }
            let bases = StatisticsBaseRepository(db)
            var baseIsFresh = false
            if let statistics = night.statistics {
                baseIsFresh = (answers.last?.first ?? 0) == statistics.readSerial
            }
            // The base counted tonight, kept when nothing wrote the plan since it was read and no
            // stale session is left for another night.
            var base: StatisticsBaseRepository.Counted?
            if let statistics = night.statistics, baseIsFresh && night.staleLeft == 0 {
                base = .init(through: statistics.baseThrough, counts: statistics.base)
            }
            var id: ChangesetID?
            if night.status == .changed, let prepared = night.prepared {
                // The changeset stores the base itself, in place of its own invalidation.
                id = try ChangesetStore(db).commit(prepared.changeset, thenStoring: base)
                base = nil
            } else if let note = night.noteWithoutChangeset {
                // A night that needs the student without changing anything: its note alone.
                try OutboxRepository(db).insert(
                    [note], userID: night.userID, changesetID: nil, createdAt: options.now)
            }
            if let statistics = night.statistics {
                // Without a changeset the base is stored here: the base counts the plan as it
                // stays.
                if let base { try bases.store(userID: night.userID, through: base.through, counts: base.counts) }
                // A committed changeset has found the student in this transaction.
                try StatisticsRepository(db).recompute(
                    userID: night.userID, counts: statistics.counts, userChecked: id != nil)
            }
            switch night.memoryUpdate {
            case .store(let memory): try ModelMemoryRepository(db).store(userID: night.userID, memory)
            case .delete: try ModelMemoryRepository(db).delete(userID: night.userID)
            case nil: break
            }
            var recorded = night
            recorded.changesetID = id
            try record(recorded, writer: db, runID: runID)
            return id
        }
    }

    private func record(_ night: UserNight, writer: any SQLExecutor, runID: Int) throws(StoreError) {
        let status = UserRunStatus(rawValue: night.status.rawValue) ?? .failed
        var run = UserRun(
            runID: runID, userID: night.userID, planDate: night.planDate, status: status,
            changesetID: night.changesetID,
            modelCalls: night.model.requests, turns: night.model.turns, promptTokens: night.model.tokens.prompt,
            completionTokens: night.model.tokens.completion, reasoningTokens: night.model.tokens.reasoning,
            cachedTokens: night.model.tokens.cached, durationMilliseconds: night.durationMilliseconds,
            error: night.error ?? night.model.error, finishedAt: clock.now())
        run.modelDecision = night.model.decisionText
        run.finishReasons = night.model.finishReasons.isEmpty ? nil : night.model.finishReasons.joined(separator: ",")
        run.costUSD = night.model.costUSD
        run.report = night.status == .unchanged ? night.noteReport : nil
        try writer.write { (db) throws(StoreError) in
            // Without a transcript nobody needs the row's id: it goes out with the commit.
            guard night.transcript != [] else { return try RunStore(db).note(run) }
            let userRunID = try RunStore(db).record(run)
            try RunStore(db).storeTranscript(userRunID: userRunID, messages: night.transcript)
        }
    }

    private func wrap<T>(_ body: () throws(StoreError) -> T) throws(RunError) -> T {
        do { return try body() } catch { throw .store(error) }
    }
}

/// A student to plan, with the claim that makes them this worker's (PostgreSQL).
struct DueStudent: Sendable {
    var user: User
    var claim: NightClaims.Claim?
}

/// Renews a worker's lease every third of it, on a connection of its own, until stopped.
final class Heartbeat: Sendable {
    private final class State: Sendable {
        let stopped = Mutex(false)
        /// Signalled by `stop`: the beat thread waits on it, so a stop is seen at once.
        let wake = DispatchSemaphore(value: 0)
        let done = DispatchSemaphore(value: 0)
    }
    private let state = State()

    /// - Parameter onBeat: called after each renewed lease with the heartbeat's connection.
    init(
        location: StoreLocation, worker: String, lease: Int,
        onBeat: @escaping @Sendable (any SQLExecutor) -> Void = { _ in }
    ) {
        let interval = max(0.2, Double(lease) / 3)
        let state = self.state
        let thread = Thread {
            defer { state.done.signal() }
            var connection: (any SQLExecutor)?
            while state.wake.wait(timeout: .now() + interval) == .timedOut {
                // A missed beat is retried at the next; a connection lost is opened again.
                if connection == nil { connection = try? location.open() }
                guard let db = connection else { continue }
                do throws(StoreError) {
                    try NightClaims(db).heartbeat(worker: worker, lease: lease)
                    onBeat(db)
                } catch {
                    connection = nil
                }
            }
        }
        thread.name = "replan heartbeat"
        thread.start()
    }

    /// Stops the beats and waits for the thread; safe to call twice.
    func stop() {
        let first = state.stopped.withLock { (stopped: inout Bool) -> Bool in
            defer { stopped = true }
            return !stopped
        }
        if first {
            state.wake.signal()
            state.done.wait()
        }
    }
}

extension NightlyRunner {
    /// `host:pid:xxxx`, unique enough among the workers of one database.
    static func workerIdentity() -> String {
        var name = [CChar](repeating: 0, count: 256)
        let host =
            gethostname(&name, name.count) == 0
            ? String(decoding: name.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self) : "host"
        return "\(host):\(getpid()):\(String(UInt32.random(in: 0...UInt32.max), radix: 36))"
    }
}

/// The first error of a background thread.
final class ErrorBox: Sendable {
    private let stored = Mutex<StoreError?>(nil)
    func set(_ e: StoreError) { stored.withLock { if $0 == nil { $0 = e } } }
    var error: StoreError? { stored.withLock { $0 } }
}

/// A bounded hand-over queue between the user producer and the workers: the producer blocks
/// when workers lag, so only a few user ids are ever in memory.
final class WorkQueue<Item: Sendable>: @unchecked Sendable {
    private let condition = NSCondition()
    private var items: [Item] = []
    private var closed = false
    private let capacity: Int

    init(capacity: Int) { self.capacity = capacity }

    /// False when the queue was closed (stop producing).
    func put(_ item: Item) -> Bool {
        condition.lock()
        defer { condition.unlock() }
        while items.count >= capacity && !closed { condition.wait() }
        if closed { return false }
        items.append(item)
        condition.broadcast()
        return true
    }

    func take() -> Item? {
        condition.lock()
        defer { condition.unlock() }
        while items.isEmpty && !closed { condition.wait() }
        if items.isEmpty { return nil }
        let item = items.removeFirst()
        condition.broadcast()
        return item
    }

    func close() {
        condition.lock()
        closed = true
        condition.broadcast()
        condition.unlock()
    }
}
