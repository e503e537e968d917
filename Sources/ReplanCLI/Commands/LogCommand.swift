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
    @Option(name: "--status", help: "only runs and student lines with this outcome") var status: StatusChoice?
    @Option(name: "--since", value: "DATE", help: "runs and changesets from this date (YYYY-MM-DD) or instant on")
    var since: String?
    @Flag(name: "--detail", help: "a line per student under each run") var detail: Bool
    @Flag(name: "--all", help: "also runs in which nobody was due") var all: Bool
    @Option(name: "--limit", range: 1...10_000, help: "how many runs / changesets (default 20)") var limit: Int?
    @Flag(name: "--no-pager", help: "never page") var noPager: Bool
    @Flag(name: "--json", help: "print JSON") var json: Bool

    func run(_ ctx: CommandContext) throws -> ExitCode {
        let limit = self.limit ?? 20
        let runID = self.runID
        let filter = self.status?.filter
        let since = try Self.sinceDate(self.since)
        let prices = try Prices(context: ctx)
        let db = try ctx.openExistingDatabase()
        let user = self.user
        var query = RunLog.Query()
        query.runID = runID
        query.userID = user
        query.filter = filter
        query.since = since
        query.limit = limit
        query.includeEmpty = self.all
        query.students = runID != nil || user != nil || self.detail || self.json
        let found = try useCase { () throws(UseCaseError) in try RunLog(database: db).entries(query) }
        let (totals, students, changesets) = (found.totals, found.students, found.changesets)

        if self.json {
            ctx.console.out(
                Self.json(totals, nights: found.nights, students: students, changesets: changesets, prices: prices)
                    .prettyText)
            return .success
        }
        // Each changeset's numbers in its student's words (docs/planning.md §12).
        var languages: [String: String] = [:]
        let reader = PlanReader(database: db)
        for id in Set(changesets.map(\.userID)) {
            languages[id] = (try? useCase { () throws(UseCaseError) in try reader.user(id) })?.language ?? "en"
        }
        let text = Self.render(
            ctx.console, totals, nights: found.nights, students: students, changesets: changesets, prices: prices,
            userMode: user != nil && runID == nil, runMode: runID != nil, detail: self.detail, languages: languages)
        Pager.show(
            text, console: ctx.console, environment: ctx.environment, allowed: !self.noPager,
            interruption: ctx.interruption)
        return .success
    }

    /// The prices of the configuration (`ReplanSettings.prices`: gpt-5.1's unless set), the same
    /// ones `run` estimates a night's cost with.
    struct Prices {
        var input: Double
        var cachedInput: Double
        var output: Double

        init?(context ctx: CommandContext) throws(CLIError) {
            let p = try ReplanSettings(context: ctx).prices
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

    /// `--status`: the runs and student lines kept.
    enum StatusChoice: String, ArgumentChoice {
        case changed, unchanged, skipped, failed
        case modelError = "model-error"

        var filter: UserRunFilter {
            switch self {
            case .changed: .status(.changed)
            case .unchanged: .status(.unchanged)
            case .skipped: .status(.skipped)
            case .failed: .status(.failed)
            case .modelError: .modelError
            }
        }
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
        _ console: Console, _ totals: [RunTotals], nights: [RunLog.Night], students: [Int: [UserRunRecord]],
        changesets: [ChangesetHeader], prices: Prices?, userMode: Bool, runMode: Bool, detail: Bool,
        languages: [String: String] = [:]
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
            // A night of one run is that run's row; a night several workers shared is a row of
            // its totals, and with --detail each worker's row under it.
            let nightRows = nights.map { n in
                n.runs.count == 1 ? row(n.runs[0], prices: prices) : row(n, prices: prices)
            }
            let workerRows =
                detail ? nights.filter { $0.runs.count > 1 }.flatMap { $0.runs.map { row($0, prices: prices) } } : []
            let rows = nightRows + workerRows
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
            func runLines(_ t: RunTotals) {
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
            for (n, cells) in zip(nights, nightRows) {
                lines.append(format(cells))
                if n.runs.count == 1 {
                    runLines(n.runs[0])
                    continue
                }
                let workers = n.shared?.workers ?? []
                if !detail {
                    let stops = Set(n.runs.compactMap { $0.run.options["modelStopped"]?.stringValue })
                    for stopped in stops.sorted() {
                        lines.append("      model calls stopped: \(Console.oneLine(stopped))")
                    }
                    lines.append("      \(n.runs.count) workers (log --detail lists each)")
                    continue
                }
                for t in n.runs.reversed() {
                    lines.append(format(row(t, prices: prices)) + "  " + workerWords(t, workers))
                    runLines(t)
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

    /// A night several workers shared: their totals summed; started when the first run did (on
    /// its clock, as a run's row); the duration is from the first worker's start to the last
    /// one's end on the database server's clock (a worker that died ends when its lease ran
    /// out), "unfinished" while a worker still runs.
    static func row(_ n: RunLog.Night, prices: Prices?) -> [String] {
        let t = summed(n)
        var cells = row(t, prices: prices)
        cells[0] = idList(n.runs.map(\.run.id))
        if let shared = n.shared {
            if let finished = shared.finishedAt {
                cells[10] = seconds(max(0, finished.timeIntervalSince(shared.startedAt)))
            } else {
                cells[10] = "unfinished"
            }
        }
        return cells
    }

    /// The runs of a night summed into one run's totals (the first run's record stands for it).
    static func summed(_ n: RunLog.Night) -> RunTotals {
        let first = n.runs.min { $0.run.id < $1.run.id }!
        var t = first
        t.run.startedAt = n.runs.map(\.run.startedAt).min() ?? first.run.startedAt
        for r in n.runs where r.run.id != first.run.id {
            t.users += r.users
            t.changed += r.changed
            t.unchanged += r.unchanged
            t.skipped += r.skipped
            t.failed += r.failed
            t.modelErrors += r.modelErrors
            t.modelCalls += r.modelCalls
            t.promptTokens = Int.saturating(t.promptTokens, plus: r.promptTokens)
            t.completionTokens = Int.saturating(t.completionTokens, plus: r.completionTokens)
            t.reasoningTokens = Int.saturating(t.reasoningTokens, plus: r.reasoningTokens)
            t.cachedTokens = Int.saturating(t.cachedTokens, plus: r.cachedTokens)
        }
        return t
    }

    /// 12-14,17: run ids as ranges.
    static func idList(_ ids: [Int]) -> String {
        var ranges: [(first: Int, last: Int)] = []
        for id in ids.sorted() {
            if let r = ranges.last, id == r.last + 1 {
                ranges[ranges.count - 1].last = id
            } else {
                ranges.append((id, id))
            }
        }
        return ranges.map { $0.first == $0.last ? String($0.first) : "\($0.first)-\($0.last)" }.joined(separator: ",")
    }

    /// What a worker's row adds: its name, and how its run went for the night as a whole.
    static func workerWords(_ t: RunTotals, _ workers: [NightWorker]) -> String {
        let w = workers.first { $0.runID == t.run.id }
        var words = "worker \(Console.oneLine(w?.name ?? t.run.options["worker"]?.stringValue ?? "?"))"
        if let rescued = t.run.options["rescued"]?.intValue, rescued > 0 { words += ", took over \(rescued)" }
        if let refused = t.run.options["refused"]?.intValue, refused > 0 {
            words += ", \(refused) late commit(s) refused"
        }
        switch w?.state {
        case .lost: words += ", lost (its lease ran out)"
        case .running: words += ", running"
        default: break
        }
        return words
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

    /// A night in `replan.log/1`: its runs, its workers (PostgreSQL), its span and its totals.
    static func nightJSON(_ n: RunLog.Night, totals: JSONValue) -> JSONValue {
        var fields: [String: JSONValue] = [
            "id": .int(n.id), "runs": .array(n.runs.map(\.run.id).sorted().map { .int($0) }),
            "startedAt": .string(Timestamp.text(n.runs.map(\.run.startedAt).min() ?? Date())),
            "totals": totals,
        ]
        if let shared = n.shared {
            fields["seconds"] =
                shared.finishedAt.map { .number(max(0, $0.timeIntervalSince(shared.startedAt))) } ?? .null
            fields["finished"] = .bool(shared.finishedAt != nil)
            fields["workers"] = .array(
                shared.workers.map { w in
                    let options = n.runs.first { $0.run.id == w.runID }?.run.options
                    return [
                        "worker": .string(w.name), "run": .int(w.runID), "state": .string(w.state.rawValue),
                        "rescued": options?["rescued"] ?? .null, "refused": options?["refused"] ?? .null,
                    ]
                })
        } else {
            let t = n.runs.first?.run
            fields["seconds"] = t?.finishedAt.map { .number(max(0, $0.timeIntervalSince(t!.startedAt))) } ?? .null
            fields["finished"] = .bool(t?.finishedAt != nil)
            fields["workers"] = []
        }
        return .object(fields)
    }

    static func json(
        _ totals: [RunTotals], nights: [RunLog.Night], students: [Int: [UserRunRecord]],
        changesets: [ChangesetHeader], prices: Prices?
    ) -> JSONValue {
        func costJSON(_ prompt: Int, _ completion: Int, _ cached: Int) -> JSONValue {
            prices.map {
                .number(
                    ($0.cost(prompt: prompt, completion: completion, cached: cached) * 1_000_000).rounded() / 1_000_000)
            } ?? .null
        }
        func totalsJSON(_ t: RunTotals) -> JSONValue {
            [
                "due": .int(t.users), "changed": .int(t.changed), "unchanged": .int(t.unchanged),
                "skipped": .int(t.skipped),
                "failed": .int(t.failed), "modelErrors": .int(t.modelErrors),
                "modelCalls": .int(t.modelCalls),
                "tokens": TokenCounts(
                    prompt: t.promptTokens, completion: t.completionTokens, reasoning: t.reasoningTokens,
                    cached: t.cachedTokens
                ).json,
                "estimatedCostUSD": costJSON(t.promptTokens, t.completionTokens, t.cachedTokens),
            ]
        }
        var nightOf: [Int: Int] = [:]
        for n in nights { for r in n.runs { nightOf[r.run.id] = n.id } }
        return JSONValue.object([
            "schema": "replan.log/1",
            "nights": .array(nights.map { nightJSON($0, totals: totalsJSON(summed($0))) }),
            "runs": .array(
                totals.map { t in
                    [
                        "id": .int(t.run.id), "startedAt": .string(Timestamp.text(t.run.startedAt)),
                        "finishedAt": t.run.finishedAt.map { .string(Timestamp.text($0)) } ?? .null,
                        "modelStopped": t.run.options["modelStopped"] ?? .null,
                        "night": .int(nightOf[t.run.id] ?? t.run.id),
                        "totals": totalsJSON(t),
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
