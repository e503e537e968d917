import Exchange
import Foundation
import JSON
import Nightly
import Planning
import Store

/// `replan import FILE`: a `replan/1` document, all or nothing.
enum ImportCommand {
    /// The largest document accepted, from a file or standard input (256 MiB): a 100,000-
    /// student export is well below it, and an endless stream must not exhaust memory.
    static let maxDocumentBytes = 256 << 20

    /// The document's bytes; more than `maxDocumentBytes` is bad input (exit 65), read no
    /// further than one byte past the limit. An array, because the parser reads one: a
    /// `Data` would be copied into one, and a 200 MB export would sit in memory twice.
    static func readBounded(_ path: String) throws(CLIError) -> [UInt8] {
        let limit = maxDocumentBytes
        let handle: FileHandle
        if path == "-" {
            handle = FileHandle.standardInput
        } else {
            guard let h = FileHandle(forReadingAtPath: path) else { throw CLIError.badInput("cannot read \(path)") }
            handle = h
        }
        var data: [UInt8] = []
        while data.count <= limit {
            let chunk: Data?
            do { chunk = try handle.read(upToCount: 1 << 20) } catch {
                throw CLIError.badInput("cannot read \(path): \(error)")
            }
            guard let chunk, !chunk.isEmpty else { return data }
            data.append(contentsOf: chunk)
        }
        throw CLIError.badInput(
            "\(path == "-" ? "standard input" : path) is larger than \(limit >> 20) MiB, the most replan imports at once; split the document by users"
        )
    }

    static let descriptor = CommandDescriptor(
        path: ["import"],
        synopsis: "import FILE | import --from firestore FILE|DIR --time-zone TZ [--time-zone-map FILE] [--check]",
        summary:
            "import a replan/1 JSON document, or the original app's Firestore export (all or nothing; - reads stdin)",
        details: """
            The whole input is validated first; an error names its JSON path and nothing is written.
            Users are created or updated (zone, language, settings); the input's tasks replace the
            stored tasks of the same id (with their occurrences and slides); other stored tasks stay.
            Each user's changes are one changeset of origin import (undo them with replan undo).
            Importing the same input twice changes nothing the second time.

            --from firestore reads the original app's Firestore export: a collection tree
            (__collections__) or a directory of per-user documents. The export holds no time zone:
            --time-zone gives every user one, --time-zone-map FILE ({"uid": "Asia/Taipei", ...})
            gives users their own. It prints every correction it made (with the record's path in
            the export and why) and every record it could not take; --check prints the same
            without writing anything.
            """,
        options: [
            .flag("--json", "print the result as JSON"),
            .value("--from", "the input's format: replan (replan/1, the default) or firestore"),
            .value("--time-zone", "--from firestore: the IANA zone of every user the map does not name"),
            .value("--time-zone-map", "--from firestore: a JSON file {\"uid\": \"IANA zone\", ...}"),
            .flag("--check", "validate and print what would be imported; write nothing"),
        ]
    ) { ctx in
        let path = try ctx.arguments.positional(0, "FILE")
        try ctx.arguments.rejectExtraPositionals(beyond: 1)
        let document: ReplanDocument
        var report: FirestoreImportReport?
        switch ctx.arguments.value("--from") ?? "replan" {
        case "replan", ReplanDocument.format:
            for option in ["--time-zone", "--time-zone-map"] where ctx.arguments.value(option) != nil {
                throw CLIError.usage(
                    "\(option) is only for --from firestore (a replan/1 document names every user's zone)")
            }
            let bytes = try readBounded(path)
            do { document = try ReplanDocumentDecoder(now: ctx.now).decode(try JSONValue(parsing: bytes)) } catch {
                throw CLIError.badInput("\(path): \(error)")
            }
        case "firestore":
            let outcome = try FirestoreImportSource.load(
                path, zone: ctx.arguments.value("--time-zone"),
                zoneMap: ctx.arguments.value("--time-zone-map"))
            document = outcome.document
            report = outcome.report
        case let other:
            throw CLIError.usage("--from '\(other)' is not replan or firestore")
        }

        let check = ctx.arguments.flag("--check")
        // A dry run touches no database at all (and never creates one).
        // A conflict names the task where the input has it: its JSON path in a replan/1
        // document, its document path in a Firestore export.
        let firestore = report != nil
        let place = { (u: Int, t: Int, e: ReplanDocument.Entry) -> String in
            firestore ? "tasks/\(e.user.id)/userTasks/\(e.tasks[t].id)" : "users[\(u)].tasks[\(t)]"
        }
        let results: [(String, ChangesetID?)] = check ? [] : try commit(document, ctx: ctx, path: path, place: place)
        let changesets = Dictionary(results, uniquingKeysWith: { a, _ in a })
        if ctx.arguments.flag("--json") {
            var out: [String: JSONValue] = [
                "schema": "replan.import/1", "check": .bool(check),
                "users": .array(
                    document.entries.map { e -> JSONValue in
                        let c = Counts(e)
                        let changeset: JSONValue =
                            (changesets[e.user.id] ?? nil).map { .string($0.description) } ?? .null
                        return [
                            "user": .string(e.user.id), "changesetId": changeset,
                            "tasks": .int(c.tasks), "series": .int(c.series), "completedOccurrences": .int(c.completed),
                            "focusMinutes": .int(c.focusMinutes),
                        ]
                    }),
            ]
            if let report, case .object(let r) = report.json { out.merge(r) { a, _ in a } }
            ctx.console.out(JSONValue.object(out).prettyText)
        } else {
            for e in document.entries {
                let c = Counts(e)
                let what =
                    "\(c.tasks) tasks (\(c.series) series, \(c.completed) completed sessions), \(c.focusMinutes) focus minutes"
                if check {
                    ctx.console.out("would import \(e.user.id) (\(e.user.zone.identifier)): \(what)")
                } else if let cs = changesets[e.user.id] ?? nil {
                    ctx.console.out(
                        report == nil
                            ? "imported \(e.user.id) (changeset \(cs))"
                            : "imported \(e.user.id) (changeset \(cs)): \(what)")
                } else {
                    ctx.console.out("imported \(e.user.id): already up to date")
                }
            }
            for line in report?.lines ?? [] { ctx.console.out(line) }
        }
        return .success
    }

