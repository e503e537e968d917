import Foundation
import Planning
import Store

/// The students: `user add|list|rm` and `settings show|set`.
package struct Roster {
    let database: ReplanDatabase

    package init(database: ReplanDatabase) { self.database = database }

    package func add(_ user: User, now: Date) throws(UseCaseError) {
        let users = UserRepository(database.connection)
        try storeCall { () throws(StoreError) in try users.add(user, now: now) }
    }

    package func list() throws(UseCaseError) -> [User] {
        let users = UserRepository(database.connection)
        return try storeCall { () throws(StoreError) in try users.list() }
    }

    package func user(_ id: String) throws(UseCaseError) -> User {
        let users = UserRepository(database.connection)
        return try storeCall { () throws(StoreError) in try users.get(id) }
    }

    /// Removes the student with every task, run, changeset and transcript (not undoable).
    package func remove(_ id: String) throws(UseCaseError) {
        let users = UserRepository(database.connection)
        try storeCall { () throws(StoreError) in try users.remove(id) }
    }

    package func settings(of id: String) throws(UseCaseError) -> UserSettings {
        let users = UserRepository(database.connection)
        return try storeCall { () throws(StoreError) in try users.settings(for: id) }
    }

    /// Saves settings the caller validated.
    package func save(_ settings: UserSettings, of id: String) throws(UseCaseError) {
        let users = UserRepository(database.connection)
        _ = try storeCall { () throws(StoreError) in try users.saveSettings(settings, for: id) }
    }
}
