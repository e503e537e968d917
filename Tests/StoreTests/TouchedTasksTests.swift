import Foundation
import Planning
import ReplanTestSupport
import Testing

@testable import Store

/// The changeset's read ahead (`TouchedTasks.readAhead`) reads tasks and override versions
/// several to a statement; what it answers must be what the one-at-a-time reads answer, for
/// every count (the groups of 32, 16, …, 1), for rows that are absent and for another
/// student's task.
@Suite struct TouchedTasksTests {
    @Test(arguments: EngineUnderTest.engines) func theReadAheadAnswersAsTheReadsOneAtATime(_ engine: DatabaseEngine)
        throws
    {
        let f = try Fixture(engine)
        let mei = try f.addUser()
        let bo = try f.addUser("bo")
        let ids = (0..<41).map { "s\($0)" }
        try f.seed(UserPlan(user: mei, tasks: ids.map { series($0, "2025-01-01T10:00", "2025-01-01T11:00") }))
        try f.seed(UserPlan(user: bo, tasks: [oneOff("bo-task", user: "bo", "2025-01-02T09:00", "2025-01-02T10:00")]))
        // Overrides on some days of some series, committed one changeset at a time so their
        // versions differ.
        var stored: [(task: String, date: String)] = []
        for (k, id) in ids.enumerated() where k % 3 != 1 {
            let p = try f.plans.loadPlan(userID: "mei", window: nil)
            var w = p
            let day = "2025-01-0\(2 + k % 5)"
            w.complete(OccurrenceID(taskID: id, originalDate: date(day)))
            try f.commit(from: p, to: w)
            stored.append((id, day))
        }
        // Asked for: every stored override, as many that are absent, one twice.
        var keys = stored.map {
            TouchedTasks.OverrideKey(identity: "override|\($0.task)@\($0.date)", taskID: $0.task, date: $0.date)
        }
        keys += ids.prefix(29).map { .init(identity: "override|\($0)@2025-01-09", taskID: $0, date: "2025-01-09") }
        keys.append(keys[0])
        let asked = ids + ["missing", "bo-task"]

        try f.db.write { (db) throws(StoreError) in
            let ahead = TouchedTasks(db: db)
            // The children of every series: 32 + 8 + 1 tasks to a statement.
            try ahead.readAhead(tasks: asked, childrenOf: ids + ["missing"], overrides: keys, versions: [])
            let oneByOne = TouchedTasks(db: db)
            for id in asked {
                let a = try ahead.row(id)
                let b = try oneByOne.row(id)
                #expect(a?.owner == b?.owner && a?.version == b?.version, "\(id)")
                #expect(a?.backwardShift == b?.backwardShift, "\(id)")
            }
            #expect(try ahead.row("bo-task")?.owner == "bo")
            #expect(try ahead.row("missing") == nil)
            for key in keys {
                let found = try db.queryFirst(
                    "SELECT version FROM occurrence_overrides WHERE task_id = ? AND original_date = ?",
                    [.text(key.taskID), .text(key.date)]
                ) { $0.int(0) }
                #expect(ahead.versionAhead(key.identity) == .some(found), "\(key.identity)")
            }
            for parent in ids + ["missing"] {
                #expect(
                    try ahead.storedChildren(ofTask: parent).map(\.key)
                        == oneByOne.storedChildren(ofTask: parent).map(\.key))
            }
            #expect(try ahead.storedChildren(ofTask: "s0").map(\.key) == ["s0@2025-01-02"])
        }
        #expect(stored.count == 27)
    }

    /// On PostgreSQL the whole read ahead of a student's changeset is one round trip, and its
    /// 43 tasks and 58 overrides take a handful of statements, not a hundred.
    @Test(.enabled(if: EngineUnderTest.engines.contains(.postgresql)))
    func onPostgreSQLTheReadAheadIsOneRoundTrip() throws {
        let f = try Fixture(.postgresql)
        let mei = try f.addUser()
        let ids = (0..<43).map { "s\($0)" }
        try f.seed(UserPlan(user: mei, tasks: ids.map { series($0, "2025-01-01T10:00", "2025-01-01T11:00") }))
        let db = try #require(f.db as? PostgresConnection)
        let keys = ids.flatMap { id in
            ["2025-01-02", "2025-01-03"].map {
                TouchedTasks.OverrideKey(identity: "override|\(id)@\($0)", taskID: id, date: $0)
            }
        }.prefix(58)
        try db.write { (db) throws(StoreError) in
            _ = try db.queryFirst("SELECT 1", []) { $0.int(0) }
            let before = (db as! PostgresConnection).roundTrips
            let ahead = TouchedTasks(db: db)
            try ahead.readAhead(tasks: ids, childrenOf: [], overrides: Array(keys), versions: [])
            // The batch, and the preparations of the eight statement texts (32 + 8 + 2 + 1 tasks,
            // 32 + 16 + 8 + 2 overrides), once per connection.
            #expect((db as! PostgresConnection).roundTrips - before <= 1 + 8)
            let again = (db as! PostgresConnection).roundTrips
            try TouchedTasks(db: db).readAhead(tasks: ids, childrenOf: [], overrides: Array(keys), versions: [])
            #expect((db as! PostgresConnection).roundTrips - again == 1)
        }
    }

    /// A changeset's commit waits on the server twice: once for the read ahead, which carries
    /// the transaction's BEGIN, the version clock, the new id's check and the student's
    /// existence; once for the COMMIT with every write. A missing student is still refused.
    @Test(.enabled(if: EngineUnderTest.engines.contains(.postgresql)))
    func onPostgreSQLACommitIsTwoRoundTrips() throws {
        let f = try Fixture(.postgresql)
        let mei = try f.addUser()
        let original = UserPlan(
            user: mei,
            tasks: [
                series("s0", "2025-01-01T10:00", "2025-01-01T11:00"),
                oneOff("o0", "2025-01-08T10:00", "2025-01-08T11:00"),
            ])
        try f.seed(original)
        let db = try #require(f.db as? PostgresConnection)
        var plan = try f.plans.loadPlan(userID: "mei", window: nil)
        /// The round trips of the commit.
        func edit(_ day: String) throws -> Int {
            let before = plan
            plan.complete(OccurrenceID(taskID: "s0", originalDate: date(day)))
            var essay = try #require(plan.tasks["o0"])
            essay.title = "Essay \(day)"
            plan.put(essay)
            let start = db.roundTrips
            try f.commit(from: before, to: plan)
            let trips = db.roundTrips - start
            plan = try f.plans.loadPlan(userID: "mei", window: nil)
            return trips
        }
        _ = try edit("2025-01-02") // prepares the statements, once per connection
        #expect(try edit("2025-01-03") == 2)
        let stored = try f.plans.loadPlan(userID: "mei", window: nil)
        #expect(stored.tasks["o0"]?.title == "Essay 2025-01-03")
        #expect(stored.overrides[OccurrenceID(taskID: "s0", originalDate: date("2025-01-03"))]?.state == .completed)

        let nobody = try User(id: "nobody", zone: UserZone(identifier: "UTC"))
        let theirs = UserPlan(
            user: nobody, tasks: [oneOff("x", user: "nobody", "2025-01-08T10:00", "2025-01-08T11:00")])
        let error = storeError { () throws(StoreError) in
            try f.commit(from: UserPlan(user: nobody, tasks: []), to: theirs)
        }
        #expect(error == .unknownUser("nobody"))
    }
}
