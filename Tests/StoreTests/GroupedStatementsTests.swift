import Foundation
import JSON
import Planning
import ReplanTestSupport
import Testing

@testable import Store

/// The store sends rows of one kind several to a statement (`rowGroups`: 32, 16, …, 1): task
/// writes and deletes, outbox rows, the children of deleted tasks, the users of a claim batch
/// and the done checks of a page of students. What each grouped statement leaves or answers
/// must be what one statement a row would, for counts across the group sizes, on both engines.
@Suite struct GroupedStatementsTests {
    /// 40 one-off tasks and 3 series with overrides; the changeset renames 37 of the one-offs
    /// (an upsert run of 32 + 4 + 1) and deletes the other 3 and every series (a delete run,
    /// whose children are recorded). Undo brings back every row, redo takes them again.
    @Test(arguments: EngineUnderTest.engines) func taskRunsCommitUndoAndRedoAsOneRowAStatement(
        _ engine: DatabaseEngine
    ) throws {
        let f = try Fixture(engine)
        let mei = try f.addUser()
        let oneOffs = (0..<40).map { oneOff("o\($0)", "2025-01-0\(2 + $0 % 7)T10:00", "2025-01-0\(2 + $0 % 7)T11:00") }
        let seriesIDs = ["s0", "s1", "s2"]
        try f.seed(
            UserPlan(user: mei, tasks: oneOffs + seriesIDs.map { series($0, "2025-01-01T08:00", "2025-01-01T09:00") }))
        var stored = try f.plans.loadPlan(userID: "mei", window: nil)
        var withOverrides = stored
        for id in seriesIDs {
            for day in ["2025-01-02", "2025-01-04"] {
                withOverrides.complete(OccurrenceID(taskID: id, originalDate: date(day)))
            }
        }
        try f.commit(from: stored, to: withOverrides)
        stored = try f.plans.loadPlan(userID: "mei", window: nil)
        #expect(stored.overrides.count == 6)

        var working = stored
        for k in 0..<37 {
            var task = try #require(working.tasks["o\(k)"])
            task.title = "Renamed \(k)"
            working.put(task)
        }
        for id in ["o37", "o38", "o39"] + seriesIDs { working.deleteTask(id) }
        let before = (f.db as? PostgresConnection)?.statementsSent
        let id = try f.commit(from: stored, to: working)
        if let before, let db = f.db as? PostgresConnection {
            // 37 upserts and 6 deletes one each would be 43 statements on their own; grouped,
            // the whole commit (reads, changeset, edits, statistics) takes fewer than that.
            #expect(db.statementsSent - before < 43, "\(db.statementsSent - before) statements")
        }
        let after = try f.plans.loadPlan(userID: "mei", window: nil)
        #expect(after.tasks.count == 37)
        #expect(after.tasks.values.allSatisfy { $0.title.hasPrefix("Renamed ") })
        #expect(after.overrides.isEmpty)
        let record = try f.changesets.changeset(id)
        #expect(record.edits.filter { $0.entity == .override }.count == 6, "the deleted series' overrides recorded")

        try f.changesets.undo(changesetID: id, now: Fixture.later)
        let undone = try f.plans.loadPlan(userID: "mei", window: nil)
        #expect(rows(undone) == rows(stored))
        try f.changesets.redo(changesetID: id, now: Fixture.later)
        #expect(rows(try f.plans.loadPlan(userID: "mei", window: nil)) == rows(after))
    }

    /// What a plan's rows say, versions aside (undo and redo stamp fresh ones).
    private func rows(_ plan: UserPlan) -> [String] {
        plan.tasks.values.map { "\($0.id)|\($0.title)|\($0.start)|\($0.end)" }.sorted()
            + plan.overrides.values.map { "\($0.occurrenceID)|\($0.state)" }.sorted()
    }

    /// 37 outbox rows of one changeset get ids in the order of the entries.
    @Test(arguments: EngineUnderTest.engines) func outboxRowsKeepTheirOrder(_ engine: DatabaseEngine) throws {
        let f = try Fixture(engine)
        try f.addUser()
        let entries = (0..<37).map { k in
            OutboxEntry(
                occurrenceID: OccurrenceID(taskID: "t\(36 - k)", originalDate: date("2025-01-0\(2 + k % 7)")),
                fireAt: Fixture.now.addingTimeInterval(Double(k) * 60), action: k % 2 == 0 ? .schedule : .cancel)
        }
        try f.db.write { (db) throws(StoreError) in
            try OutboxRepository(db).insert(entries, userID: "mei", changesetID: nil, createdAt: Fixture.now)
        }
        let stored = try OutboxRepository(f.db).entries(userID: "mei")
        #expect(stored.map(\.entry.occurrenceID) == entries.map(\.occurrenceID))
        #expect(stored.map(\.entry.action) == entries.map(\.action))
        #expect(stored.map(\.id) == stored.map(\.id).sorted())
    }

