import Foundation
import Planning

/// Users and their settings. Every user has exactly one settings row, created with the user.
package struct UserRepository {
    let db: any SQLExecutor

    package init(_ db: any SQLExecutor) { self.db = db }

    static let selectUser =
        "SELECT u.id, u.time_zone, u.language, u.display_name, \(SettingsTable.aliasedColumns) FROM users u LEFT JOIN settings s ON s.user_id = u.id"

    /// Adds a user with their settings row (`user.settings`, the defaults unless set).
    /// - Throws: `.duplicateUser` naming the id when it is taken.
    package func add(_ user: User, now: Date) throws(StoreError) {
        try db.write { (db) throws(StoreError) in
            if try exists(user.id) { throw StoreError.duplicateUser(user.id) }
            let stamp = Timestamp.text(now)
            try db.execute(
                "INSERT INTO users (id, time_zone, language, display_name, created_at, updated_at, version) VALUES (?, ?, ?, ?, ?, ?, 1)",
                [
                    .text(user.id), .text(user.zone.identifier), .text(user.language), SQLValue(user.displayName),
                    .text(stamp), .text(stamp),
                ])
            try db.execute(
                "INSERT INTO settings (user_id, \(SettingsTable.columns), version) VALUES (?, \(placeholders(SettingsTable.names.count)), 1)",
                [.text(user.id)] + SettingsTable.values(user.settings))
        }
    }

    package func exists(_ id: String) throws(StoreError) -> Bool {
        try db.queryFirst(Self.existsSQL, [.text(id)]) { _ in true } ?? false
    }

    static let existsSQL = "SELECT 1 FROM users WHERE id = ?"

    /// The user with settings, or nil.
    package func find(_ id: String) throws(StoreError) -> User? {
        let rows = try db.query("\(UserRepository.selectUser) WHERE u.id = ?", [.text(id)]) { (s) throws(StoreError) in
            try UserRepository.decode(s)
        }
        return rows.first
    }

    /// The users of `ids` with settings, by id, each read as `find` reads it (a row that does
    /// not decode is its `.failure`); an id without a user is missing. Several ids to a statement
    /// (`rowGroups`), as one batch: a shared night's claims name a batch of students, and one
    /// lookup each cost a round trip and a statement each (docs/benchmark.md).
    package func find(_ ids: [String]) throws(StoreError) -> [String: Result<User, StoreError>] {
        let ids = Array(Set(ids)).sorted()
        var found: [String: Result<User, StoreError>] = [:]
        guard !ids.isEmpty else { return found }
        let queries = rowGroups(ids.count).map { group in
            (
                sql: "\(UserRepository.selectUser) WHERE u.id IN (\(placeholders(group.count)))",
                values: ids[group].map { SQLValue.text($0) }
            )
        }
        let rows = try db.queryEach(queries) { (_, s) -> (String, Result<User, StoreError>) in
            do throws(StoreError) { return (s.text(0), .success(try UserRepository.decode(s))) } catch {
                return (s.text(0), .failure(error))
            }
        }
        for (id, user) in rows.joined() { found[id] = user }
        return found
    }

    /// The user with settings. - Throws: `.unknownUser`.
    package func get(_ id: String) throws(StoreError) -> User {
        guard let user = try find(id) else { throw StoreError.unknownUser(id) }
        return user
    }

    /// Every user, sorted by id. For the multi-user job use `cursor(batchSize:)` instead.
    package func list() throws(StoreError) -> [User] {
        try db.read { (db) throws(StoreError) in
            try db.query("\(UserRepository.selectUser) ORDER BY u.id") { (s) throws(StoreError) in
                try UserRepository.decode(s)
            }
        }
    }

    package func count() throws(StoreError) -> Int {
        try db.queryFirst("SELECT count(*) FROM users") { $0.int(0) } ?? 0
    }

    /// Streams users in id order, `batchSize` at a time, never holding them all in memory.
    package func cursor(batchSize: Int = 500) -> UserCursor {
        UserCursor(db: db, batchSize: batchSize)
    }

    /// Changes a user's zone, language and display name (bumps the version).
    /// - Throws: `.unknownUser`.
    package func update(_ user: User, now: Date) throws(StoreError) {
        try db.write { (db) throws(StoreError) in
            let changed = try db.execute(
                "UPDATE users SET time_zone = ?, language = ?, display_name = ?, updated_at = ?, version = version + 1 WHERE id = ?",
                [
                    .text(user.zone.identifier), .text(user.language), SQLValue(user.displayName),
                    .text(Timestamp.text(now)), .text(user.id),
                ])
            if changed == 0 { throw StoreError.unknownUser(user.id) }
        }
    }

    /// Removes a user and everything of theirs: their changesets (with their edits), and by
    /// cascade settings, tasks, overrides, slides, statistics, focus sessions, runs' user rows,
    /// transcripts, outbox. Changesets do not cascade from users (migration 9: the undone import
    /// of a student it created outlives the student, for `redo`), so they are deleted here.
    /// - Throws: `.unknownUser`.
    package func remove(_ id: String) throws(StoreError) {
        try db.write { (db) throws(StoreError) in
            guard try exists(id) else { throw StoreError.unknownUser(id) }
            try db.execute("DELETE FROM changesets WHERE user_id = ?", [.text(id)])
            try db.execute("DELETE FROM users WHERE id = ?", [.text(id)])
        }
    }

    /// - Throws: `.unknownUser`.
    package func settings(for id: String) throws(StoreError) -> UserSettings {
        try get(id).settings
    }

    /// The settings row's version (bumped by every save).
    package func settingsVersion(for id: String) throws(StoreError) -> Int {
        guard let v = try db.queryFirst("SELECT version FROM settings WHERE user_id = ?", [.text(id)], { $0.int(0) })
        else {
            throw StoreError.unknownUser(id)
        }
        return v
    }

    /// Replaces a user's settings and bumps their version. - Returns: the new version.
    /// - Throws: `.unknownUser`.
    @discardableResult
    package func saveSettings(_ settings: UserSettings, for id: String) throws(StoreError) -> Int {
        try db.write { (db) throws(StoreError) -> Int in
            guard try exists(id) else { throw StoreError.unknownUser(id) }
            let sets = SettingsTable.names.map { "\($0) = excluded.\($0)" }.joined(separator: ", ")
            try db.execute(
                """
                INSERT INTO settings (user_id, \(SettingsTable.columns), version) VALUES (?, \(placeholders(SettingsTable.names.count)), 1)
                ON CONFLICT (user_id) DO UPDATE SET \(sets), version = settings.version + 1
                """, [.text(id)] + SettingsTable.values(settings))
            return try settingsVersion(for: id)
        }
    }

    /// Reads a row of `selectUser`.
    static func decode(_ s: any SQLRow) throws(StoreError) -> User {
        let id = s.text(0)
        let settings = try SettingsTable.decode(s, from: 4, userID: id)
        do throws(DataError) {
            let zone = try UserZone(identifier: s.text(1))
            return try User(id: id, zone: zone, language: s.text(2), displayName: s.optionalText(3), settings: settings)
        } catch {
            throw StoreError.malformedRow(entity: "user", key: id, problem: error.description)
        }
    }
}