    /// What one user's part of an import holds, for the summary lines.
    struct Counts {
        var tasks = 0, series = 0, completed = 0, focusMinutes = 0
        init(_ e: ReplanDocument.Entry) {
            tasks = e.tasks.count
            series = e.tasks.filter(\.isSeries).count
            completed = e.tasks.filter(\.completed).count + e.overrides.filter { $0.state == .completed }.count
            focusMinutes = e.focusSessions.reduce(0) { $0 + $1.minutes }
        }
    }

    /// Writes a validated document: every user in one write transaction (all or nothing), each
    /// user's plan as one changeset of origin `import` through the same committer as every
    /// other edit, so an import is undoable and a second import of the same data changes
    /// nothing. Returns each user's changeset (nil: already up to date).
    static func commit(
        _ document: ReplanDocument, ctx: CommandContext, path: String,
        place: (_ user: Int, _ task: Int, _ entry: ReplanDocument.Entry) -> String
    ) throws(CLIError) -> [(String, ChangesetID?)] {
        let db = try ctx.openDatabase()
        var results: [(String, ChangesetID?)] = []
        do throws(StoreError) {
            try db.write { (db) throws(StoreError) in
                results = []
                let plans = PlanRepository(db)
                let users = UserRepository(db)
                for (u, entry) in document.entries.enumerated() {
                    let user = entry.user
                    if let existing = try users.find(user.id) {
                        if existing.zone != user.zone || existing.language != user.language
                            || existing.displayName != user.displayName
                        {
                            try users.update(user, now: ctx.now)
                        }
                        if existing.settings != user.settings {
                            _ = try users.saveSettings(user.settings, for: user.id)
                        }
                    } else {
                        try users.add(user, now: ctx.now)
                        _ = try users.saveSettings(user.settings, for: user.id)
                    }
                    // Task ids are global: a task of another user with the same id is an error.
                    for (i, t) in entry.tasks.enumerated() {
                        if let owner = try plans.taskOwner(taskID: t.id), owner != user.id {
                            throw StoreError.foreignRow(entity: "task", key: "\(t.id) (\(place(u, i, entry)))")
                        }
                    }
                    let original = try plans.loadPlan(userID: user.id, window: nil)
                    var working = original
                    working.user = user
                    let overrides = Dictionary(grouping: entry.overrides, by: \.taskID)
                    let slides = Dictionary(grouping: entry.slides, by: \.taskID)
                    for t in entry.tasks {
                        working.replace(t, overrides: overrides[t.id] ?? [], slides: slides[t.id] ?? [])
                    }
                    var changesetID: ChangesetID?
                    let today = user.zone.civil(ctx.now).date
                    if let prepared = PlanCommitter().prepare(
                        original: original, working: working, origin: .import, planDate: nil, now: ctx.now,
                        reasons: [:],
                        defaultReason: .manual, through: today.adding(days: user.settings.horizonDays))
                    {
                        changesetID = try ChangesetStore(db).commit(prepared.changeset)
                    }
                    let focus = FocusSessionRepository(db)
                    let known = Set(
                        try focus.sessions(userID: user.id).map { "\($0.category)|\($0.start)|\($0.minutes)" })
                    for f in entry.focusSessions where !known.contains("\(f.category)|\(f.start)|\(f.minutes)") {
                        _ = try focus.add(userID: user.id, category: f.category, start: f.start, minutes: f.minutes)
                    }
                    results.append((user.id, changesetID))
                }
            }
        } catch {
            if case .foreignRow(_, let key) = error {
                throw CLIError.badInput("\(path): task id \(key) belongs to another user; nothing was imported")
            }
            throw CLIError(store: error)
        }
        return results
    }
}
