import Foundation
import Planning
import Store

/// `replan user add|list|rm`.
enum UserCommands {
    static let all = [add, list, remove]

    static let add = CommandDescriptor(
        path: ["user", "add"], synopsis: "user add ID --time-zone TZ [--language L] [--name NAME]",
        summary: "add a student (IANA time zone required; language defaults to en)",
        options: [.value("--time-zone", "IANA time zone, e.g. Asia/Taipei"), .value("--language", "language tag, e.g. zh-TW"),
                  .value("--name", "display name")]
    ) { ctx in
        let a = ctx.arguments
        let id = try a.positional(0, "user ID")
        try a.rejectExtraPositionals(beyond: 1)
        let zone = try CLIValues.zone(try a.required("--time-zone"))
        let user: User
        do throws(DataError) { user = try User(id: id, zone: zone, language: a.value("--language") ?? "en", displayName: a.value("--name")) }
        catch { throw error.asCLIError() }
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
            ctx.console.out(JSONValue.object(["schema": "replan.users/1", "users": .array(users.map { u in
                ["id": .string(u.id), "timeZone": .string(u.zone.identifier), "language": .string(u.language),
                 "displayName": u.displayName.map { .string($0) } ?? .null, "autoUpdate": .bool(u.settings.autoUpdate)]
            })]).prettyText)
        } else if users.isEmpty {
            ctx.console.out("no users yet (add one with: replan user add ID --time-zone TZ)")
        } else {
            for u in users {
                ctx.console.out("\(u.id)\t\(u.zone.identifier)\t\(u.language)\(u.displayName.map { "\t\($0)" } ?? "")\(u.settings.autoUpdate ? "" : "\t(auto-update off)")")
            }
        }
        return .success
    }

    static let remove = CommandDescriptor(
        path: ["user", "rm"], synopsis: "user rm ID", summary: "remove a student and all of their data",
        options: []
    ) { ctx in
        let id = try ctx.arguments.positional(0, "user ID")
        try ctx.arguments.rejectExtraPositionals(beyond: 1)
        let db = try ctx.openDatabase()
        try storeCall { () throws(StoreError) in try UserRepository(db).remove(id) }
        ctx.console.out("removed user \(id) and all of their tasks, runs and changesets")
        return .success
    }
}
