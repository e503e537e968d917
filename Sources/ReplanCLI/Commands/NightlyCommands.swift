import Foundation
import JSON
import Nightly
import Planning
import Synchronization

/// `replan run|preview|undo|redo|log|show`.
enum NightlyCommands {
    struct Run: ReplanCommand {
        static let configuration = CommandConfiguration(
            name: "run", abstract: "the nightly job: plan every due student once per local night",
            discussion: """
                A student is due when auto-update is on, their local time is past --run-after (03:00) and
                they have no finished run for their local date yet. --force re-plans students already done
                (and ignores --run-after). On SQLite one run at a time per database (exit 75 if another holds
                it). On PostgreSQL any number of runs, on any hosts, share the night: each student is claimed by
                one worker, a worker that dies loses its claims when its --lease runs out and the others take
                them over, and a worker finishes only when the whole night is done (docs/deploy.md).
                """)

        @Option(name: "--user", value: "ID", help: "only this student (repeatable)") var user: [String]
        @Flag(name: "--force", help: "re-plan students already done today") var force: Bool
        @Option(
            setting: .concurrency, value: "N",
            help:
                "user pipelines at once (default 8; with the model, 256, 64 on PostgreSQL: a model-bound night waits on the network)"
        )
        var concurrency: String?
        @Option(setting: .runAfter, value: "HH:MM", help: "local time a night starts (default 03:00)")
        var runAfter: String?
        @Flag(name: "--verbose", help: "a line per student (and progress lines when not on a terminal)")
        var verbose: Bool
        @Flag(name: "--quiet", help: "print nothing but errors") var quiet: Bool
        @Option(setting: .metricsFile, value: "FILE", help: "write the run's Prometheus metrics here (metrics_file)")
        var metricsFile: String?
        @Option(
            name: "--lease", value: "SECONDS", range: RunOptions.leaseRange,
            help: "PostgreSQL: how long a worker's claims outlive its last heartbeat (default 60)")
        var lease: Int?
        @Flag(name: "--json", help: "print JSON") var json: Bool
        @OptionGroup(title: "model options") var model: ModelOptions

