import Foundation
import JSON
import Planning

/// Bookkeeping of nightly runs: runs, per-user outcomes, transcripts, and the "already done
/// today" check that makes each (user, plan date) processed at most once.
///
/// To make a user's changeset and their user run one atomic unit (crash-only: either both
/// or neither), call `ChangesetStore.commit` and `record` inside one `Database.write`.
package struct RunStore {
    let db: any SQLExecutor

    package init(_ db: any SQLExecutor) { self.db = db }

    /// Records the start of a run. - Returns: its id.
    package func startRun(startedAt: Date, options: JSONValue = [:]) throws(StoreError) -> Int {
        try db.write { (db) throws(StoreError) -> Int in
            try db.queryFirst(
                "INSERT INTO runs (started_at, options) VALUES (?, ?) RETURNING id",
                [.text(Timestamp.text(startedAt)), .text(options.text)]
            ) { $0.int(0) } ?? 0
        }
    }

    /// Records the end of a run; `options`, when given, replaces what `startRun` stored (the
    /// runner adds what happened to the run as a whole, such as model calls stopped).
    package func finishRun(id: Int, finishedAt: Date, options: JSONValue? = nil) throws(StoreError) {
        try db.write { (db) throws(StoreError) in
            if let options {
                try db.execute(
                    "UPDATE runs SET finished_at = ?, options = ? WHERE id = ?",
                    [.text(Timestamp.text(finishedAt)), .text(options.text), .integer(id)])
            } else {
                try db.execute(
                    "UPDATE runs SET finished_at = ? WHERE id = ?", [.text(Timestamp.text(finishedAt)), .integer(id)])
            }
        }
    }

    /// Records one user's outcome. - Returns: the user run's id.
    @discardableResult
    package func record(_ r: UserRun) throws(StoreError) -> Int {
        try db.write { (db) throws(StoreError) -> Int in
            try db.queryFirst(RunStore.recordSQL + " RETURNING id", RunStore.values(r)) { $0.int(0) } ?? 0
        }
    }

    /// Records one user's outcome when nobody needs its id (no transcript goes with it): the
    /// row is sent without waiting for it (`SQLExecutor.send`).
    package func note(_ r: UserRun) throws(StoreError) {
        try db.write { (db) throws(StoreError) in try db.send(RunStore.recordSQL, RunStore.values(r)) }
    }

    private static let recordSQL = """
        INSERT INTO user_runs (run_id, user_id, plan_date, status, changeset_id, model_calls, turns, prompt_tokens,
            completion_tokens, reasoning_tokens, cached_tokens, duration_ms, error, finished_at, model_decision,
            finish_reasons, cost_usd, report)
        VALUES (\(placeholders(18)))
        """

    private static func values(_ r: UserRun) -> [SQLValue] {
        [
            .integer(r.runID), .text(r.userID), .text(r.planDate.description), .text(r.status.rawValue),
            SQLValue(r.changesetID?.rawValue), .integer(r.modelCalls), .integer(r.turns),
            .integer(r.promptTokens),
            .integer(r.completionTokens), .integer(r.reasoningTokens), .integer(r.cachedTokens),
            .integer(r.durationMilliseconds), SQLValue(r.error), .text(Timestamp.text(r.finishedAt)),
            SQLValue(r.modelDecision), SQLValue(r.finishReasons), .real(r.costUSD.isFinite ? r.costUSD : 0),
            SQLValue(r.report?.text),
        ]
    }

    /// Whether the user already has a finished (changed or unchanged) run for the plan date.
    /// An index lookup on `user_runs_by_user_date`. The statuses are compared here rather than
    /// in SQL: SQLite builds a temporary b-tree for every execution of `status IN (…)` (and
    /// rewrites an OR of equalities into one), while a user has one run or a few per date.
    package func isDone(userID: String, planDate: CivilDate) throws(StoreError) -> Bool {
        try db.query(
            "SELECT status FROM user_runs WHERE user_id = ? AND plan_date = ?",
            [.text(userID), .text(planDate.description)]
        ) { $0.text(0) }
        .contains { $0 == UserRunStatus.changed.rawValue || $0 == UserRunStatus.unchanged.rawValue }
    }

    /// Which of `keys` already have a finished run for their plan date (`isDone` of each), as
    /// one batch of statements of several keys each (`rowGroups`): the night asks it of every
    /// student, and one statement each was a round trip each. An OR of keys, which both engines
    /// answer from `user_runs_by_user_date` (see `isDone` for why the statuses are compared here).
    package func done(among keys: [(userID: String, planDate: CivilDate)]) throws(StoreError) -> Set<String> {
        guard !keys.isEmpty else { return [] }
        let queries = rowGroups(keys.count).map { group in
            (
                sql: "SELECT user_id, plan_date, status FROM user_runs WHERE "
                    + repeatElement("(user_id = ? AND plan_date = ?)", count: group.count).joined(separator: " OR "),
                values: keys[group].flatMap { [SQLValue.text($0.userID), .text($0.planDate.description)] }
            )
        }
        let wanted = Set(keys.map { $0.userID + "@" + $0.planDate.description })
        let rows = try db.queryEach(queries) { (_, s) in (s.text(0), s.text(1), s.text(2)) }
        var done = Set<String>()
        for (userID, planDate, status) in rows.joined()
        where status == UserRunStatus.changed.rawValue || status == UserRunStatus.unchanged.rawValue {
            if wanted.contains(userID + "@" + planDate) { done.insert(userID) }
        }
        return done
    }

    /// The most transcript text stored for one user run (16 MiB). A conversation may hold 15
    /// responses of up to 8 MiB each; one student's log must not grow the database by that
    /// much every night.
    package static let transcriptLimitBytes = 16 << 20

    /// Stores (or replaces) the model exchange of a user run. Beyond `transcriptLimitBytes`
    /// the first messages that fit are kept, followed by a note saying how many were left out.
    package func storeTranscript(userRunID: Int, messages: JSONValue) throws(StoreError) {
        let text = RunStore.boundedTranscript(messages, limit: RunStore.transcriptLimitBytes)
        try db.write { (db) throws(StoreError) in
            try db.execute(
                """
                INSERT INTO transcripts (user_run_id, messages) VALUES (?, ?)
                ON CONFLICT (user_run_id) DO UPDATE SET messages = excluded.messages
                """, [.integer(userRunID), .text(text)])
        }
    }

    /// The transcript's JSON text, cut to at most about `limit` bytes at a message boundary.
    static func boundedTranscript(_ messages: JSONValue, limit: Int) -> String {
        let whole = messages.text
        guard whole.utf8.count > limit, let list = messages.arrayValue else { return whole }
        var kept: [JSONValue] = []
        var size = 2
        for message in list {
            let n = message.text.utf8.count + 1
            if size + n > limit - 512 { break }
            kept.append(message)
            size += n
        }
        kept.append([
            "role": "replan",
            "content": .string(
                "transcript truncated: \(kept.count) of \(list.count) messages kept (limit \(limit >> 20) MiB per user run)"
            ),
        ])
        return JSONValue.array(kept).text
    }

    package func transcript(userRunID: Int) throws(StoreError) -> JSONValue? {
        let text = try db.queryFirst("SELECT messages FROM transcripts WHERE user_run_id = ?", [.integer(userRunID)]) {
            $0.text(0)
        }
        guard let text else { return nil }
        let value: JSONValue = try StoredJSON.parse(text, entity: "transcript", key: String(userRunID))
        return value
    }

    /// The user run that produced a changeset (for `show --transcript`).
    package func userRun(changesetID: ChangesetID) throws(StoreError) -> UserRunRecord? {
        try db.query(
            "SELECT \(RunStore.userRunColumns) FROM user_runs WHERE changeset_id = ? ORDER BY id DESC LIMIT 1",
            [.text(changesetID.rawValue)]
        ) { (s) throws(StoreError) in try RunStore.decodeUserRun(s) }.first
    }

    /// Runs newest first with their user runs; with `userID`, only runs that touched that user
    /// and only that user's rows.
    package func runs(limit: Int = 20, userID: String? = nil) throws(StoreError) -> [RunWithStudents] {
        try db.read { (db) throws(StoreError) -> [RunWithStudents] in
            let runs: [RunRecord]
            if let userID {
                runs = try db.query(
                    """
                    SELECT id, started_at, finished_at, options FROM runs
                    WHERE id IN (SELECT run_id FROM user_runs WHERE user_id = ?) ORDER BY id DESC LIMIT ?
                    """, [.text(userID), .integer(limit)]
                ) { (s) throws(StoreError) in try RunStore.decodeRun(s) }
            } else {
                runs = try db.query(
                    "SELECT id, started_at, finished_at, options FROM runs ORDER BY id DESC LIMIT ?",
                    [.integer(limit)]
                ) { (s) throws(StoreError) in try RunStore.decodeRun(s) }
            }
            return try runs.map { (run) throws(StoreError) -> RunWithStudents in
                let filter = userID == nil ? "" : "AND user_id = ?"
                let values: [SQLValue] = [.integer(run.id)] + (userID.map { [SQLValue.text($0)] } ?? [])
                let userRuns = try db.query(
                    "SELECT \(RunStore.userRunColumns) FROM user_runs WHERE run_id = ? \(filter) ORDER BY id",
                    values
                ) { (s) throws(StoreError) in try RunStore.decodeUserRun(s) }
                return RunWithStudents(run: run, userRuns: userRuns)
            }
        }
    }

    /// The student's newest run of a night that needs them without a changeset (one that kept
    /// a `report`); nil when there is none.
    package func latestReported(userID: String) throws(StoreError) -> UserRunRecord? {
        try db.query(
            """
            SELECT \(RunStore.userRunColumns) FROM user_runs
            WHERE user_id = ? AND report IS NOT NULL ORDER BY id DESC LIMIT 1
            """, [.text(userID)]
        ) { (s) throws(StoreError) in try RunStore.decodeUserRun(s) }.first
    }

    /// One user's runs, newest first.
    package func userRuns(userID: String, limit: Int = 20) throws(StoreError) -> [UserRunRecord] {
        try db.query(
            "SELECT \(RunStore.userRunColumns) FROM user_runs WHERE user_id = ? ORDER BY id DESC LIMIT ?",
            [.text(userID), .integer(limit)]
        ) { (s) throws(StoreError) in try RunStore.decodeUserRun(s) }
    }

    static let userRunColumns = """
        id, run_id, user_id, plan_date, status, changeset_id, model_calls, turns, prompt_tokens, completion_tokens, \
        reasoning_tokens, cached_tokens, duration_ms, error, finished_at, model_decision, finish_reasons, cost_usd, \
        report
        """

    static func decodeRun(_ s: any SQLRow) throws(StoreError) -> RunRecord {
        let key = String(s.int(0))
        guard let started = Timestamp.date(s.text(1)) else {
            throw StoreError.malformedRow(entity: "run", key: key, problem: "bad started_at")
        }
        var finished: Date?
        if let text = s.optionalText(2) {
            guard let d = Timestamp.date(text) else {
                throw StoreError.malformedRow(entity: "run", key: key, problem: "bad finished_at")
            }
            finished = d
        }
        return RunRecord(
            id: s.int(0), startedAt: started, finishedAt: finished,
            options: try StoredJSON.parse(s.text(3), entity: "run", key: key))
    }

    static func decodeUserRun(_ s: any SQLRow) throws(StoreError) -> UserRunRecord {
        let key = String(s.int(0))
        guard let planDate = CivilDate(s.text(3)), let status = UserRunStatus(rawValue: s.text(4)),
            let finished = Timestamp.date(s.text(14))
        else {
            throw StoreError.malformedRow(entity: "user run", key: key, problem: "bad plan date, status or finished_at")
        }
        var run = UserRun(
            runID: s.int(1), userID: s.text(2), planDate: planDate, status: status,
            changesetID: s.optionalText(5).map { ChangesetID($0) }, modelCalls: s.int(6), turns: s.int(7),
            promptTokens: s.int(8), completionTokens: s.int(9), reasoningTokens: s.int(10), cachedTokens: s.int(11),
            durationMilliseconds: s.int(12), error: s.optionalText(13), finishedAt: finished)
        run.modelDecision = s.optionalText(15)
        run.finishReasons = s.optionalText(16)
        run.costUSD = s.double(17)
        if let text = s.optionalText(18) {
            let report: JSONValue = try StoredJSON.parse(text, entity: "user run", key: key)
            run.report = report
        }
        return UserRunRecord(id: s.int(0), userRun: run)
    }
}
