import Foundation
import Planning
import Store

/// A database file in a temporary directory of its own, removed when the value goes away, with
/// a fixed clock: every connection it opens and every row it writes is stamped with `now`
/// unless told otherwise. Each test makes its own, so tests can run in parallel.
package final class TemporaryDatabase: Sendable {
    package let directory: URL
    package let path: String
    /// The instant the database is opened and seeded at.
    package let now: Date

    /// The engine the database is on: a SQLite file in `directory`, or a fresh database on
    /// the tests' PostgreSQL server (then `path` is its connection URI, for `--db` and the use
    /// cases, and `directory` still holds the test's other files).
    package let engine: DatabaseEngine
    private let server: TemporaryPostgres?

    package init(now: Date = TestClock.tuesdayNightTaipei, engine: DatabaseEngine = .sqlite) throws {
        self.now = now
        self.engine = engine
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("replan-test-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        switch engine {
        case .sqlite:
            server = nil
            path = directory.appendingPathComponent("replan.db").path
        case .postgresql:
            let database = try TemporaryPostgres()
            server = database
            path = database.url
        }
    }

    deinit { try? FileManager.default.removeItem(at: directory) }

    /// Another file in the same directory.
    package func file(_ name: String) -> String { directory.appendingPathComponent(name).path }

    /// A connection to the database (created and migrated on first open), as of `now` unless told.
    /// SQLite only: a test that needs the SQLite connection itself; use `connect` otherwise.
    package func open(
        migrations: [Migration] = Schema.migrations,
        busyTimeoutMilliseconds: Int = Database.defaultBusyTimeoutMilliseconds, now: Date? = nil
    ) throws -> Database {
        precondition(engine == .sqlite, "open() is the SQLite connection; use connect() on \(engine)")
        return try Database.open(
            path: path, busyTimeoutMilliseconds: busyTimeoutMilliseconds, migrations: migrations, now: now ?? self.now)
    }

    /// A connection on the database's engine (created and migrated on first use).
    package func connect(now: Date? = nil) throws -> any SQLExecutor {
        switch engine {
        case .sqlite: return try open(now: now)
        case .postgresql: return try PostgresConnection.open(path, now: now ?? self.now)
        }
    }

    /// The rows of a query, each as its columns' text joined by spaces (NULL as empty text).
    package func rows(_ sql: String) throws -> [String] {
        try connect().query(sql, []) { row in
            (0..<row.columnCount).map { row.text($0) }.joined(separator: " ")
        }
    }

    /// Adds `plan`'s student (with its settings) and stores its tasks as one import changeset,
    /// as `replan import` does.
    package func add(_ plan: UserPlan, to db: any SQLExecutor) throws {
        try UserRepository(db).add(plan.user, now: now)
        _ = try UserRepository(db).saveSettings(plan.user.settings, for: plan.user.id)
        let changes = PlanDiff.changes(from: UserPlan(user: plan.user, tasks: []), to: plan, now: now) { _, _ in
            "import"
        }
        _ = try ChangesetStore(db).commit(
            NewChangeset(userID: plan.user.id, origin: .import, planDate: nil, createdAt: now, changes: changes))
    }

    /// Adds students `s0`, `s1`, … each with a five-day course that started on Monday 2025-01-06
    /// at 10:00 and was missed: on Tuesday night each plan is worked example 2 of docs/planning.md (§9.2).
    package func addStudents(_ count: Int, instruction: String = "", zone: String = "Asia/Taipei")
        throws
    {
        let db = try connect()
        for i in 0..<count {
            var settings = UserSettings()
            settings.instruction = instruction
            let tasks = (0..<5).map { d in
                Fx.task(
                    "s\(i)-eng-\(d)", "English reading", "2025-01-06T10:00", "2025-01-06T11:00", category: "English",
                    user: "s\(i)"
                ).moved(days: d)
            }
            try add(Fx.plan(tasks, settings: settings, zone: try UserZone(identifier: zone), user: "s\(i)"), to: db)
        }
    }
}

extension StudyTask {
    /// The task `days` later (negative: earlier), same times of day.
    package func moved(days: Int) -> StudyTask {
        var moved = self
        moved.start = start.adding(days: days)
        moved.end = end.adding(days: days)
        return moved
    }
}
