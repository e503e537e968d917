import Foundation
import JSON
import Nightly
import Planning
import Store

/// `replan run|preview|undo|redo|log|show`.
enum NightlyCommands {
    static let all = [run, preview, undo, redo, LogCommand.descriptor, show]

    static let modelOptions: [OptionSpec] = [
        .flag("--no-model", "skip the model: the local rules' edits are the whole changeset"),
        .value(
            "--on-model-error", "local (default: commit the local edits) or skip (commit nothing; retried next run)"),
        .value("--model", "model name (default: $REPLAN_MODEL or gpt-5.1)"),
        .value("--reasoning-effort", "reasoning effort (default: $REPLAN_REASONING_EFFORT or low; empty: omitted)"),
        .value("--base-url", "OpenAI-compatible base URL (default: $OPENAI_BASE_URL or https://api.openai.com/v1)"),
        .value("--request-timeout", "seconds per model request (default 120)"),
        .value("--max-completion-tokens", "token cap per model response (default 8000)"),
        .value("--service-tier", "service_tier sent to the model (e.g. flex); default: not sent"),
        .value("--review-every", "days between reviews of an unchanged standing instruction (default 7; 0: never)"),
        .value("--price-input", "US dollars per 1M input tokens, for the cost estimate (default 1.25)"),
        .value("--price-cached", "US dollars per 1M cached input tokens (default 0.125)"),
        .value("--price-output", "US dollars per 1M output tokens (default 10)"),
        .value("--model-concurrency", "most model requests in flight (default 64; adapts to the rate limit below it)"),
        .value(
            "--model-deadline",
            "seconds the run's model stage may take; then the remaining students get local edits only (default 7200)"),
        .value(
            "--student-deadline",
            "seconds one student's model conversation may take; then local edits only (default 300)"),
    ]

