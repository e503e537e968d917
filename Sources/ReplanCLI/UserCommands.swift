import Exchange
import Foundation
import JSON
import Planning
import Store

/// `replan user add|list|rm`.
enum UserCommands {
    static let all = [add, list, remove]

    static let add = CommandDescriptor(
        path: ["user", "add"], synopsis: "user add ID --time-zone TZ [--language L] [--name NAME]",
        summary: "add a student (IANA time zone required; language defaults to en)",
        options: [
            .value("--time-zone", "IANA time zone, e.g. Asia/Taipei"), .value("--language", "language tag, e.g. zh-TW"),
            .value("--name", "display name"),
        ]
    ) { ctx in
        let a = ctx.arguments
        let id = try a.positional(0, "user ID")
        try a.rejectExtraPositionals(beyond: 1)
        let zone = try CLIValues.zone(try a.required("--time-zone"))
        let user: User
        do throws(DataError) {
            user = try User(id: id, zone: zone, language: a.value("--language") ?? "en", displayName: a.value("--name"))
        } catch { throw error.asCLIError() }
        let db = try ctx.openDatabase()
        try storeCall { () throws(StoreError) in try UserRepository(db).add(user, now: ctx.now) }
        ctx.console.out("added user \(id) (\(zone.identifier), \(user.language))")
        return .success
    }

    static let list = CommandDescriptor(
        path: ["user", "list"], synopsis: "user list [--json]", summary: "list students",
        options: [.flag("--json", "print JSON")]
    ) { ctx in
        try ctx.arguments.rejectExtraPositionals(beyond: 0)
        let db = try ctx.openExistingDatabase()
        let users = try storeCall { () throws(StoreError) in try UserRepository(db).list() }
        if ctx.arguments.flag("--json") {
            ctx.console.out(
                JSONValue.object([
                    "schema": "replan.users/1",
                    "users": .array(
                        users.map { u in
                            [
                                "id": .string(u.id), "timeZone": .string(u.zone.identifier),
                                "language": .string(u.language),
                                "displayName": u.displayName.map { .string($0) } ?? .null,
                                "autoUpdate": .bool(u.settings.autoUpdate),
                            ]
                        }),
                ]).prettyText)
        } else if users.isEmpty {
            ctx.console.out("no users yet (add one with: replan user add ID --time-zone TZ)")
        } else {
            for u in users {
                ctx.console.out(
                    "\(u.id)\t\(u.zone.identifier)\t\(u.language)\(u.displayName.map { "\t\($0)" } ?? "")\(u.settings.autoUpdate ? "" : "\t(auto-update off)")"
                )
            }
        }
        return .success
    }

    static let remove = CommandDescriptor(
        path: ["user", "rm"], synopsis: "user rm ID [--keep-export FILE] [--yes]",
        summary: "remove a student and all of their data",
        details: """
            Removes the student with every task, run, changeset and transcript: this cannot be undone with
            `replan undo`. --keep-export FILE first writes the student's data as replan/1 JSON (mode 0600;
            an existing file is refused), so `replan import FILE` brings the plan back. Asks on a terminal;
            otherwise --yes is required (exit 64).
            """,
        options: [
            .value("--keep-export", "write the student's replan/1 export to FILE first"),
            .flag("--yes", "do not ask (needed when not on a terminal)"),
        ]
    ) { ctx in
        let a = ctx.arguments
        let id = try a.positional(0, "user ID")
        try a.rejectExtraPositionals(beyond: 1)
        if !a.flag("--yes") && !ctx.console.stdinIsTTY {
            throw CLIError.usage(
                "user rm deletes \(id) and all of their history for good: pass --yes (and --keep-export FILE to keep a copy)"
            )
        }
        let db = try ctx.openExistingDatabase()
        let user = try storeCall { () throws(StoreError) in try UserRepository(db).get(id) }
        if !a.flag("--yes") {
            let tasks = try storeCall { () throws(StoreError) in
                try PlanRepository(db).loadPlan(userID: id, window: nil)
            }.tasks.count
            ctx.console.err(
                "remove \(user.id) with \(tasks) task(s) and their whole history\(a.value("--keep-export").map { " (kept in \($0))" } ?? ", keeping no copy")? [y/N] "
            )
            guard let answer = ctx.console.readLine(), ["y", "yes"].contains(answer.lowercased()) else {
                ctx.console.out("nothing done")
                return .success
            }
        }
        if let path = a.value("--keep-export") {
            let plan = try storeCall { () throws(StoreError) in try PlanRepository(db).loadPlan(userID: id, window: nil)
            }
            let focus = try storeCall { () throws(StoreError) in try FocusSessionRepository(db).sessions(userID: id) }
            let entry = ReplanDocument.Entry(
                user: plan.user, tasks: plan.sortedTasks, overrides: plan.allOverrides, slides: plan.allSlides,
                focusSessions: focus.map { FocusSession(category: $0.category, start: $0.start, minutes: $0.minutes) })
            try writeNewPrivateFile(path, ReplanDocument(entries: [entry]).json.prettyText + "\n")
        }
        try storeCall { () throws(StoreError) in try UserRepository(db).remove(id) }
        ctx.console.out(
            "removed user \(id) and all of their tasks, runs and changesets\(a.value("--keep-export").map { "; their data is in \($0) (replan import \($0) restores it)" } ?? "")"
        )
        return .success
    }

    /// Creates `path` (refusing an existing file) with mode 0600 and writes `text` to it,
    /// synced, so the copy exists on disk before the student is removed.
    static func writeNewPrivateFile(_ path: String, _ text: String) throws(CLIError) {
        let fd = open(path, O_CREAT | O_EXCL | O_WRONLY | O_CLOEXEC, 0o600)
        guard fd >= 0 else {
            throw CLIError.badInput(
                "cannot create \(path) for --keep-export: \(String(cString: strerror(errno))); nothing removed")
        }
        defer { close(fd) }
        var bytes = Array(text.utf8)
        var offset = 0
        while offset < bytes.count {
            let n = bytes.withUnsafeMutableBytes { write(fd, $0.baseAddress! + offset, $0.count - offset) }
            if n < 0 && errno == EINTR { continue }
            guard n > 0 else {
                unlink(path)
                throw CLIError.badInput("cannot write \(path): \(String(cString: strerror(errno))); nothing removed")
            }
            offset += n
        }
        guard fsync(fd) == 0 else {
            unlink(path)
            throw CLIError.badInput("cannot write \(path): \(String(cString: strerror(errno))); nothing removed")
        }
    }
}
