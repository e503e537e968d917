import Foundation
import JSON
import Nightly
import Planning

/// `replan log`: one line per run by default (due, changed, unchanged, skipped, failed, model
/// errors, tokens, estimated cost, duration), so a night of 1,000 students is one line; the
/// students of a run on request (`--run N`, `--detail`), one student's runs with `--user`.
/// Runs in which nobody was due (most ticks of the hourly timer) are hidden unless `--all`.
struct LogCommand: ReplanCommand {
    static let configuration = CommandConfiguration(
        name: "log",
        abstract:
            "runs newest first, one line each (due, changed, failed, model errors, tokens, cost, duration), then changesets",
        discussion: """
            --run N shows one run with a line per student; --detail does that for every run listed.
            --user ID lists that student's line of each run. --status keeps the runs (and student lines)
            with that outcome: changed, unchanged, skipped, failed, or model-error. --since takes a date
            (midnight, this machine's time zone) or an ISO-8601 instant. The cost is estimated from the
            configuration's price_input, price_cached_input and price_output (USD per million tokens).
            On a terminal a long log goes through $PAGER (default: less -FRX).
            """)

    @Option(name: "--run", range: 1...Int.max, help: "one run, with a line per student") var runID: Int?
    @Option(name: "--user", value: "ID", help: "only this student") var user: String?
    @Option(
        name: "--status", value: "S", help: "changed, unchanged, skipped, failed or model-error",
        completion: .words(["changed", "unchanged", "skipped", "failed", "model-error"]))
    var status: String?
    @Option(name: "--since", value: "DATE", help: "runs and changesets from this date (YYYY-MM-DD) or instant on")
    var since: String?
    @Flag(name: "--detail", help: "a line per student under each run") var detail: Bool
    @Flag(name: "--all", help: "also runs in which nobody was due") var all: Bool
    @Option(name: "--limit", range: 1...10_000, help: "how many runs / changesets (default 20)") var limit: Int?
    @Flag(name: "--no-pager", help: "never page") var noPager: Bool
    @Flag(name: "--json", help: "print JSON") var json: Bool

    func run(_ ctx: CommandContext) throws -> ExitCode { try Self.run(ctx, self) }

    /// The prices of the configuration (`ModelSetup.prices`: gpt-5.1's unless set), the same
    /// ones `run` estimates a night's cost with.
    struct Prices {
        var input: Double
        var cachedInput: Double
        var output: Double

        init?(context ctx: CommandContext) throws(CLIError) {
            let p = try ModelSetup.prices(context: ctx)
            self.input = p.input
            self.cachedInput = p.cachedInput
            self.output = p.output
        }

        /// USD for token counts of OpenAI's usage: cached tokens are part of the prompt tokens,
        /// reasoning tokens part of the completion tokens.
        func cost(prompt: Int, completion: Int, cached: Int) -> Double {
            (Double(max(0, prompt - cached)) * input + Double(cached) * cachedInput + Double(completion) * output)
                / 1_000_000
        }
    }

    static func run(_ ctx: CommandContext, _ a: LogCommand) throws -> ExitCode {
        let limit = a.limit ?? 20
        let runID = a.runID
        let filter = try statusFilter(a.status)
        let since = try sinceDate(a.since)
        let prices = try Prices(context: ctx)
        let db = try ctx.openExistingDatabase()
        let user = a.user
        var query = RunLog.Query()
        query.runID = runID
        query.userID = user
        query.filter = filter
        query.since = since
        query.limit = limit
        query.includeEmpty = a.all
        query.students = runID != nil || user != nil || a.detail || a.json
        let found = try useCase { () throws(UseCaseError) in try RunLog(database: db).entries(query) }
        let (totals, students, changesets) = (found.totals, found.students, found.changesets)

        if a.json {
            ctx.console.out(json(totals, students: students, changesets: changesets, prices: prices).prettyText)
            return .success
        }
        // Each changeset's numbers in its student's words (docs/planning.md §12).
        var languages: [String: String] = [:]
        let reader = PlanReader(database: db)
        for id in Set(changesets.map(\.userID)) {
            languages[id] = (try? useCase { () throws(UseCaseError) in try reader.user(id) })?.language ?? "en"
        }
        let text = render(
            ctx.console, totals, students: students, changesets: changesets, prices: prices,
            userMode: user != nil && runID == nil, runMode: runID != nil, detail: a.detail, languages: languages)
        Pager.show(
            text, console: ctx.console, environment: ctx.environment, allowed: !a.noPager,
            interruption: ctx.interruption)
        return .success
    }

    static func statusFilter(_ text: String?) throws(CLIError) -> UserRunFilter? {
        guard let text else { return nil }
        if text == "model-error" { return .modelError }
        guard let status = UserRunStatus(rawValue: text) else {
            throw .badInput("--status must be changed, unchanged, skipped, failed or model-error, got '\(text)'")
        }
        return .status(status)
    }

