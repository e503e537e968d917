import JSON
import Planning

/// The image of a `user` changeset edit: a student's `users` row and `settings` row as one
/// (every user has exactly one settings row, created and removed with the user).
///
/// Images hold content only, no version: the `users` and `settings` versions are counters of
/// their own, and the app's backend may change settings with plain SQL that leaves the version
/// as it was (docs/backend.md), so a check compares what the rows say (`User` equality)
/// instead.
package enum ProfileImage {
    package static func image(_ user: User) -> JSONValue {
        let s = user.settings
        return [
            "id": .string(user.id), "timeZone": .string(user.zone.identifier), "language": .string(user.language),
            "displayName": user.displayName.map { .string($0) } ?? .null,
            "settings": [
                "windows": SettingsTable.windowsJSON(s.windows), "windowsEnabled": .bool(s.windowsEnabled),
                "sessionMinutes": .int(s.sessionMinutes), "sessionMinutesEnabled": .bool(s.sessionMinutesEnabled),
                "tone": .string(s.tone), "instruction": .string(s.instruction), "autoUpdate": .bool(s.autoUpdate),
                "notificationsEnabled": .bool(s.notificationsEnabled), "reminderMinutes": .int(s.reminderMinutes),
                "deleteAfterDays": .int(s.deleteAfterDays), "horizonDays": .int(s.horizonDays),
                "keepCategories": .array(s.keepCategories.map { .string($0) }), "splitSessions": .bool(s.splitSessions),
            ],
        ]
    }

    /// The user an image describes. - Throws: `.malformedRow` naming the key and the field.
    package static func user(from image: JSONValue, key: String) throws(StoreError) -> User {
        func bad(_ field: String) -> StoreError {
            .malformedRow(entity: "user", key: key, problem: "malformed user image: \(field)")
        }
        func string(_ v: JSONValue?, _ field: String) throws(StoreError) -> String {
            guard let s = v?.stringValue else { throw bad(field) }
            return s
        }
        func int(_ v: JSONValue?, _ field: String) throws(StoreError) -> Int {
            guard let i = v?.intValue else { throw bad(field) }
            return i
        }
        func bool(_ v: JSONValue?, _ field: String) throws(StoreError) -> Bool {
            guard let b = v?.boolValue else { throw bad(field) }
            return b
        }
        guard let s = image["settings"], s.objectValue != nil else { throw bad("settings") }
        var settings = UserSettings()
        settings.windows = try SettingsTable.windows(from: s["windows"] ?? .null, userID: key)
        settings.windowsEnabled = try bool(s["windowsEnabled"], "windowsEnabled")
        settings.sessionMinutes = try int(s["sessionMinutes"], "sessionMinutes")
        settings.sessionMinutesEnabled = try bool(s["sessionMinutesEnabled"], "sessionMinutesEnabled")
        settings.tone = try string(s["tone"], "tone")
        settings.instruction = try string(s["instruction"], "instruction")
        settings.autoUpdate = try bool(s["autoUpdate"], "autoUpdate")
        settings.notificationsEnabled = try bool(s["notificationsEnabled"], "notificationsEnabled")
        settings.reminderMinutes = try int(s["reminderMinutes"], "reminderMinutes")
        settings.deleteAfterDays = try int(s["deleteAfterDays"], "deleteAfterDays")
        settings.horizonDays = try int(s["horizonDays"], "horizonDays")
        guard let kept = s["keepCategories"]?.arrayValue else { throw bad("keepCategories") }
        settings.keepCategories = try kept.map { (v: JSONValue) throws(StoreError) -> String in
            try string(v, "keepCategories")
        }
        settings.splitSessions = try bool(s["splitSessions"], "splitSessions")
        let displayName: String?
        switch image["displayName"] {
        case nil, .null?: displayName = nil
        case let v?: displayName = try string(v, "displayName")
        }
        let (id, zone, language) = (
            try string(image["id"], "id"), try string(image["timeZone"], "timeZone"),
            try string(image["language"], "language")
        )
        do throws(DataError) {
            return try User(
                id: id, zone: UserZone(identifier: zone), language: language, displayName: displayName,
                settings: settings)
        } catch {
            throw StoreError.malformedRow(entity: "user", key: key, problem: error.description)
        }
    }
}