    static let run = CommandDescriptor(
        path: ["run"],
        synopsis: "run [--user ID]… [--no-model] [--force] [--concurrency N] [--run-after HH:MM] [--json]",
        summary: "the nightly job: plan every due student once per local night",
        details: """
            A student is due when auto-update is on, their local time is past --run-after (03:00) and
            they have no finished run for their local date yet. --force re-plans students already done
            (and ignores --run-after). One run at a time per database (exit 75 if another holds it).
            """,
        options: [
            .value("--user", "only this student (repeatable)", repeatable: true),
            .flag("--force", "re-plan students already done today"),
            .value(
                "--concurrency",
                "user pipelines at once (default 8; with the model, 64: a model-bound night waits on the network)"),
            .value("--run-after", "local time a night starts (default 03:00)"),
            .flag("--json", "print JSON"),
        ] + modelOptions
    ) { ctx in
        let a = ctx.arguments
        try a.rejectExtraPositionals(beyond: 0)
        ctx.interruption.handleGracefully()
        var options = RunOptions(now: ctx.now)
        options.userIDs = a.values("--user")
        options.force = a.flag("--force")
        if let t = ctx.setting(.runAfter) {
            guard let time = TimeOfDay(t.value) else { throw CLIError.badInput("\(t.label) '\(t.value)' is not HH:MM") }
            options.runAfter = time
        }
        let model = try ModelSetup(context: ctx)
        // Decision: a night that asks the model spends its time waiting on the network, so
        // it gets as many pipelines as requests may be in flight; a local night keeps 8.
        options.concurrency =
            try ctx.intSetting(.concurrency, in: 1...256) ?? (model.disabledReason == nil ? model.modelConcurrency : 8)
        _ = try ctx.openDatabase() // creates/migrates, and maps open failures to exit 73
        let json = a.flag("--json")
        let collected = Collected()
        let progress = RunProgress(console: ctx.console)
        let runner = NightlyRunner(
            databasePath: ctx.databasePath, pipeline: model.pipeline, options: options,
            shouldStop: { ctx.interruption.isRaised },
            onUser: { night in
                if json {
                    collected.append(night)
                } else if night.status == .failed || night.error != nil || night.model.error != nil {
                    // A student's failure or model error is a warning on stderr (a journald
                    // priority under systemd), not a line of data among the changes.
                    progress.log(
                        userLine(night, console: ctx.console), priority: night.status == .failed ? .error : .warning)
                } else if night.status != .unchanged {
                    progress.line(userLine(night, console: ctx.console))
                }
            },
            onProgress: { progress.update($0) })
        let report: NightlyRunner.Report
        do throws(NightlyRunner.RunError) { report = try runner.run() } catch {
            switch error {
            case .locked: throw CLIError(.locked, error.description)
            case .store(let e): throw CLIError(store: e)
            }
        }
        progress.finish()
        if json {
            let nights = collected.all.sorted { $0.userID < $1.userID }
            ctx.console.out(
                JSONValue.object([
                    "schema": "replan.run/1", "runId": .int(report.runID), "now": .string(Timestamp.text(ctx.now)),
                    "users": .array(
                        nights.map { NightText.json($0, schema: nil, now: ctx.now, includeChangeset: true) }),
                    "counts": [
                        "due": .int(report.due), "changed": .int(report.changed), "unchanged": .int(report.unchanged),
                        "skipped": .int(report.skipped), "failed": .int(report.failed),
                        "modelErrors": .int(report.modelErrorCount),
                    ],
                    "modelErrors": .array(
                        ModelErrorKind.ranked(report.modelErrors).map {
                            ["kind": .string($0.kind), "count": .int($0.count)]
                        }),
                    "tokens": report.tokens.json, "interrupted": .bool(report.interrupted),
                    "costUSD": .number((report.costUSD * 10_000).rounded() / 10_000),
                    "modelAsked": .int(report.modelAsked),
                    "modelReasons": .object(report.modelReasons.mapValues { .int($0) }),
                    "seconds": .number((report.finishedAt.timeIntervalSince(report.startedAt) * 1000).rounded() / 1000),
                    "peakRSSKiB": .int(ProcessMemory.peakResidentKiB()),
                    "model": model.offReason.map { .string($0) } ?? .null,
                ]).prettyText)
        }
        let summary = RunSummary(
            report: report, modelOff: model.disabledReason, peakRSSKiB: ProcessMemory.peakResidentKiB())
        ctx.console.log(summary.text, priority: summary.priority)
        if let stopped = model.shutoff.reason {
            ctx.console.log("model calls stopped during the run: \(stopped)", priority: .warning)
        }
        if report.interrupted {
            ctx.console.log(
                "interrupted: finished users are committed, the one in progress left no trace", priority: .warning)
            return ctx.interruption.exitCode
        }
        // History older than retention_days goes after every run, in short batches.
        PruneCommand.afterRun(ctx)
        if report.modelUnavailableForAll { return .modelUnavailable }
        return report.failed > 0 ? .someUsersFailed : .success
    }

    static func userLine(_ n: UserNight, console: Console) -> String {
        var s = "\(n.userID) \(n.planDate): \(n.status.rawValue)"
        if let cs = n.changesetID { s += " \(cs) — \(NightText.summary(n.summary)), \(n.edits.count) edit(s)" }
        if let e = n.error { s += " — \(e)" } else if let e = n.model.error { s += " — model: \(e)" }
        return s
    }