        func run(_ ctx: CommandContext) throws -> ExitCode {
            ctx.interruption.handleGracefully()
            if self.verbose && self.quiet { throw CLIError.usage("--verbose and --quiet exclude each other") }
            var options = RunOptions(now: ctx.now)
            options.userIDs = self.user
            options.force = self.force
            if let lease = self.lease { options.lease = lease }
            var flags = self.model.settingFlags
            flags.concurrency = self.concurrency
            flags.runAfter = self.runAfter
            flags.metricsFile = self.metricsFile
            let settings = try ReplanSettings(flags: flags, context: ctx)
            if let time = settings.runAfter { options.runAfter = time }
            let model = try ModelSetup.stage(settings, options: self.model, context: ctx)
            // Migrates, and maps open failures to exit 73. Only `user add` and `import` create a
            // database: a mistyped path must not become an empty database and a green night.
            let database = try ctx.openExistingDatabase()
            let retentionDays = settings.retentionDays
            options.concurrency =
                settings.concurrency
                ?? NightlyJob.defaultConcurrency(
                    modelOn: model.disabledReason == nil, modelConcurrency: model.modelConcurrency,
                    engine: database.engine)
            let json = self.json
            let collected = Collected()
            let requests = Atomic<Int>(0)
            let metricsPath = settings.metricsFile
            // The journal gets one line per run and one per failed or model-error student by
            // default (a line per changed student drowned it: 4,970 for 5,000 students).
            let verbosity: RunProgress.Verbosity = self.quiet ? .quiet : self.verbose ? .verbose : .normal
            let progress = RunProgress(console: ctx.console, verbosity: verbosity)
            let fellBack = Mutex<Set<String>>([])
            let runner = NightlyRunner(
                databasePath: ctx.databasePath, pipeline: model.pipeline, options: options,
                shouldStop: { ctx.interruption.isRaised },
                onUser: { night in
                    requests.add(night.model.requests, ordering: .relaxed)
                    // Once per language and run: a student whose language has no texts got an
                    // English morning note (docs/planning.md §12).
                    if let language = night.noteFellBack, fellBack.withLock({ $0.insert(language).inserted }) {
                        progress.log(
                            "morning notes in '\(language)' have no texts; \(night.userID) and others in it get English",
                            priority: .warning)
                    }
                    if json {
                        collected.append(night)
                    } else if night.status == .failed || night.error != nil || night.model.error != nil {
                        // A student's failure or model error is a warning on stderr (a journald
                        // priority under systemd), not a line of data among the changes.
                        progress.log(
                            userLine(night, console: ctx.console), priority: night.status == .failed ? .error : .warning
                        )
                    } else if verbosity == .verbose {
                        progress.line(userLine(night, console: ctx.console))
                    }
                },
                onProgress: { progress.update($0) })
            let job = NightlyJob(
                database: database, runner: runner, retentionDays: retentionDays,
                shouldStop: { ctx.interruption.isRaised })
            let outcome: NightlyJob.Outcome
            do throws(NightlyRunner.RunError) { outcome = try job.run() } catch {
                throw CLIError(error.useCaseError)
            }
            let report = outcome.report
            progress.finish()
            if json {
                let nights = collected.all.sorted { $0.userID < $1.userID }
                ctx.console.out(
                    JSONValue.object([
                        "schema": "replan.run/1", "runId": .int(report.runID), "now": .string(Timestamp.text(ctx.now)),
                        "users": .array(
                            nights.map { NightText.json($0, schema: nil, now: ctx.now, includeChangeset: true) }),
                        "counts": [
                            "due": .int(report.due), "changed": .int(report.changed),
                            "unchanged": .int(report.unchanged),
                            "skipped": .int(report.skipped), "failed": .int(report.failed),
                            "modelErrors": .int(report.modelErrorCount),
                        ],
                        "modelErrors": .array(
                            ModelErrorKind.ranked(report.modelErrors).map {
                                ["kind": .string($0.kind), "count": .int($0.count)]
                            }),
                        "tokens": report.tokens.json, "interrupted": .bool(report.interrupted),
                        "worker": report.worker.map { .string($0) } ?? .null, "rescued": .int(report.rescued),
                        "refused": .int(report.refused),
                        "costUSD": .number((report.costUSD * 10_000).rounded() / 10_000),
                        "modelAsked": .int(report.modelAsked),
                        "modelReasons": .object(report.modelReasons.mapValues { .int($0) }),
                        "seconds": .number(
                            (report.finishedAt.timeIntervalSince(report.startedAt) * 1000).rounded() / 1000),
                        "peakRSSKiB": .int(ProcessMemory.peakResidentKiB()),
                        "model": model.offReason.map { .string($0) } ?? .null,
                        "pacing": model.pacing,
                    ]).prettyText)
            }
            let summary = RunSummary(
                report: report, modelOff: model.disabledReason, peakRSSKiB: ProcessMemory.peakResidentKiB())
            progress.log(summary.text, priority: summary.priority)
            if let stopped = model.shutoff.reason {
                progress.log("model calls stopped during the run: \(stopped)", priority: .warning)
            }
            // Also after an interrupted run: its metrics say so.
            if let metricsPath {
                writeMetrics(ctx, report, requests: requests.load(ordering: .relaxed), to: metricsPath)
            }
            if report.interrupted {
                progress.log(
                    "interrupted: finished users are committed, the one in progress left no trace", priority: .warning)
                return ctx.interruption.exitCode
            }
            // History older than retention_days went after the night, in short batches.
            if let error = outcome.pruneError {
                ctx.console.log("retention: \(error)", priority: .warning)
            } else if let pruned = outcome.pruned, let days = retentionDays,
                pruned.changesets + pruned.userRuns + pruned.runs + pruned.outbox > 0 || pruned.stopped
            {
                ctx.console.log(
                    "retention (\(days) days): "
                        + PruneCommand.text(
                            pruned, cutoff: Retention.cutoff(days: days, now: ctx.now), dryRun: false,
                            seconds: outcome.pruneSeconds),
                    priority: .info)
            }
            if report.modelUnavailableForAll { return .modelUnavailable }
            return report.failed > 0 ? .someUsersFailed : .success
        }
    }

    /// The run's metrics file; a failure to write it is a warning, never a failed night.
    static func writeMetrics(_ ctx: CommandContext, _ report: NightlyRunner.Report, requests: Int, to path: String) {
        let took = max(0, report.finishedAt.timeIntervalSince(report.startedAt))
        var metrics = RunMetrics(report: report, startedAt: ctx.now, finishedAt: ctx.now.addingTimeInterval(took))
        metrics.modelRequests = requests
        do throws(UseCaseError) {
            try metrics.readOutbox(try ReplanDatabase.openExisting(path: ctx.databasePath, source: ctx.databaseSource))
            try metrics.write(to: path)
        } catch {
            ctx.console.log("warning: \(error.message)", priority: .warning)
        }
    }

