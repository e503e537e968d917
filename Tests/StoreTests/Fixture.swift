import Foundation
import Planning
import ReplanTestSupport

@testable import Store

/// A fresh database (a `TemporaryDatabase` as of `Fixture.now`) with the store's repositories.
final class Fixture {
    static let now = TestClock.tuesday0300UTC
    static let later = TestClock.wednesday0300UTC

    let temporary: TemporaryDatabase
    let db: any SQLExecutor

    var path: String { temporary.path }
    var directory: URL { temporary.directory }
    var engine: DatabaseEngine { temporary.engine }
    /// The SQLite connection, for a test of what only SQLite has.
    var sqlite: Database { db as! Database }

    init(_ engine: DatabaseEngine = .sqlite, migrations: [Migration] = Schema.migrations) throws {
        temporary = try TemporaryDatabase(now: Fixture.now, engine: engine)
        db = engine == .sqlite ? try temporary.open(migrations: migrations) : try temporary.connect()
    }

    func file(_ name: String) -> String { temporary.file(name) }

    /// A second connection to the same file, as another process would have.
    func openAgain(busyTimeoutMilliseconds: Int = Database.defaultBusyTimeoutMilliseconds) throws -> Database {
        try temporary.open(busyTimeoutMilliseconds: busyTimeoutMilliseconds, now: Fixture.later)
    }

    /// A second connection on the fixture's engine, as another process would have.
    func connectAgain() throws -> any SQLExecutor { try temporary.connect(now: Fixture.later) }

    var users: UserRepository { UserRepository(db) }
    var plans: PlanRepository { PlanRepository(db) }
    var changesets: ChangesetStore { ChangesetStore(db) }

    @discardableResult
    func addUser(_ id: String = "mei", zone: String = "Asia/Taipei") throws -> User {
        let user = try User(id: id, zone: UserZone(identifier: zone))
        try users.add(user, now: Fixture.now)
        return user
    }

    /// A student's `users` row written by hand, which every schema version since migration 1
    /// accepts: for tests of an old schema, where the repositories' SQL names later columns.
    func addUserRow(_ id: String = "mei") throws(StoreError) {
        try db.execute(
            "INSERT INTO users (id, time_zone, created_at, updated_at) VALUES (?, 'Asia/Taipei', ?, ?)",
            [.text(id), .text(Timestamp.text(Fixture.now)), .text(Timestamp.text(Fixture.now))])
    }

    /// Commits the difference between two plans, as the nightly job does.
    @discardableResult
    func commit(
        from original: UserPlan, to working: UserPlan, at now: Date = Fixture.now,
        origin: ChangesetOrigin = .manual, outbox: [OutboxEntry] = []
    ) throws(StoreError) -> ChangesetID {
        let changes = PlanDiff.changes(from: original, to: working, now: now) { entity, key in
            "\(entity.rawValue) \(key)"
        }
        return try changesets.commit(
            NewChangeset(
                userID: working.user.id, origin: origin, planDate: date("2025-01-07"),
                createdAt: now, changes: changes, summary: ["rescheduled": 1],
                report: ["edits": .array([])], outbox: outbox))
    }

    /// Stores `plan` for a user who has nothing yet.
    @discardableResult
    func seed(_ plan: UserPlan) throws(StoreError) -> ChangesetID {
        try commit(from: UserPlan(user: plan.user, tasks: []), to: plan, origin: .import)
    }

    /// A fresh fixture whose student `mei` (Asia/Taipei) has these rows, stored as by an import.
    static func seeded(
        _ engine: DatabaseEngine = .sqlite, tasks: [StudyTask], overrides: [OccurrenceOverride] = [],
        slides: [SeriesSlide] = []
    ) throws -> (Fixture, User) {
        let f = try Fixture(engine)
        let mei = try f.addUser()
        try f.seed(UserPlan(user: mei, tasks: tasks, overrides: overrides, slides: slides))
        return (f, mei)
    }

    /// Rows of a table belonging to a user (for cascade checks).
    func count(_ sql: String, _ values: [SQLValue] = []) throws -> Int {
        try db.queryFirst(sql, values) { $0.int(0) } ?? -1
    }
}

/// The thrown StoreError, or nil when `body` succeeded.
func storeError(_ body: () throws(StoreError) -> Void) -> StoreError? {
    do throws(StoreError) {
        try body()
        return nil
    } catch { return error }
}

/// The conflict thrown by `body`, or nil.
func conflict(_ body: () throws(StoreError) -> Void) -> ChangesetConflict? {
    if case .conflict(let c)? = storeError(body) { return c }
    return nil
}

/// A one-off task titled after its id (the store tests' usual task).
func oneOff(
    _ id: String, user: String = "mei", _ start: String, _ end: String, category: String = "Math",
    allDay: Bool = false, completed: Bool = false
) -> StudyTask {
    Fx.task(id, "Task \(id)", start, end, category: category, allDay: allDay, completed: completed, user: user)
}

/// A series titled after its id.
func series(
    _ id: String, user: String = "mei", _ start: String, _ end: String, every: RepeatRule.Frequency = .daily,
    until: String? = nil, category: String = "English"
) -> StudyTask {
    Fx.series(id, "Series \(id)", start, end, every, until: until, category: category, user: user)
}

/// The plan with versions and bookkeeping times blanked, to compare content only.
func content(_ plan: UserPlan) -> UserPlan {
    let epoch = Date(timeIntervalSince1970: 0)
    return UserPlan(
        user: plan.user,
        tasks: plan.sortedTasks.map {
            var t = $0
            t.version = 0
            t.createdAt = epoch
            t.updatedAt = epoch
            return t
        },
        overrides: plan.allOverrides.map {
            var o = $0
            o.version = 0
            return o
        },
        slides: plan.allSlides.map {
            var s = $0
            s.version = 0
            return s
        })
}