    static let preview = CommandDescriptor(
        path: ["preview"], synopsis: "preview --user ID [--no-model] [--json]",
        summary: "show the changeset tonight's job would commit for one student; writes nothing",
        options: [.value("--user", "student id"), .flag("--json", "print JSON")] + modelOptions
    ) { ctx in
        try ctx.arguments.rejectExtraPositionals(beyond: 0)
        let a = ctx.arguments
        let userID = try a.required("--user")
        guard FileManager.default.fileExists(atPath: ctx.databasePath) else {
            throw CLIError(.cannotOpenDatabase, "no database at \(ctx.databasePath)")
        }
        let model = try ModelSetup(context: ctx)
        let db = try ctx.openDatabase()
        let (night, _) = try storeCall { () throws(StoreError) in
            try model.pipeline.prepare(userID: userID, db: db, now: ctx.now)
        }
        if a.flag("--json") {
            var o = NightText.json(night, schema: "replan.preview/1", now: ctx.now, includeChangeset: false)
            if case .object(var fields) = o {
                fields["transcriptMessages"] = .int(night.transcript.arrayValue?.count ?? 0)
                o = .object(fields)
            }
            ctx.console.out(o.prettyText)
            return .success
        }
        ctx.console.out(
            "preview for \(userID), plan date \(night.planDate) (now \(night.localNow)) — nothing is written")
        ctx.console.out(NightText.edits(night.edits, console: ctx.console).joined(separator: "\n"))
        for f in night.flags { ctx.console.out("  flag \(f.kind.rawValue): \(f.id)") }
        ctx.console.out(NightText.summary(night.summary))
        ctx.console.out(NightText.model(night.model))
        if let e = night.error { ctx.console.out("note: \(e)") }
        return .success
    }

    static let undo = CommandDescriptor(
        path: ["undo"], synopsis: "undo CHANGESET | undo --user ID --last [--force] [--yes]",
        summary: "revert a changeset; refuses (exit 2, listing conflicts) when a row changed since, unless --force",
        options: [
            .value("--user", "student id (with --last; with CHANGESET, refuse unless it is this student's)"),
            .flag("--last", "the student's most recent applied changeset"),
            .flag("--force", "overwrite rows changed since"),
            .flag("--yes", "do not ask (needed when not on a terminal)"),
            .flag("--json", "print JSON"),
        ]
    ) { ctx in
        try reversal(ctx, undo: true)
    }

    static let redo = CommandDescriptor(
        path: ["redo"], synopsis: "redo CHANGESET [--force] [--yes]",
        summary: "re-apply an undone changeset, with the same conflict check",
        options: [
            .flag("--force", "overwrite rows changed since"),
            .flag("--yes", "do not ask (needed when not on a terminal)"),
            .flag("--json", "print JSON"), ManualEdit.userGuard,
        ]
    ) { ctx in
        try reversal(ctx, undo: false)
    }