    static func userLine(_ n: UserNight, console: Console) -> String {
        var s = "\(n.userID) \(n.planDate): \(n.status.rawValue)"
        if let cs = n.changesetID { s += " \(cs) — \(NightText.summary(n.summary)), \(n.edits.count) edit(s)" }
        if let e = n.error { s += " — \(e)" } else if let e = n.model.error { s += " — model: \(e)" }
        return s
    }

    struct Preview: ReplanCommand {
        static let configuration = CommandConfiguration(
            name: "preview", abstract: "show the changeset tonight's job would commit for one student; writes nothing")

        @Option(name: "--user", value: "ID", help: "student id") var user: String
        @Flag(name: "--json", help: "print JSON") var json: Bool
        @OptionGroup(title: "model options") var model: ModelOptions

        func run(_ ctx: CommandContext) throws -> ExitCode {
            let userID = self.user
            let db = try ctx.openExistingDatabase()
            let settings = try ReplanSettings(flags: self.model.settingFlags, context: ctx)
            let model = try ModelSetup.stage(settings, options: self.model, context: ctx)
            let night = try useCase { () throws(UseCaseError) in
                try NightPreview(pipeline: model.pipeline).night(userID: userID, database: db, now: ctx.now)
            }
            if self.json {
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
            for f in night.flags {
                ctx.console.out("  flag \(f.kind.rawValue): \(f.id)\(f.title.isEmpty ? "" : " '\(f.title)'")")
            }
            ctx.console.out(NightText.summary(night.summary))
            ctx.console.out(NightText.model(night.model))
            if let e = night.error { ctx.console.out("note: \(Console.oneLine(e))") }
            return .success
        }
    }

    struct Undo: ReplanCommand {
        static let configuration = CommandConfiguration(
            name: "undo",
            abstract: "revert a changeset; refuses (exit 2, listing conflicts) when a row changed since, unless --force"
        )

        @Argument(name: "CHANGESET", what: "CHANGESET id", help: "a changeset id (replan log lists them)")
        var changeset: String?
        @Option(
            name: "--user", value: "ID",
            help: "student id (with --last; with CHANGESET, refuse unless it is this student's)")
        var user: String?
        @Flag(name: "--last", help: "the student's most recent applied changeset") var last: Bool
        @Flag(name: "--force", help: "overwrite rows changed since") var force: Bool
        @Flag(name: "--yes", help: "do not ask (needed when not on a terminal)") var yes: Bool
        @Flag(name: "--json", help: "print JSON") var json: Bool

        func run(_ ctx: CommandContext) throws -> ExitCode {
            try NightlyCommands.reversal(
                ctx, undo: true,
                Reversal(changeset: changeset, user: user, last: last, force: force, yes: yes, json: json))
        }
    }

    struct Redo: ReplanCommand {
        static let configuration = CommandConfiguration(
            name: "redo", abstract: "re-apply an undone changeset, with the same conflict check")

        @Argument(name: "CHANGESET", what: "CHANGESET id", help: "a changeset id (replan log lists them)")
        var changeset: String
        @Flag(name: "--force", help: "overwrite rows changed since") var force: Bool
        @Flag(name: "--yes", help: "do not ask (needed when not on a terminal)") var yes: Bool
        @Flag(name: "--json", help: "print JSON") var json: Bool
        @Option(name: "--user", value: "ID", help: ManualEdit.userGuardHelp) var user: String?

        func run(_ ctx: CommandContext) throws -> ExitCode {
            try NightlyCommands.reversal(
                ctx, undo: false,
                Reversal(changeset: changeset, user: user, last: false, force: force, yes: yes, json: json))
        }
    }

    /// What `undo` and `redo` were asked, from either command's declarations.
    struct Reversal {
        var changeset: String?
        var user: String?
        var last: Bool
        var force: Bool
        var yes: Bool
        var json: Bool
    }