    /// A date is its midnight in this machine's time zone (an operator reads the log in local
    /// time); an instant is taken as given.
    static func sinceDate(_ text: String?) throws(CLIError) -> Date? {
        guard let text else { return nil }
        if let instant = Timestamp.date(text) { return instant }
        guard let day = CivilDate(text) else {
            throw .badInput("--since '\(text)' is not a date YYYY-MM-DD or an ISO-8601 instant")
        }
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone.current
        return calendar.date(from: DateComponents(year: day.year, month: day.month, day: day.day))
    }

    // MARK: text

    static let header = [
        "run", "started", "due", "changed", "unchanged", "skipped", "failed", "model err", "tokens", "cost", "duration",
    ]

    static func render(
        _ console: Console, _ totals: [RunTotals], students: [Int: [UserRunRecord]], changesets: [ChangesetHeader],
        prices: Prices?, userMode: Bool, runMode: Bool, detail: Bool, languages: [String: String] = [:]
    ) -> String {
        var lines: [String] = []
        if totals.isEmpty {
            lines.append(console.paint("runs", .bold))
            lines.append("  (none)")
        } else if userMode {
            lines.append(console.paint("runs", .bold))
            for t in totals {
                for u in students[t.run.id] ?? [] {
                    lines.append(
                        "  run \(t.run.id)  \(Timestamp.text(t.run.startedAt))  "
                            + studentLine(u.userRun, prices: prices))
                }
            }
        } else {
            let rows = totals.map { row($0, prices: prices) }
            let widths = header.indices.map { i in
                max(DisplayWidth.of(header[i]), rows.map { DisplayWidth.of($0[i]) }.max() ?? 0)
            }
            func format(_ cells: [String]) -> String {
                "  "
                    + cells.indices.map { i in
                        i == 1
                            ? DisplayWidth.padded(cells[i], to: widths[i])
                            : DisplayWidth.leftPadded(cells[i], to: widths[i])
                    }.joined(separator: "  ")
            }
            lines.append(console.paint(format(header), .bold))
            for (t, cells) in zip(totals, rows) {
                lines.append(format(cells))
                if let stopped = t.run.options["modelStopped"]?.stringValue {
                    lines.append("      model calls stopped: \(Console.oneLine(stopped))")
                }
                if runMode || detail {
                    for u in students[t.run.id] ?? [] {
                        lines.append("      " + studentLine(u.userRun, prices: prices))
                    }
                }
                if runMode {
                    let kinds = ModelErrorKind.ranked(
                        Dictionary(
                            (students[t.run.id] ?? []).compactMap { u in
                                u.userRun.status == .failed ? nil : u.userRun.error.map { (ModelErrorKind.of($0), 1) }
                            },
                            uniquingKeysWith: +))
                    if !kinds.isEmpty {
                        lines.append(
                            "  model errors: " + kinds.map { "\($0.kind): \($0.count)" }.joined(separator: ", "))
                    }
                }
            }
        }
        if !changesets.isEmpty || !runMode {
            lines.append(console.paint("changesets", .bold))
            if changesets.isEmpty { lines.append("  (none)") }
            for c in changesets {
                lines.append(
                    "  \(c.id)  \(c.userID)  \(c.origin.rawValue)  \(c.state.rawValue)  \(c.planDate.map { "plan \($0)" } ?? "")  \(summaryWords(c.summary, language: languages[c.userID] ?? "en"))"
                )
            }
        }
        return lines.joined(separator: "\n")
    }

    /// A changeset's summary counts in words ("3 sessions moved, 2 of them kept in their
    /// course's order"); the stored JSON when it holds none of the counts.
    static func summaryWords(_ summary: JSONValue, language: String) -> String {
        guard summary != [:] else { return "" }
        let counts = PlanSummary(
            dropped: summary["dropped"]?.intValue ?? 0, skipped: summary["skipped"]?.intValue ?? 0,
            rescheduled: summary["rescheduled"]?.intValue ?? 0, chained: summary["chained"]?.intValue ?? 0)
        let texts = NoteTexts(language: language)
        let parts = MorningNote.totals(counts, texts: texts)
        return parts.isEmpty ? summary.text : texts.clauses(parts)
    }

    static func row(_ t: RunTotals, prices: Prices?) -> [String] {
        let cost =
            prices.map {
                dollars($0.cost(prompt: t.promptTokens, completion: t.completionTokens, cached: t.cachedTokens))
            } ?? "-"
        let duration: String
        if let finished = t.run.finishedAt {
            // started_at is the run's `now`: with --now (a reproduction) it is not the clock,
            // and the difference means nothing.
            let elapsed = finished.timeIntervalSince(t.run.startedAt)
            duration = elapsed >= 0 && elapsed < 86_400 ? seconds(elapsed) : "-"
        } else {
            duration = "unfinished"
        }
        return [
            String(t.run.id), Timestamp.text(t.run.startedAt), String(t.users), String(t.changed), String(t.unchanged),
            String(t.skipped), String(t.failed), String(t.modelErrors),
            compact(Int.saturating(t.promptTokens, plus: t.completionTokens)), cost, duration,
        ]
    }