    static func reversal(_ ctx: CommandContext, undo: Bool) throws -> ExitCode {
        let a = ctx.arguments
        let db = try ctx.openDatabase()
        let store = ChangesetStore(db)
        let id: ChangesetID
        if undo, a.flag("--last") {
            let userID = try a.required("--user")
            try a.rejectExtraPositionals(beyond: 0)
            guard let last = try storeCall({ () throws(StoreError) in try store.lastApplied(userID: userID) }) else {
                throw CLIError.badInput("\(userID) has no applied changeset to undo")
            }
            id = last.id
        } else {
            id = ChangesetID(try a.positional(0, "CHANGESET id"))
            try a.rejectExtraPositionals(beyond: 1)
        }
        let record: ChangesetRecord
        do { record = try store.changeset(id) } catch .unknownChangeset {
            throw CLIError.badInput(
                "no changeset \(id) (changesets older than retention_days are pruned; replan log lists the recent ones)"
            )
        } catch { throw CLIError(store: error) }
        try ManualEdit.requireUser(ctx, owns: "changeset \(id)", owner: record.header.userID)
        let verb = undo ? "undo" : "redo"
        // Beyond the retention the changeset's history may be partly pruned: refuse, clearly.
        if let days = try PruneCommand.retentionDays(ctx),
            record.header.createdAt < PruneCommand.cutoff(days: days, now: ctx.now)
        {
            throw CLIError.badInput(
                "changeset \(id) is older than the retention of \(days) days (retention_days); it can no longer be \(undo ? "undone" : "redone")"
            )
        }
        let edits = (record.report["edits"]?.arrayValue ?? []).compactMap(EditReport.edit(from:))
        if !a.flag("--yes") {
            guard ctx.console.stdinIsTTY else {
                throw CLIError.usage("\(verb) needs --yes when not run on a terminal")
            }
            ctx.console.out(
                "\(verb) changeset \(id) of \(record.header.userID) (\(record.header.origin.rawValue), \(edits.count) edit(s)):"
            )
            ctx.console.out(NightText.edits(edits, console: ctx.console).joined(separator: "\n"))
            ctx.console.err("\(verb)? [y/N] ")
            guard let answer = ctx.console.readLine(), ["y", "yes"].contains(answer.lowercased()) else {
                ctx.console.out("nothing done")
                return .success
            }
        }
        let user = try storeCall { () throws(StoreError) in try UserRepository(db).get(record.header.userID) }
        let plan = UserPlan(user: user, tasks: [])
        let reverted = edits.map { e -> PlanEdit in
            guard undo else { return e }
            var r = e
            r.before = e.after
            r.after = e.before
            return r
        }
        let outbox = PlanCommitter.outbox(for: reverted, plan: plan, now: ctx.now)
        do {
            let outcome =
                try
                (undo
                ? store.undo(changesetID: id, force: a.flag("--force"), now: ctx.now, outbox: outbox)
                : store.redo(changesetID: id, force: a.flag("--force"), now: ctx.now, outbox: outbox))
            // Statistics are derived from the plan: recount them for what the plan is now.
            try? StatisticsRefresh.recount(userID: user.id, today: user.zone.civil(ctx.now).date, db: db)
            if a.flag("--json") {
                ctx.console.out(
                    JSONValue.object([
                        "schema": .string("replan.\(verb)/1"), "changesetId": .string(id.description),
                        "state": .string(outcome.changeset.state.rawValue),
                        "overwritten": .array(outcome.overwritten.map { .string($0.description) }),
                    ]).prettyText)
            } else {
                ctx.console.out(
                    "\(undo ? "undid" : "redid") \(id): \(edits.count) edit(s)\(outcome.overwritten.isEmpty ? "" : ", \(outcome.overwritten.count) changed row(s) overwritten (--force)")"
                )
                ctx.console.out(undo ? "redo with: replan redo \(id)" : "undo with: replan undo \(id)")
            }
            return .success
        } catch .conflict(let conflict) {
            ctx.console.log(
                "replan: \(verb) refused: these rows changed since the changeset \(undo ? "was applied" : "was undone"):",
                priority: .error)
            for row in conflict.rows { ctx.console.log("  \(row)", priority: .error) }
            ctx.console.log("use --force to overwrite them", priority: .error)
            return .conflicts
        } catch {
            throw CLIError(store: error)
        }
    }