    static func reversal(_ ctx: CommandContext, undo: Bool, _ a: Reversal) throws -> ExitCode {
        let db = try ctx.openExistingDatabase()
        let reversal = ChangesetReversal(
            database: db, direction: undo ? .undo : .redo,
            retentionDays: try ReplanSettings(context: ctx).retentionDays)
        let id: ChangesetID
        if undo, a.last {
            guard let userID = a.user else { throw CLIError.usage("--user is required") }
            if let extra = a.changeset { throw CLIError.usage("unexpected argument '\(extra)'") }
            id = try useCase { () throws(UseCaseError) in try reversal.lastApplied(userID: userID) }
        } else {
            guard let changeset = a.changeset else { throw CLIError.usage("missing CHANGESET id") }
            id = ChangesetID(changeset)
        }
        let owner = a.user
        let pending = try useCase { () throws(UseCaseError) in try reversal.load(id, owner: owner) }
        let verb = reversal.direction.verb
        // Refused before the operator is asked; `perform` checks it again itself.
        try useCase { () throws(UseCaseError) in try reversal.refuseBeyondRetention(pending, now: ctx.now) }
        let edits = pending.edits
        if !a.yes {
            guard ctx.console.stdinIsTTY else {
                throw CLIError.usage("\(verb) needs --yes when not run on a terminal")
            }
            ctx.console.out(
                "\(verb) changeset \(id) of \(pending.header.userID) (\(pending.header.origin.rawValue), \(edits.count) edit(s)\(pending.focusMinutes > 0 ? ", \(pending.focusMinutes) focus minutes" : "")):"
            )
            ctx.console.out(NightText.edits(edits, console: ctx.console).joined(separator: "\n"))
            ctx.console.err("\(verb)? [y/N] ")
            guard let answer = ctx.console.readLine(), ["y", "yes"].contains(answer.lowercased()) else {
                ctx.console.out("nothing done")
                return .success
            }
        }
        let force = a.force
        let outcome = try useCase { () throws(UseCaseError) in
            try reversal.perform(pending, force: force, now: ctx.now)
        }
        switch outcome {
        case .refused(let rows):
            ctx.console.log(
                "replan: \(verb) refused: these rows changed since the changeset \(undo ? "was applied" : "was undone"):",
                priority: .error)
            for row in rows { ctx.console.log("  \(row)", priority: .error) }
            ctx.console.log("use --force to overwrite them", priority: .error)
            return .conflicts
        case .done(let done):
            if a.json {
                var o: [String: JSONValue] = [
                    "schema": .string("replan.\(verb)/1"), "changesetId": .string(id.description),
                    "state": .string(done.state.rawValue),
                    "overwritten": .array(done.overwritten.map { .string($0.description) }),
                    "studentRemoved": .bool(done.removedStudent),
                ]
                if let failure = done.statisticsFailure { o["statisticsError"] = .string(failure.message) }
                ctx.console.out(JSONValue.object(o).prettyText)
            } else {
                ctx.console.out(
                    "\(undo ? "undid" : "redid") \(id): \(done.editCount) edit(s)\(done.focusMinutes > 0 ? ", \(done.focusMinutes) focus minutes" : "")\(done.overwritten.isEmpty ? "" : ", \(done.overwritten.count) changed row(s) overwritten (--force)")\(done.removedStudent ? ", and removed \(pending.header.userID), whom the import had added" : "")"
                )
                let me = InvocationName.hint(ctx)
                ctx.console.out(undo ? "redo with: \(me) redo \(id)" : "undo with: \(me) undo \(id)")
            }
            if let failure = done.statisticsFailure {
                // The flip is committed; only the derived statistics lag behind.
                ctx.console.log(
                    "the \(verb) is done, but \(pending.header.userID)'s statistics could not be recounted (\(failure.message)); "
                        + "`replan stats` is unaffected, and the stored statistics are recounted by the student's next nightly run "
                        + "(or now with: replan run --user \(pending.header.userID) --force)",
                    priority: .warning)
            }
            return .success
        }
    }

    struct Show: ReplanCommand {
        static let configuration = CommandConfiguration(
            name: "show",
            abstract: "one changeset's edits (before → after, reason) and, with --transcript, the model exchange")

        @Argument(name: "CHANGESET", what: "CHANGESET id", help: "a changeset id (replan log lists them)")
        var changeset: String
        @Flag(name: "--transcript", help: "include the model transcript") var transcript: Bool
        @Flag(name: "--week", help: "also the student's week around the changeset, its edits marked") var week: Bool
        @Flag(name: "--json", help: "print JSON") var json: Bool
        @Option(name: "--user", value: "ID", help: ManualEdit.userGuardHelp) var user: String?

