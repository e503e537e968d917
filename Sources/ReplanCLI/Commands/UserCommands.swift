import Foundation
import JSON
import Nightly
import Planning

/// `replan user add|list|rm`.
enum UserCommands {
    struct Group: ReplanCommand {
        static let configuration = CommandConfiguration(
            name: "user", abstract: "students", subcommands: [Add.self, List.self, Remove.self])
    }

    struct Add: ReplanCommand {
        static let configuration = CommandConfiguration(
            name: "add", abstract: "add a student (IANA time zone required; language defaults to en)")

        @Argument(name: "ID", what: "user ID", help: "the student's id") var id: String
        @Option(name: "--time-zone", value: "TZ", help: "IANA time zone, e.g. Asia/Taipei") var timeZone: String
        @Option(name: "--language", value: "L", help: "language tag, e.g. zh-TW") var language: String?
        @Option(name: "--name", value: "NAME", help: "display name") var name: String?

        func run(_ ctx: CommandContext) throws -> ExitCode {
            let id = self.id
            let zone = try CLIValues.zone(self.timeZone)
            let user: User
            do throws(DataError) {
                user = try User(id: id, zone: zone, language: self.language ?? "en", displayName: self.name)
            } catch { throw error.asCLIError() }
            let db = try ctx.openDatabase()
            try useCase { () throws(UseCaseError) in try Roster(database: db).add(user, now: ctx.now) }
            ctx.console.out("added user \(id) (\(zone.identifier), \(user.language))")
            return .success
        }
    }

    struct List: ReplanCommand {
        static let configuration = CommandConfiguration(name: "list", abstract: "list students")

        @Flag(name: "--json", help: "print JSON") var json: Bool

        func run(_ ctx: CommandContext) throws -> ExitCode {
            let db = try ctx.openExistingDatabase()
            let users = try useCase { () throws(UseCaseError) in try Roster(database: db).list() }
            if self.json {
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
    }

    struct Remove: ReplanCommand {
        static let configuration = CommandConfiguration(
            name: "rm", abstract: "remove a student and all of their data",
            discussion: """
                Removes the student with every task, run, changeset and transcript: this cannot be undone with
                `replan undo`. --keep-export FILE first writes the student's data as replan/1 JSON (mode 0600;
                an existing file is refused), so `replan import FILE` brings the plan back. Asks on a terminal;
                otherwise --yes is required (exit 64).
                """)

        @Argument(name: "ID", what: "user ID", help: "the student's id") var id: String
        @Option(
            name: "--keep-export", value: "FILE", help: "write the student's replan/1 export to FILE first",
            completion: .file)
        var keepExport: String?
        @Flag(name: "--yes", help: "do not ask (needed when not on a terminal)") var yes: Bool

        func run(_ ctx: CommandContext) throws -> ExitCode {
            let id = self.id
            if !self.yes && !ctx.console.stdinIsTTY {
                throw CLIError.usage(
                    "user rm deletes \(id) and all of their history for good: pass --yes (and --keep-export FILE to keep a copy)"
                )
            }
            let db = try ctx.openExistingDatabase()
            let roster = Roster(database: db)
            let user = try useCase { () throws(UseCaseError) in try roster.user(id) }
            if !self.yes {
                let tasks = try useCase { () throws(UseCaseError) in
                    try PlanReader(database: db).plan(userID: id, window: nil)
                }.tasks.count
                ctx.console.err(
                    "remove \(user.id) with \(tasks) task(s) and their whole history\(self.keepExport.map { " (kept in \($0))" } ?? ", keeping no copy")? [y/N] "
                )
                guard let answer = ctx.console.readLine(), ["y", "yes"].contains(answer.lowercased()) else {
                    ctx.console.out("nothing done")
                    return .success
                }
            }
            if let path = self.keepExport {
                let document = try useCase { () throws(UseCaseError) in try Exporter(database: db).document(userID: id)
                }
                try writeNewPrivateFile(path, document.prettyText + "\n")
            }
            try useCase { () throws(UseCaseError) in try roster.remove(id) }
            ctx.console.out(
                "removed user \(id) and all of their tasks, runs and changesets\(self.keepExport.map { "; their data is in \($0) (replan import \($0) restores it)" } ?? "")"
            )
            return .success
        }
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