    static let show = CommandDescriptor(
        path: ["show"], synopsis: "show CHANGESET [--transcript] [--week] [--json]",
        summary: "one changeset's edits (before → after, reason) and, with --transcript, the model exchange",
        options: [
            .flag("--transcript", "include the model transcript"),
            .flag("--week", "also the student's week around the changeset, its edits marked"),
            .flag("--json", "print JSON"),
            ManualEdit.userGuard,
        ]
    ) { ctx in
        let a = ctx.arguments
        let id = ChangesetID(try a.positional(0, "CHANGESET id"))
        try a.rejectExtraPositionals(beyond: 1)
        let db = try ctx.openExistingDatabase()
        let record = try storeCall { () throws(StoreError) in try ChangesetStore(db).changeset(id) }
        try ManualEdit.requireUser(ctx, owns: "changeset \(id)", owner: record.header.userID)
        var transcript: JSONValue?
        if a.flag("--transcript") {
            if let run = try storeCall({ () throws(StoreError) in try RunStore(db).userRun(changesetID: id) }) {
                transcript = try storeCall { () throws(StoreError) in try RunStore(db).transcript(userRunID: run.id) }
            }
        }
        let h = record.header
        if a.flag("--json") {
            var o: [String: JSONValue] = [
                "schema": "replan.show/1",
                "changeset": [
                    "id": .string(h.id.description), "user": .string(h.userID),
                    "planDate": h.planDate.map { .string($0.description) } ?? .null,
                    "createdAt": .string(Timestamp.text(h.createdAt)), "state": .string(h.state.rawValue),
                    "origin": .string(h.origin.rawValue),
                ],
                "edits": record.report["edits"] ?? [], "flags": record.report["flags"] ?? [],
                "summary": record.report["summary"] ?? h.summary, "model": record.report["model"] ?? .null,
                "rows": .array(
                    record.edits.map { e in
                        [
                            "entity": .string(e.entity.rawValue), "key": .string(e.key), "before": e.before ?? .null,
                            "after": e.after ?? .null,
                            "reason": .string(e.reason),
                        ]
                    }),
            ]
            if a.flag("--transcript") { o["transcript"] = transcript ?? [] }
            ctx.console.out(JSONValue.object(o).prettyText)
            return .success
        }
        ctx.console.out(
            "changeset \(h.id)  \(h.userID)  \(h.origin.rawValue)  \(h.state.rawValue)  created \(Timestamp.text(h.createdAt))\(h.planDate.map { "  plan date \($0)" } ?? "")"
        )
        let edits = (record.report["edits"]?.arrayValue ?? []).compactMap(EditReport.edit(from:))
        ctx.console.out(NightText.edits(edits, console: ctx.console).joined(separator: "\n"))
        for f in record.report["flags"]?.arrayValue ?? [] {
            ctx.console.out("  flag \(f["flag"]?.stringValue ?? "?"): \(f["id"]?.stringValue ?? "?")")
        }
        if let s = record.report["summary"], let d = s["dropped"]?.intValue, let r = s["rescheduled"]?.intValue,
            let c = s["chained"]?.intValue
        {
            // `skipped` is absent from reports written before the version-2 rules.
            ctx.console.out(
                NightText.summary(
                    PlanSummary(dropped: d, skipped: s["skipped"]?.intValue ?? 0, rescheduled: r, chained: c)))
        }
        if let m = record.report["model"], m["called"]?.boolValue == true {
            ctx.console.out(
                "model: \(m["turns"]?.intValue ?? 0) turn(s), \(m["tokens"]?["total"]?.intValue ?? 0) tokens, ended by \(m["ending"]?.stringValue ?? "?")\(m["error"]?.stringValue.map { " — \($0)" } ?? "")"
            )
            if let said = m["summary"]?.stringValue { ctx.console.out("  model says: \(said)") }
        }
        ctx.console.out(
            "\(record.edits.count) row(s); \(h.state == .applied ? "undo with: replan undo \(h.id)" : "redo with: replan redo \(h.id)")"
        )
        if a.flag("--week") {
            let user = try storeCall { () throws(StoreError) in try UserRepository(db).get(h.userID) }
            let day =
                h.planDate ?? edits.compactMap { ($0.after ?? $0.before)?.start.date }.min()
                ?? user.zone.civil(h.createdAt).date
            try WeekCommand.show(week: day, user: user, edits: edits, changeset: h, ctx: ctx, db: db)
        }
        if a.flag("--transcript") {
            ctx.console.out(ctx.console.paint("transcript", .bold))
            ctx.console.out(transcript.map { TranscriptText.render($0) } ?? "  (no model exchange for this changeset)")
        }
        return .success
    }
}

/// Results gathered from worker threads for `run --json`.
final class Collected: @unchecked Sendable {
    private let lock = NSLock()
    private var nights: [UserNight] = []
    func append(_ n: UserNight) { lock.withLock { nights.append(n) } }
    var all: [UserNight] { lock.withLock { nights } }
}
