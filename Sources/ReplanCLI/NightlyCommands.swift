import Foundation
import Nightly
import Planning
import Store

/// `replan run|preview|undo|redo|log|show`.
enum NightlyCommands {
    static let all = [run, preview, undo, redo, log, show]

    static let modelOptions: [OptionSpec] = [
        .flag("--no-model", "skip the model: the local rules' edits are the whole changeset"),
        .value("--on-model-error", "local (default: commit the local edits) or skip (commit nothing; retried next run)"),
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
        .value("--model-deadline", "seconds the run's model stage may take; then the remaining students get local edits only (default 7200)"),
        .value("--student-deadline", "seconds one student's model conversation may take; then local edits only (default 300)"),
    ]

    static let run = CommandDescriptor(
        path: ["run"], synopsis: "run [--user ID]… [--no-model] [--force] [--concurrency N] [--run-after HH:MM] [--json]",
        summary: "the nightly job: plan every due student once per local night",
        details: """
        A student is due when auto-update is on, their local time is past --run-after (03:00) and
        they have no finished run for their local date yet. --force re-plans students already done
        (and ignores --run-after). One run at a time per database (exit 75 if another holds it).
        """,
        options: [.value("--user", "only this student (repeatable)", repeatable: true), .flag("--force", "re-plan students already done today"),
                  .value("--concurrency", "user pipelines at once (default 8; with the model, 64: a model-bound night waits on the network)"), .value("--run-after", "local time a night starts (default 03:00)"),
                  .flag("--json", "print JSON")] + modelOptions
    ) { ctx in
        let a = ctx.arguments
        try a.rejectExtraPositionals(beyond: 0)
        ctx.interruption.handleGracefully()
        var options = RunOptions(now: ctx.now)
        options.userIDs = a.values("--user")
        options.force = a.flag("--force")
        if let t = a.value("--run-after") {
            guard let time = TimeOfDay(t) else { throw CLIError.badInput("--run-after '\(t)' is not HH:MM") }
            options.runAfter = time
        }
        let model = try ModelSetup(context: ctx)
        // Decision: a night that asks the model spends its time waiting on the network, so
        // it gets as many pipelines as requests may be in flight; a local night keeps 8.
        options.concurrency = try a.int("--concurrency", in: 1...256) ?? (model.disabledReason == nil ? model.modelConcurrency : 8)
        _ = try ctx.openDatabase() // creates/migrates, and maps open failures to exit 73
        let json = a.flag("--json")
        let collected = Collected()
        let progress = RunProgress(console: ctx.console)
        let runner = NightlyRunner(
            databasePath: ctx.databasePath, pipeline: model.pipeline, options: options,
            shouldStop: { ctx.interruption.isRaised },
            onUser: { night in
                if json { collected.append(night) }
                else if night.status != .unchanged || night.model.error != nil { progress.line(userLine(night, console: ctx.console)) }
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
            ctx.console.out(JSONValue.object([
                "schema": "replan.run/1", "runId": .int(report.runID), "now": .string(Timestamp.text(ctx.now)),
                "users": .array(nights.map { NightText.json($0, schema: nil, now: ctx.now, includeChangeset: true) }),
                "counts": ["due": .int(report.due), "changed": .int(report.changed), "unchanged": .int(report.unchanged),
                           "skipped": .int(report.skipped), "failed": .int(report.failed)],
                "tokens": report.tokens.json, "interrupted": .bool(report.interrupted),
                "costUSD": .number((report.costUSD * 10_000).rounded() / 10_000),
                "modelAsked": .int(report.modelAsked),
                "modelReasons": .object(report.modelReasons.mapValues { .int($0) }),
                "seconds": .number((report.finishedAt.timeIntervalSince(report.startedAt) * 1000).rounded() / 1000),
                "peakRSSKiB": .int(ProcessMemory.peakResidentKiB()),
                "model": model.offReason.map { .string($0) } ?? .null,
            ]).prettyText)
        }
        let seconds = report.finishedAt.timeIntervalSince(report.startedAt)
        let summary = "run \(report.runID): \(report.due) due, \(report.changed) changed, \(report.unchanged) unchanged, \(report.skipped) skipped, \(report.failed) failed, \(report.tokens.total) tokens, \(String(format: "%.1f", seconds)) s, peak RSS \(ProcessMemory.peakResidentKiB() / 1024) MiB, model asked for \(report.modelAsked), est. $\(String(format: "%.2f", report.costUSD))"
        ctx.console.log(summary + (model.disabledReason.map { " (model off: \($0))" } ?? ""),
                        priority: report.failed > 0 ? .warning : .notice)
        if let stopped = model.shutoff.reason {
            ctx.console.log("model calls stopped during the run: \(stopped)", priority: .warning)
        }
        if report.interrupted {
            ctx.console.log("interrupted: finished users are committed, the one in progress left no trace", priority: .warning)
            return ctx.interruption.exitCode
        }
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
        let (night, _) = try storeCall { () throws(StoreError) in try model.pipeline.prepare(userID: userID, db: db, now: ctx.now) }
        if a.flag("--json") {
            var o = NightText.json(night, schema: "replan.preview/1", now: ctx.now, includeChangeset: false)
            if case .object(var fields) = o {
                fields["transcriptMessages"] = .int(night.transcript.arrayValue?.count ?? 0)
                o = .object(fields)
            }
            ctx.console.out(o.prettyText)
            return .success
        }
        ctx.console.out("preview for \(userID), plan date \(night.planDate) (now \(night.localNow)) — nothing is written")
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
        options: [.value("--user", "student id (with --last; with CHANGESET, refuse unless it is this student's)"), .flag("--last", "the student's most recent applied changeset"),
                  .flag("--force", "overwrite rows changed since"), .flag("--yes", "do not ask (needed when not on a terminal)"),
                  .flag("--json", "print JSON")]
    ) { ctx in
        try reversal(ctx, undo: true)
    }

    static let redo = CommandDescriptor(
        path: ["redo"], synopsis: "redo CHANGESET [--force] [--yes]",
        summary: "re-apply an undone changeset, with the same conflict check",
        options: [.flag("--force", "overwrite rows changed since"), .flag("--yes", "do not ask (needed when not on a terminal)"),
                  .flag("--json", "print JSON"), ManualEdit.userGuard]
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
        let record = try storeCall { () throws(StoreError) in try store.changeset(id) }
        try ManualEdit.requireUser(ctx, owns: "changeset \(id)", owner: record.header.userID)
        let verb = undo ? "undo" : "redo"
        let edits = (record.report["edits"]?.arrayValue ?? []).compactMap(EditReport.edit(from:))
        if !a.flag("--yes") {
            guard ctx.console.stdinIsTTY else {
                throw CLIError.usage("\(verb) needs --yes when not run on a terminal")
            }
            ctx.console.out("\(verb) changeset \(id) of \(record.header.userID) (\(record.header.origin.rawValue), \(edits.count) edit(s)):")
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
            r.before = e.after; r.after = e.before
            return r
        }
        let outbox = PlanCommitter.outbox(for: reverted, plan: plan, now: ctx.now)
        do {
            let outcome = try (undo ? store.undo(changesetID: id, force: a.flag("--force"), now: ctx.now, outbox: outbox)
                                    : store.redo(changesetID: id, force: a.flag("--force"), now: ctx.now, outbox: outbox))
            // Statistics are derived from the plan: recount them for what the plan is now.
            try? StatisticsRefresh.recount(userID: user.id, today: user.zone.civil(ctx.now).date, db: db)
            if a.flag("--json") {
                ctx.console.out(JSONValue.object([
                    "schema": .string("replan.\(verb)/1"), "changesetId": .string(id.description), "state": .string(outcome.changeset.state.rawValue),
                    "overwritten": .array(outcome.overwritten.map { .string($0.description) }),
                ]).prettyText)
            } else {
                ctx.console.out("\(undo ? "undid" : "redid") \(id): \(edits.count) edit(s)\(outcome.overwritten.isEmpty ? "" : ", \(outcome.overwritten.count) changed row(s) overwritten (--force)")")
                ctx.console.out(undo ? "redo with: replan redo \(id)" : "undo with: replan undo \(id)")
            }
            return .success
        } catch .conflict(let conflict) {
            ctx.console.log("replan: \(verb) refused: these rows changed since the changeset \(undo ? "was applied" : "was undone"):", priority: .error)
            for row in conflict.rows { ctx.console.log("  \(row)", priority: .error) }
            ctx.console.log("use --force to overwrite them", priority: .error)
            return .conflicts
        } catch {
            throw CLIError(store: error)
        }
    }

    static let log = CommandDescriptor(
        path: ["log"], synopsis: "log [--user ID] [--limit N] [--json]",
        summary: "runs and changesets, newest first: when, who, what changed, model turns, tokens, errors",
        options: [.value("--user", "only this student"), .value("--limit", "how many runs / changesets (default 20)"),
                  .flag("--json", "print JSON")]
    ) { ctx in
        try ctx.arguments.rejectExtraPositionals(beyond: 0)
        let a = ctx.arguments
        let limit = try a.int("--limit", in: 1...10_000) ?? 20
        let db = try ctx.openExistingDatabase()
        let user = a.value("--user")
        if let user { _ = try storeCall { () throws(StoreError) in try UserRepository(db).get(user) } }
        let runs = try storeCall { () throws(StoreError) in try RunStore(db).runs(limit: limit, userID: user) }
        let changesets = try storeCall { () throws(StoreError) in try ChangesetStore(db).changesets(userID: user, limit: limit) }
        if a.flag("--json") {
            ctx.console.out(JSONValue.object([
                "schema": "replan.log/1",
                "runs": .array(runs.map { r in
                    ["id": .int(r.run.id), "startedAt": .string(Timestamp.text(r.run.startedAt)),
                     "finishedAt": r.run.finishedAt.map { .string(Timestamp.text($0)) } ?? .null,
                     // The run's tokens by kind and estimated cost: the sums of its (listed) user runs.
                     "tokens": r.userRuns.reduce(TokenCounts()) { sum, u in
                         sum + TokenCounts(prompt: u.userRun.promptTokens, completion: u.userRun.completionTokens,
                                           reasoning: u.userRun.reasoningTokens, cached: u.userRun.cachedTokens)
                     }.json,
                     "costUSD": .number((r.userRuns.reduce(0) { $0 + $1.userRun.costUSD } * 10_000).rounded() / 10_000),
                     "users": .array(r.userRuns.map { u in
                         let x = u.userRun
                         return ["user": .string(x.userID), "planDate": .string(x.planDate.description), "status": .string(x.status.rawValue),
                                 "changesetId": x.changesetID.map { .string($0.description) } ?? .null, "turns": .int(x.turns),
                                 "modelCalls": .int(x.modelCalls),
                                 "tokens": TokenCounts(prompt: x.promptTokens, completion: x.completionTokens, reasoning: x.reasoningTokens, cached: x.cachedTokens).json,
                                 "durationMs": .int(x.durationMilliseconds), "error": x.error.map { .string($0) } ?? .null,
                                 "model": x.modelDecision.map { .string($0) } ?? .null,
                                 "finishReasons": x.finishReasons.map { .array($0.split(separator: ",").map { .string(String($0)) }) } ?? [],
                                 "costUSD": .number((x.costUSD * 1_000_000).rounded() / 1_000_000)]
                     })]
                }),
                "changesets": .array(changesets.map { c in
                    ["id": .string(c.id.description), "user": .string(c.userID), "createdAt": .string(Timestamp.text(c.createdAt)),
                     "origin": .string(c.origin.rawValue), "planDate": c.planDate.map { .string($0.description) } ?? .null,
                     "state": .string(c.state.rawValue), "summary": c.summary]
                }),
            ]).prettyText)
            return .success
        }
        ctx.console.out(ctx.console.paint("runs", .bold))
        if runs.isEmpty { ctx.console.out("  (none)") }
        for r in runs {
            ctx.console.out("  run \(r.run.id)  \(Timestamp.text(r.run.startedAt))  \(r.userRuns.count) user(s)\(r.run.finishedAt == nil ? "  (unfinished)" : "")")
            for u in r.userRuns {
                let x = u.userRun
                var line = "    \(x.userID) \(x.planDate) \(x.status.rawValue)"
                if let cs = x.changesetID { line += " \(cs)" }
                line += "  turns \(x.turns), tokens \(Int.saturating(x.promptTokens, plus: x.completionTokens))"
                if let m = x.modelDecision { line += "  model \(m)" }
                if x.costUSD > 0 { line += String(format: "  $%.4f", x.costUSD) }
                if let e = x.error { line += "  error: \(e)" }
                ctx.console.out(line)
            }
        }
        ctx.console.out(ctx.console.paint("changesets", .bold))
        if changesets.isEmpty { ctx.console.out("  (none)") }
        for c in changesets {
            ctx.console.out("  \(c.id)  \(c.userID)  \(c.origin.rawValue)  \(c.state.rawValue)  \(c.planDate.map { "plan \($0)" } ?? "")  \(c.summary == [:] ? "" : c.summary.text)")
        }
        return .success
    }

    static let show = CommandDescriptor(
        path: ["show"], synopsis: "show CHANGESET [--transcript] [--json]",
        summary: "one changeset's edits (before → after, reason) and, with --transcript, the model exchange",
        options: [.flag("--transcript", "include the model transcript"), .flag("--json", "print JSON"), ManualEdit.userGuard]
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
                "changeset": ["id": .string(h.id.description), "user": .string(h.userID), "planDate": h.planDate.map { .string($0.description) } ?? .null,
                              "createdAt": .string(Timestamp.text(h.createdAt)), "state": .string(h.state.rawValue), "origin": .string(h.origin.rawValue)],
                "edits": record.report["edits"] ?? [], "flags": record.report["flags"] ?? [],
                "summary": record.report["summary"] ?? h.summary, "model": record.report["model"] ?? .null,
                "rows": .array(record.edits.map { e in
                    ["entity": .string(e.entity.rawValue), "key": .string(e.key), "before": e.before ?? .null, "after": e.after ?? .null,
                     "reason": .string(e.reason)]
                }),
            ]
            if a.flag("--transcript") { o["transcript"] = transcript ?? [] }
            ctx.console.out(JSONValue.object(o).prettyText)
            return .success
        }
        ctx.console.out("changeset \(h.id)  \(h.userID)  \(h.origin.rawValue)  \(h.state.rawValue)  created \(Timestamp.text(h.createdAt))\(h.planDate.map { "  plan date \($0)" } ?? "")")
        let edits = (record.report["edits"]?.arrayValue ?? []).compactMap(EditReport.edit(from:))
        ctx.console.out(NightText.edits(edits, console: ctx.console).joined(separator: "\n"))
        for f in record.report["flags"]?.arrayValue ?? [] {
            ctx.console.out("  flag \(f["flag"]?.stringValue ?? "?"): \(f["id"]?.stringValue ?? "?")")
        }
        if let s = record.report["summary"], let d = s["dropped"]?.intValue, let r = s["rescheduled"]?.intValue, let c = s["chained"]?.intValue {
            // `skipped` is absent from reports written before the version-2 rules.
            ctx.console.out(NightText.summary(PlanSummary(dropped: d, skipped: s["skipped"]?.intValue ?? 0, rescheduled: r, chained: c)))
        }
        if let m = record.report["model"], m["called"]?.boolValue == true {
            ctx.console.out("model: \(m["turns"]?.intValue ?? 0) turn(s), \(m["tokens"]?["total"]?.intValue ?? 0) tokens, ended by \(m["ending"]?.stringValue ?? "?")\(m["error"]?.stringValue.map { " — \($0)" } ?? "")")
            if let said = m["summary"]?.stringValue { ctx.console.out("  model says: \(said)") }
        }
        ctx.console.out("\(record.edits.count) row(s); \(h.state == .applied ? "undo with: replan undo \(h.id)" : "redo with: replan redo \(h.id)")")
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
