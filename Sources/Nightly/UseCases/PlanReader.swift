import Foundation
import Planning
import Store

/// A student's plan and history as stored, for the commands that only look (`task list`,
/// `week`, `stats`, `show --week`).
package struct PlanReader {
    let database: ReplanDatabase

    package init(database: ReplanDatabase) { self.database = database }

    package func user(_ id: String) throws(UseCaseError) -> User {
        let users = UserRepository(database.connection)
        return try storeCall { () throws(StoreError) in try users.get(id) }
    }

    /// The plan, with occurrences and slides of `window` only (nil: everything).
    package func plan(userID: String, window: ClosedRange<CivilDate>?) throws(UseCaseError) -> UserPlan {
        let plans = PlanRepository(database.connection)
        return try storeCall { () throws(StoreError) in try plans.loadPlan(userID: userID, window: window) }
    }

    /// The plan of a user already read, for `window`.
    package func plan(user: User, window: ClosedRange<CivilDate>) throws(UseCaseError) -> UserPlan {
        let plans = PlanRepository(database.connection)
        return try storeCall { () throws(StoreError) in try plans.loadPlan(user: user, window: window) }
    }

    /// The student's focus sessions (the timer's minutes per category).
    package func focusSessions(userID: String) throws(UseCaseError) -> [FocusSession] {
        let focus = FocusSessionRepository(database.connection)
        return try storeCall { () throws(StoreError) in try focus.sessions(userID: userID) }
            .map { FocusSession(category: $0.category, start: $0.start, minutes: $0.minutes) }
    }

    /// The student's latest applied nightly changeset among their last 50, with its edits; nil
    /// before the first night (`week`).
    package func latestNight(userID: String) throws(UseCaseError) -> (ChangesetHeader, [PlanEdit])? {
        let store = ChangesetStore(database.connection)
        guard
            let last = try storeCall({ () throws(StoreError) in try store.changesets(userID: userID, limit: 50) })
                .first(where: { $0.origin == .nightly && $0.state == .applied })
        else { return nil }
        let record = try storeCall { () throws(StoreError) in try store.changeset(last.id) }
        return (last, RunLog.edits(of: record))
    }

    /// The student's most recent applied changeset, of any origin; nil when there is none.
    package func lastApplied(userID: String) throws(UseCaseError) -> ChangesetHeader? {
        let store = ChangesetStore(database.connection)
        return try storeCall { () throws(StoreError) in try store.lastApplied(userID: userID) }
    }
}
