import Foundation
import Nightly
import Planning
import Store

/// `replan import FILE`: a `replan/1` document, all or nothing.
enum ImportCommand {
    /// The largest document accepted, from a file or standard input (256 MiB): a 100,000-
    /// student export is well below it, and an endless stream must not exhaust memory.
    static let maxDocumentBytes = 256 << 20

    /// The document's bytes; more than `maxDocumentBytes` is bad input (exit 65), read no
    /// further than one byte past the limit.
    static func readBounded(_ path: String) throws(CLIError) -> Data {
        let limit = maxDocumentBytes
        let handle: FileHandle
        if path == "-" {
            handle = FileHandle.standardInput
        } else {
            guard let h = FileHandle(forReadingAtPath: path) else { throw CLIError.badInput("cannot read \(path)") }
            handle = h
        }
        var data = Data()
        while data.count <= limit {
            let chunk: Data?
            do { chunk = try handle.read(upToCount: 1 << 20) } catch { throw CLIError.badInput("cannot read \(path): \(error)") }
            guard let chunk, !chunk.isEmpty else { return data }
            data.append(chunk)
        }
        throw CLIError.badInput("\(path == "-" ? "standard input" : path) is larger than \(limit >> 20) MiB, the most replan imports at once; split the document by users")
    }

    static let descriptor = CommandDescriptor(
        path: ["import"], synopsis: "import FILE", summary: "import a replan/1 JSON document (all or nothing; - reads stdin)",
        details: """
        The whole file is validated first; the first error names its JSON path and nothing is written.
        Users are created or updated (zone, language, settings); the document's tasks replace the
        stored tasks of the same id (with their occurrences and slides); other stored tasks stay.
        Importing the same document twice changes nothing the second time.
        """,
        options: [.flag("--json", "print the result as JSON")]
    ) { ctx in
        let path = try ctx.arguments.positional(0, "FILE")
        try ctx.arguments.rejectExtraPositionals(beyond: 1)
        let data = try readBounded(path)
        let document: ReplanDocument
        do { document = try ReplanDocumentDecoder(now: ctx.now).decode(data) }
        catch { throw CLIError.badInput("\(path): \(error)") }

        let db = try ctx.openDatabase()
        var results: [(String, ChangesetID?)] = []
        do throws(StoreError) {
            try db.write { (db) throws(StoreError) in
                results = []
                let plans = PlanRepository(db), users = UserRepository(db)
                for entry in document.entries {
                    let user = entry.user
                    if let existing = try users.find(user.id) {
                        if existing.zone != user.zone || existing.language != user.language || existing.displayName != user.displayName {
                            try users.update(user, now: ctx.now)
                        }
                        if existing.settings != user.settings { _ = try users.saveSettings(user.settings, for: user.id) }
                    } else {
                        try users.add(user, now: ctx.now)
                        _ = try users.saveSettings(user.settings, for: user.id)
                    }
                    // Task ids are global: a task of another user with the same id is an error.
                    for (i, t) in entry.tasks.enumerated() {
                        if let owner = try plans.taskOwner(taskID: t.id), owner != user.id {
                            throw StoreError.foreignRow(entity: "task", key: "\(t.id) (users[\(document.entries.firstIndex(of: entry)!)].tasks[\(i)])")
                        }
                    }
                    let original = try plans.loadPlan(userID: user.id, window: nil)
                    var working = original
                    working.user = user
                    let overrides = Dictionary(grouping: entry.overrides, by: \.taskID)
                    let slides = Dictionary(grouping: entry.slides, by: \.taskID)
                    for t in entry.tasks { working.replace(t, overrides: overrides[t.id] ?? [], slides: slides[t.id] ?? []) }
                    var changesetID: ChangesetID?
                    let today = user.zone.civil(ctx.now).date
                    if let prepared = PlanCommitter().prepare(
                        original: original, working: working, origin: .import, planDate: nil, now: ctx.now, reasons: [:],
                        defaultReason: .manual, through: today.adding(days: user.settings.horizonDays)) {
                        changesetID = try ChangesetStore(db).commit(prepared.changeset)
                    }
                    let focus = FocusSessionRepository(db)
                    let known = Set(try focus.sessions(userID: user.id).map { "\($0.category)|\($0.start)|\($0.minutes)" })
                    for f in entry.focusSessions where !known.contains("\(f.category)|\(f.start)|\(f.minutes)") {
                        _ = try focus.add(userID: user.id, category: f.category, start: f.start, minutes: f.minutes)
                    }
                    results.append((user.id, changesetID))
                }
            }
        } catch {
            if case .foreignRow(_, let key) = error { throw CLIError.badInput("\(path): task id \(key) belongs to another user; nothing was imported") }
            throw CLIError(store: error)
        }
        if ctx.arguments.flag("--json") {
            ctx.console.out(JSONValue.object(["schema": "replan.import/1", "users": .array(results.map {
                ["user": .string($0.0), "changesetId": $0.1.map { .string($0.description) } ?? .null]
            })]).prettyText)
        } else {
            for (user, cs) in results {
                ctx.console.out(cs.map { "imported \(user) (changeset \($0))" } ?? "imported \(user): already up to date")
            }
        }
        return .success
    }
}