    static func studentLine(_ x: UserRun, prices: Prices?) -> String {
        var line = "\(x.userID) \(x.planDate) \(x.status.rawValue)"
        if let cs = x.changesetID { line += " \(cs)" }
        line += "  turns \(x.turns), tokens \(Int.saturating(x.promptTokens, plus: x.completionTokens))"
        if let prices {
            line +=
                ", "
                + dollars(prices.cost(prompt: x.promptTokens, completion: x.completionTokens, cached: x.cachedTokens))
        }
        line += ", \(seconds(Double(x.durationMilliseconds) / 1000))"
        if let m = x.modelDecision { line += "  model \(m)" }
        if let e = x.error { line += "  error: \(Console.oneLine(e))" }
        return line
    }

    /// 950, 12.3k, 4.5M: token counts at a glance.
    static func compact(_ n: Int) -> String {
        switch n {
        case ..<10_000: return String(n)
        case ..<1_000_000: return String(format: "%.1fk", Double(n) / 1000)
        default: return String(format: "%.1fM", Double(n) / 1_000_000)
        }
    }

    static func dollars(_ usd: Double) -> String {
        usd < 10 ? String(format: "$%.4f", usd) : String(format: "$%.2f", usd)
    }

    static func seconds(_ s: Double) -> String {
        s < 600 ? String(format: "%.1f s", s) : String(format: "%.0f min", s / 60)
    }

    // MARK: JSON

    static func json(
        _ totals: [RunTotals], students: [Int: [UserRunRecord]], changesets: [ChangesetHeader], prices: Prices?
    ) -> JSONValue {
        func costJSON(_ prompt: Int, _ completion: Int, _ cached: Int) -> JSONValue {
            prices.map {
                .number(
                    ($0.cost(prompt: prompt, completion: completion, cached: cached) * 1_000_000).rounded() / 1_000_000)
            } ?? .null
        }
        return JSONValue.object([
            "schema": "replan.log/1",
            "runs": .array(
                totals.map { t in
                    [
                        "id": .int(t.run.id), "startedAt": .string(Timestamp.text(t.run.startedAt)),
                        "finishedAt": t.run.finishedAt.map { .string(Timestamp.text($0)) } ?? .null,
                        "modelStopped": t.run.options["modelStopped"] ?? .null,
                        "totals": [
                            "due": .int(t.users), "changed": .int(t.changed), "unchanged": .int(t.unchanged),
                            "skipped": .int(t.skipped),
                            "failed": .int(t.failed), "modelErrors": .int(t.modelErrors),
                            "modelCalls": .int(t.modelCalls),
                            "tokens": TokenCounts(
                                prompt: t.promptTokens, completion: t.completionTokens, reasoning: t.reasoningTokens,
                                cached: t.cachedTokens
                            ).json,
                            "estimatedCostUSD": costJSON(t.promptTokens, t.completionTokens, t.cachedTokens),
                        ],
                        "users": .array(
                            (students[t.run.id] ?? []).map { u in
                                let x = u.userRun
                                return [
                                    "user": .string(x.userID), "planDate": .string(x.planDate.description),
                                    "status": .string(x.status.rawValue),
                                    "changesetId": x.changesetID.map { .string($0.description) } ?? .null,
                                    "turns": .int(x.turns),
                                    "modelCalls": .int(x.modelCalls),
                                    "tokens": TokenCounts(
                                        prompt: x.promptTokens, completion: x.completionTokens,
                                        reasoning: x.reasoningTokens, cached: x.cachedTokens
                                    ).json,
                                    "estimatedCostUSD": costJSON(x.promptTokens, x.completionTokens, x.cachedTokens),
                                    // What the run itself estimated, with the prices it ran with.
                                    "costUSD": .number((x.costUSD * 1_000_000).rounded() / 1_000_000),
                                    "durationMs": .int(x.durationMilliseconds),
                                    "error": x.error.map { .string($0) } ?? .null,
                                    // Why the model was or was not asked, and how its answers ended (issue 16).
                                    "model": x.modelDecision.map { .string($0) } ?? .null,
                                    "finishReasons": x.finishReasons.map {
                                        .array($0.split(separator: ",").map { .string(String($0)) })
                                    } ?? [],
                                ]
                            }),
                    ]
                }),
            "changesets": .array(
                changesets.map { c in
                    [
                        "id": .string(c.id.description), "user": .string(c.userID),
                        "createdAt": .string(Timestamp.text(c.createdAt)),
                        "origin": .string(c.origin.rawValue),
                        "planDate": c.planDate.map { .string($0.description) } ?? .null,
                        "state": .string(c.state.rawValue), "summary": c.summary,
                    ]
                }),
        ])
    }
}