    /// `done(among:)` answers as `isDone` of each key: 41 students (32 + 8 + 1), some with a
    /// finished run for their date, some with one for another date, a failed one, or two runs.
    @Test(arguments: EngineUnderTest.engines) func doneAmongAnswersAsIsDoneOfEach(_ engine: DatabaseEngine) throws {
        let f = try Fixture(engine)
        let runs = RunStore(f.db)
        let run = try runs.startRun(startedAt: Fixture.now)
        var keys: [(userID: String, planDate: CivilDate)] = []
        for k in 0..<41 {
            let id = "u\(k)"
            try f.addUser(id)
            let day = date(k % 2 == 0 ? "2025-01-07" : "2025-01-08")
            keys.append((id, day))
            let status: UserRunStatus? = [.changed, .unchanged, .failed, .skipped, nil][k % 5]
            if let status {
                try runs.record(UserRun(runID: run, userID: id, planDate: day, status: status, finishedAt: Fixture.now))
            }
            if k % 7 == 0 {
                // A finished run for the other date does not count; a later one for this date does.
                try runs.record(
                    UserRun(
                        runID: run, userID: id, planDate: day.adding(days: 1), status: .changed, finishedAt: Fixture.now
                    ))
            }
            if k % 5 == 2 && k % 3 == 0 {
                try runs.record(
                    UserRun(runID: run, userID: id, planDate: day, status: .changed, finishedAt: Fixture.now))
            }
        }
        let done = try runs.done(among: keys)
        for key in keys {
            #expect(
                done.contains(key.userID) == (try runs.isDone(userID: key.userID, planDate: key.planDate)),
                "\(key.userID)")
        }
        #expect(done.count == 19)
        #expect(try runs.done(among: []).isEmpty)
    }

    /// `find(_ ids:)` answers as `find` of each id: 41 students, an id asked twice, one missing.
    @Test(arguments: EngineUnderTest.engines) func findingSeveralUsersAnswersAsEach(_ engine: DatabaseEngine) throws {
        let f = try Fixture(engine)
        var ids: [String] = []
        for k in 0..<41 {
            try f.addUser("u\(k)", zone: k % 2 == 0 ? "Asia/Taipei" : "Europe/Berlin")
            ids.append("u\(k)")
        }
        let found = try f.users.find(ids + ["u3", "nobody"])
        #expect(found.count == 41)
        #expect(found["nobody"] == nil)
        for id in ids {
            let one = try f.users.find(id)
            #expect(try found[id]?.get() == one, "\(id)")
        }
    }

    /// A changeset that stores tonight's statistics base in place of its invalidation leaves the
    /// base row as the commit followed by `store` does: for a student without a base row and
    /// for one with a base.
    @Test(arguments: EngineUnderTest.engines) func aBaseStoredWithTheChangesetIsTheBaseStoredAfterIt(
        _ engine: DatabaseEngine
    ) throws {
        let f = try Fixture(engine)
        let base = StatisticsBaseRepository.Counted(
            through: date("2025-01-06"), counts: ["Math": CategoryCount(tasks: 4, completed: 3)])
        for withBase in [false, true] {
            var rows: [String] = []
            for (k, together) in [false, true].enumerated() {
                let user = try f.addUser("b\(withBase)\(k)")
                if withBase {
                    try StatisticsBaseRepository(f.db).store(
                        userID: user.id, through: date("2025-01-05"),
                        counts: ["Math": CategoryCount(tasks: 1, completed: 1)])
                }
                let changes = PlanDiff.changes(
                    from: UserPlan(user: user, tasks: []),
                    to: UserPlan(
                        user: user,
                        tasks: [oneOff("t-\(user.id)", user: user.id, "2025-01-07T10:00", "2025-01-07T11:00")]),
                    now: Fixture.now
                ) { entity, key in "\(entity.rawValue) \(key)" }
                let changeset = NewChangeset(
                    userID: user.id, origin: .nightly, planDate: date("2025-01-07"), createdAt: Fixture.now,
                    changes: changes, summary: ["rescheduled": 1], report: ["edits": .array([])], outbox: [])
                if together {
                    try f.changesets.commit(changeset, thenStoring: base)
                } else {
                    try f.db.write { (db) throws(StoreError) in
                        try ChangesetStore(db).commit(changeset)
                        try StatisticsBaseRepository(db).store(
                            userID: user.id, through: base.through, counts: base.counts)
                    }
                }
                rows.append(
                    try f.db.queryFirst(
                        "SELECT serial, through, counts FROM statistics_base WHERE user_id = ?", [.text(user.id)]
                    ) { "\($0.int(0))|\($0.optionalText(1) ?? "-")|\($0.optionalText(2) ?? "-")" } ?? "absent")
            }
            #expect(rows[0] == rows[1], "with a base before: \(withBase)")
            #expect(rows[0].hasPrefix(withBase ? "3|2025-01-06|" : "2|2025-01-06|"))
        }
    }
}
