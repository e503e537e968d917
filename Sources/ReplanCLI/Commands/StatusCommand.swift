import Foundation
import JSON
import Nightly
import Planning

/// `replan status`: a health check for Nagios, Icinga or any monitor that reads a plugin's exit
/// code (0 OK, 1 WARNING, 2 CRITICAL, 3 UNKNOWN). The checks are `HealthCheck`'s; this only
/// parses the options and renders the result.
struct StatusCommand: ReplanCommand {
    static let configuration = CommandConfiguration(
        name: "status", abstract: "health check for monitoring: exit 0 OK, 1 WARNING, 2 CRITICAL, 3 UNKNOWN",
        discussion: """
            Looks at the database the service uses: the last finished run's age (CRITICAL past
            --max-age), a failure marker written by the shipped OnFailure= hook and newer than the
            last run (CRITICAL), the last run's failed students and model errors (WARNING; every
            student failed: CRITICAL), students due for longer than --max-age and not planned
            tonight, students failing --failing-nights nights in a row, the outbox backlog older than
            --outbox-max-age, retention overdue (WARNING), and whether the model stage is on and why
            not (an unusable key: CRITICAL). Prints one line (the Nagios plugin format, with
            performance data after '|'); --verbose adds a line per check. When the check itself
            cannot run (no database) it is UNKNOWN.
            """)

    @Option(name: "--max-age", value: "DURATION", help: "oldest acceptable last run: 2h (default), 90m, 3600s")
    var maxAge: String?
    @Option(
        name: "--failing-nights", range: 1...365, help: "consecutive failed nights of a student that warn (default 3)")
    var failingNights: Int?
    @Option(name: "--outbox-max-age", value: "DURATION", help: "oldest acceptable outbox row (default 24h)")
    var outboxMaxAge: String?
    @Option(
        name: "--failure-marker", value: "FILE",
        help: "the file the OnFailure= hook writes (default: last-failure beside the database)", completion: .file)
    var failureMarker: String?
    @Flag(name: "--verbose", help: "a line per check") var verbose: Bool
    @Flag(name: "--json", help: "print JSON") var json: Bool

    func run(_ ctx: CommandContext) throws -> ExitCode {
        let result: HealthCheck.Result
        do throws(CLIError) {
            result = try check(ctx)
        } catch {
            // A monitor must tell "cannot look" from "looked and it is bad".
            if json {
                ctx.console.out(
                    JSONValue.object([
                        "schema": "replan.status/1", "state": "UNKNOWN", "exitCode": 3,
                        "summary": .string(error.message), "checks": [],
                    ]).prettyText)
            } else {
                ctx.console.out("REPLAN UNKNOWN - \(error.message)")
            }
            return .statusUnknown
        }
        if json {
            ctx.console.out(Self.json(result).prettyText)
        } else {
            ctx.console.out(
                "REPLAN \(result.state.name) - \(result.summary) | \(Self.performance(result, now: ctx.now))")
            if verbose {
                for f in result.findings {
                    ctx.console.out("  [\(f.state.name)] \(f.check): \(f.message)")
                }
                if !result.dueNotPlanned.isEmpty {
                    ctx.console.out("  due, not planned: \(result.dueNotPlanned.joined(separator: ", "))")
                }
                if !result.failingStudents.isEmpty {
                    ctx.console.out("  failing: \(result.failingStudents.joined(separator: ", "))")
                }
            }
        }
        return Self.exitCode(result.state)
    }

    static func exitCode(_ state: HealthCheck.State) -> ExitCode {
        switch state {
        case .ok: .success
        case .warning: .someUsersFailed
        case .critical: .conflicts
        case .unknown: .statusUnknown
        }
    }

    private func check(_ ctx: CommandContext) throws(CLIError) -> HealthCheck.Result {
        var inputs = HealthCheck.Inputs(now: ctx.now)
        if let text = maxAge { inputs.maxAge = try Self.duration(text, option: "--max-age") }
        if let text = outboxMaxAge { inputs.outboxMaxAge = try Self.duration(text, option: "--outbox-max-age") }
        if let n = failingNights { inputs.failingNights = n }
        // The service's settings, checked as `run` checks them: a value that fails tonight is
        // UNKNOWN now (the check cannot judge a night that will not start).
        let settings = try ReplanSettings(context: ctx)
        if let time = settings.runAfter { inputs.runAfter = time }
        inputs.retentionDays = settings.retentionDays ?? 0
        inputs.model = ModelAvailability.check(settings, context: ctx)
        inputs.failureMarker =
            failureMarker
            ?? ((ctx.databasePath as NSString).deletingLastPathComponent as NSString)
            .appendingPathComponent("last-failure")
        let db = try ctx.openExistingDatabase()
        let checks = inputs
        return try useCase { () throws(UseCaseError) in try HealthCheck(database: db).check(checks) }
    }

    /// `2h`, `90m`, `45s`, `1d` or plain seconds; bad input is exit 65 like every bad value.
    static func duration(_ text: String, option: String) throws(CLIError) -> TimeInterval {
        let units: [Character: Double] = ["s": 1, "m": 60, "h": 3600, "d": 86_400]
        var number = Substring(text)
        var unit = 1.0
        if let last = text.last, let u = units[last] {
            unit = u
            number = number.dropLast()
        }
        guard let value = Double(number), value.isFinite, value > 0, value * unit <= 366 * 86_400 else {
            throw .badInput("\(option) must be a duration like 2h, 90m or 3600s (at most a year), got '\(text)'")
        }
        return value * unit
    }

    /// Nagios performance data: `name=value[unit]`, space-separated.
    static func performance(_ r: HealthCheck.Result, now: Date) -> String {
        var parts: [String] = []
        if let end = r.lastFinishedRun?.finishedAt { parts.append("last_run_age=\(Int(now.timeIntervalSince(end)))s") }
        parts.append("due_not_planned=\(r.dueNotPlanned.count)")
        parts.append("failing_students=\(r.failingStudents.count)")
        parts.append("outbox_rows=\(r.outboxRows)")
        return parts.joined(separator: " ")
    }

    static func json(_ r: HealthCheck.Result) -> JSONValue {
        func run(_ f: HealthCheck.RunFacts?) -> JSONValue {
            guard let f else { return .null }
            return [
                "id": .int(f.id), "startedAt": .string(Timestamp.text(f.startedAt)),
                "finishedAt": f.finishedAt.map { .string(Timestamp.text($0)) } ?? .null,
                "due": .int(f.due), "failed": .int(f.failed), "modelErrors": .int(f.modelErrors),
            ]
        }
        return [
            "schema": "replan.status/1", "state": .string(r.state.name), "exitCode": .int(r.state.rawValue),
            "summary": .string(r.summary),
            "checks": .array(
                r.findings.map {
                    ["check": .string($0.check), "state": .string($0.state.name), "message": .string($0.message)]
                }),
            "students": .int(r.students),
            "lastRun": run(r.lastRun), "lastFinishedRun": run(r.lastFinishedRun),
            "dueNotPlanned": .array(r.dueNotPlanned.map { .string($0) }),
            "failingStudents": .array(r.failingStudents.map { .string($0) }),
            "outbox": [
                "rows": .int(r.outboxRows), "oldest": r.outboxOldest.map { .string(Timestamp.text($0)) } ?? .null,
            ],
        ]
    }
}