        func run(_ ctx: CommandContext) throws -> ExitCode {
            let id = ChangesetID(self.changeset)
            let db = try ctx.openExistingDatabase()
            let runLog = RunLog(database: db)
            let record = try useCase { () throws(UseCaseError) in try runLog.changeset(id) }
            try ManualEdit.requireUser(self.user, owns: "changeset \(id)", owner: record.header.userID)
            var transcript: JSONValue?
            if self.transcript {
                transcript = try useCase { () throws(UseCaseError) in try runLog.transcript(of: id) }
            }
            let h = record.header
            let student = try useCase { () throws(UseCaseError) in try PlanReader(database: db).user(h.userID) }
            let texts = NoteTexts(language: student.language)
            let night = NightNote.night(of: record, user: student)
            let note = MorningNote.render(night, language: student.language)
            if self.json {
                // The stable codes as stored, and beside each its words in the student's language.
                let edits = (record.report["edits"]?.arrayValue ?? []).map { v -> JSONValue in
                    guard var o = v.objectValue, let e = EditReport.edit(from: v) else { return v }
                    o["text"] = .string(MorningNote.line(e, texts: texts))
                    return .object(o)
                }
                let flags = (record.report["flags"]?.arrayValue ?? []).enumerated().map { i, v -> JSONValue in
                    guard var o = v.objectValue, i < night.flags.count else { return v }
                    let f = night.flags[i]
                    o["text"] = .string(
                        MorningNote.line(
                            f, start: night.flagStarts[f.id], deleteAfterDays: night.deleteAfterDays, texts: texts))
                    return .object(o)
                }
                var o: [String: JSONValue] = [
                    "schema": "replan.show/1",
                    "changeset": [
                        "id": .string(h.id.description), "user": .string(h.userID),
                        "planDate": h.planDate.map { .string($0.description) } ?? .null,
                        "createdAt": .string(Timestamp.text(h.createdAt)), "state": .string(h.state.rawValue),
                        "origin": .string(h.origin.rawValue),
                    ],
                    "edits": .array(edits), "flags": .array(flags),
                    "summary": record.report["summary"] ?? h.summary, "model": record.report["model"] ?? .null,
                    "note": NightNote.json(note),
                    "rows": .array(
                        record.edits.map { e in
                            [
                                "entity": .string(e.entity.rawValue), "key": .string(e.key),
                                "before": e.before ?? .null,
                                "after": e.after ?? .null,
                                "reason": .string(e.reason),
                            ]
                        }),
                ]
                if self.transcript { o["transcript"] = transcript ?? [] }
                ctx.console.out(JSONValue.object(o).prettyText)
                return .success
            }
            ctx.console.out(
                "changeset \(h.id)  \(h.userID)  \(h.origin.rawValue)  \(h.state.rawValue)  created \(Timestamp.text(h.createdAt))\(h.planDate.map { "  plan date \($0)" } ?? "")"
            )
            let edits = night.edits
            ctx.console.out(NightText.edits(edits, console: ctx.console, texts: texts).joined(separator: "\n"))
            for f in night.flags {
                let words = MorningNote.line(
                    f, start: night.flagStarts[f.id], deleteAfterDays: night.deleteAfterDays, texts: texts)
                ctx.console.out("  " + Console.oneLine(words) + "  " + ctx.console.paint(f.id.description, .dim))
            }
            let totals = MorningNote.totals(
                night.summary, model: edits.filter { $0.reason == .model }.count,
                manual: edits.filter { $0.reason == .manual }.count, texts: texts)
            if !totals.isEmpty { ctx.console.out(texts.text("note.total", ["parts": texts.clauses(totals)])) }
            if let m = record.report["model"], m["called"]?.boolValue == true {
                ctx.console.out(
                    "model: \(m["turns"]?.intValue ?? 0) turn(s), \(m["tokens"]?["total"]?.intValue ?? 0) tokens, ended by \(m["ending"]?.stringValue ?? "?")\(m["error"]?.stringValue.map { " — \($0)" } ?? "")"
                )
                if let said = m["summary"]?.stringValue { ctx.console.out("  model says: \(said)") }
                if let asked = m["question"]?.stringValue { ctx.console.out("  for the student to decide: \(asked)") }
            }
            ctx.console.out(
                "\(record.edits.count) row(s); \(h.state == .applied ? "undo with: \(InvocationName.hint(ctx)) undo \(h.id)" : "redo with: \(InvocationName.hint(ctx)) redo \(h.id)")"
            )
            if self.week {
                let user = student
                let day =
                    h.planDate ?? edits.compactMap { ($0.after ?? $0.before)?.start.date }.min()
                    ?? user.zone.civil(h.createdAt).date
                try WeekCommand.show(week: day, user: user, edits: edits, changeset: h, ctx: ctx, db: db)
            }
            if self.transcript {
                ctx.console.out(ctx.console.paint("transcript", .bold))
                ctx.console.out(
                    transcript.map { TranscriptText.render($0) } ?? "  (no model exchange for this changeset)")
            }
            return .success
        }
    }

}

/// Results gathered from worker threads for `run --json`.
final class Collected: Sendable {
    private let nights = Mutex<[UserNight]>([])
    func append(_ n: UserNight) { nights.withLock { $0.append(n) } }
    var all: [UserNight] { nights.withLock { $0 } }
}
