import Foundation
import JSON
import Nightly
import Planning

/// `replan demo`: a sample database with a student who missed sessions, the nightly job run
/// on it, and how to look at and undo what it did. Runs the other commands in-process, so
/// what it shows is exactly what an operator would see.
struct DemoCommand: ReplanCommand {
    static let defaultPath = "./replan-demo.db"

    static let configuration = CommandConfiguration(
        name: "demo",
        abstract: "create a sample database (./replan-demo.db), run the nightly job on it and show what changed",
        discussion:
            "The sample student 'mei' (Asia/Taipei) missed two parts of a five-day course, an essay and a vocabulary\nevening; tomorrow is full. The demo uses the local rules only (no model). An existing demo database is replaced."
    )

    func run(_ ctx: CommandContext) throws -> ExitCode {
        let explicit = ctx.databaseSource == "--db" || ctx.environment["REPLAN_DB"] != nil
        let path = explicit ? ctx.databasePath : Self.defaultPath
        let fm = FileManager.default
        if fm.fileExists(atPath: path) {
            // Only a database this command made is replaced: its one user is the demo student.
            guard Self.isDemoDatabase(path) else {
                throw CLIError.usage("\(path) exists and is not a demo database; pass another --db path")
            }
            for suffix in ["", "-wal", "-shm", ".lock"] { try? fm.removeItem(atPath: path + suffix) }
        }
        let zone = try! UserZone(identifier: DemoScenario.zoneID)
        let today = zone.civil(ctx.now).date
        let document: JSONValue
        do { document = try DemoScenario.document(today: today, now: ctx.now) } catch {
            throw CLIError(.internalError, "demo scenario: \(error)")
        }
        let file = NSTemporaryDirectory() + "replan-demo-\(getpid()).json"
        guard fm.createFile(atPath: file, contents: Data(document.prettyText.utf8)) else {
            throw CLIError(.internalError, "cannot write \(file)")
        }
        defer { try? fm.removeItem(atPath: file) }

        let console = ctx.console
        let common = ["--db", path, "--now", Timestamp.text(ctx.now)]
        func step(_ title: String, _ tokens: [String]) throws(CLIError) {
            console.out("\n" + console.paint("$ replan " + tokens.joined(separator: " "), .bold) + "   # " + title)
            let code = ReplanCommandLine.run(
                tokens + common, environment: ctx.environment, console: console, interruption: ctx.interruption)
            guard code == .success else { throw CLIError(code, "demo step '\(tokens.joined(separator: " "))' failed") }
        }
        console.out("replan demo: database \(path), student 'mei' in \(DemoScenario.zoneID), today \(today)")
        try step("load the sample student", ["import", file])
        try step(
            "her plan around today",
            [
                "task", "list", "--user", DemoScenario.userID, "--from", today.adding(days: -4).description,
                "--to", today.adding(days: 4).description,
            ])
        try step(
            "what tonight's job would do (writes nothing)", ["preview", "--user", DemoScenario.userID, "--no-model"])
        try step(
            "the nightly job (forced, since it may not be past 03:00 in Taipei)", ["run", "--no-model", "--force"])
        try step("what it did", ["log", "--user", DemoScenario.userID, "--limit", "3"])
        let db = try ctx.openDatabaseAt(path)
        guard let last = try? PlanReader(database: db).lastApplied(userID: DemoScenario.userID), last.origin == .nightly
        else {
            console.out("\nthe job changed nothing")
            return .success
        }
        try step("the changeset in full", ["show", last.id.description])
        try step(
            "the plan afterwards",
            [
                "task", "list", "--user", DemoScenario.userID, "--from", today.description,
                "--to", today.adding(days: 7).description,
            ])
        // Printed with the name this binary answers to in this shell, so the lines work as
        // printed right after `swift build` (no `replan` on PATH yet).
        let me = InvocationName.current(environment: ctx.environment)
        console.out(
            """

            To undo tonight's changes:  \(me) --db \(path) undo \(last.id) --yes
            To look again:              \(me) --db \(path) show \(last.id)
            """)
        if me != "replan" {
            let dir = (me as NSString).deletingLastPathComponent
            console.out("To type just 'replan':      export PATH=\"\(me.hasPrefix("/") ? dir : "$PWD/" + dir):$PATH\"")
        }
        return .success
    }

    static func isDemoDatabase(_ path: String) -> Bool {
        guard let db = try? ReplanDatabase.open(path: path), let users = try? Roster(database: db).list() else {
            return false
        }
        return users.map(\.id) == [DemoScenario.userID]
    }
}
