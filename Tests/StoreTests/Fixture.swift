import Foundation
import Planning

@testable import Store

/// A fresh database in its own temporary directory, removed when the fixture goes away.
final class Fixture {
    static let now = Date(timeIntervalSince1970: 1_736_218_800) // 2025-01-07T03:00:00Z
    static let later = Date(timeIntervalSince1970: 1_736_305_200) // 2025-01-08T03:00:00Z

    let directory: URL
    let path: String
    let db: Database

    init(migrations: [Migration] = Schema.migrations) throws {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("replan-store-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        path = directory.appendingPathComponent("replan.db").path
        db = try Database.open(path: path, migrations: migrations, now: Fixture.now)
    }

    deinit { try? FileManager.default.removeItem(at: directory) }

    func file(_ name: String) -> String { directory.appendingPathComponent(name).path }

    /// A second connection to the same file, as another process would have.
    func openAgain(busyTimeoutMilliseconds: Int = Database.defaultBusyTimeoutMilliseconds) throws -> Database {
        try Database.open(path: path, busyTimeoutMilliseconds: busyTimeoutMilliseconds, now: Fixture.later)
    }

    var users: UserRepository { UserRepository(db) }
    var plans: PlanRepository { PlanRepository(db) }
    var changesets: ChangesetStore { ChangesetStore(db) }

    @discardableResult
    func addUser(_ id: String = "mei", zone: String = "Asia/Taipei") throws -> User {
        let user = try User(id: id, zone: UserZone(identifier: zone))
        try users.add(user, now: Fixture.now)
        return user
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

    /// Rows of a table belonging to a user (for cascade checks).
    func count(_ sql: String, _ values: [SQLValue] = []) throws -> Int {
        try db.queryFirst(sql, values) { $0.int(0) } ?? -1
    }
}

func date(_ text: String) -> CivilDate { CivilDate(text)! }
func time(_ text: String) -> CivilDateTime { CivilDateTime(text)! }

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

func oneOff(
    _ id: String, user: String = "mei", _ start: String, _ end: String, category: String = "Math",
    allDay: Bool = false, completed: Bool = false
) -> StudyTask {
    StudyTask(
        id: id, userID: user, title: "Task \(id)", category: category, start: time(start), end: time(end),
        allDay: allDay,
        completed: completed)
}

func series(
    _ id: String, user: String = "mei", _ start: String, _ end: String, every: RepeatRule.Frequency = .daily,
    until: String? = nil, category: String = "English"
) -> StudyTask {
    StudyTask(
        id: id, userID: user, title: "Series \(id)", category: category, start: time(start), end: time(end),
        repeatRule: RepeatRule(every: every, until: until.map(date)))
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
