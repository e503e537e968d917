import Foundation
import JSON
import Planning
import ReplanTestSupport
import Testing

@testable import Store

@Suite struct ChangesetStoreTests {
    /// A fresh fixture whose mei has `basePlan` stored.
    static func seededBase() throws -> Fixture {
        let f = try Fixture()
        let mei = try f.addUser()
        try f.seed(basePlan(mei))
        return f
    }

    /// A series with subtasks, overrides (one far outside the nightly window) and slides, and a one-off.
    static func basePlan(_ user: User) -> UserPlan {
        var eng = series("eng", "2025-01-06T10:00", "2025-01-06T11:00", until: "2025-03-31")
        eng.subtasks = [Subtask(title: "vocabulary", done: true), Subtask(title: "summary")]
        eng.note = "Unit 3"
        return UserPlan(
            user: user, tasks: [eng, oneOff("m1", "2025-01-07T14:00", "2025-01-07T15:00")],
            overrides: [
                OccurrenceOverride(taskID: "eng", originalDate: date("2025-01-06"), state: .completed),
                OccurrenceOverride(taskID: "eng", originalDate: date("2025-03-03"), state: .skipped),
            ],
            slides: [SeriesSlide(taskID: "eng", from: date("2025-02-01"), days: 2)])
    }

    static let window = date("2024-12-31")...date("2025-01-21")

    @Test func commitAppliesAPlanDiffSoLoadPlanEqualsTheWorkingCopy() throws {
        let f = try ChangesetStoreTests.seededBase()
        let original = try f.plans.loadPlan(userID: "mei", window: ChangesetStoreTests.window)
        var working = original
        working.move(
            OccurrenceID(taskID: "eng", originalDate: date("2025-01-07")), start: at("2025-01-07T15:00"),
            end: at("2025-01-07T16:00"))
        working.complete(OccurrenceID(taskID: "m1"))
        working.skip(OccurrenceID(taskID: "eng", originalDate: date("2025-01-06")))
        working.addSlide(taskID: "eng", from: date("2025-01-10"), days: 1)
        working.put(oneOff("new", "2025-01-09T09:00", "2025-01-09T10:00", category: "Chemistry"))

        let changes = PlanDiff.changes(from: original, to: working, now: Fixture.later) { _, _ in "test" }
        let id = try f.commit(from: original, to: working, at: Fixture.later)

        let loaded = try f.plans.loadPlan(userID: "mei", window: ChangesetStoreTests.window)
        #expect(content(loaded) == content(working))
        // Every row the changeset writes takes one fresh version from the database-wide
        // counter, above every version the database has seen (issue 13).
        let fresh = try #require(loaded.tasks["m1"]?.version)
        #expect(fresh > 1)
        #expect(loaded.tasks["m1"]?.updatedAt == Fixture.later)
        #expect(loaded.tasks["new"]?.version == fresh)
        #expect(loaded.overrides[OccurrenceID(taskID: "eng", originalDate: date("2025-01-06"))]?.version == fresh)
        let record = try f.changesets.changeset(id)
        let stamped = changes.map { c in
            RowChange(
                entity: c.entity, key: c.key, before: c.before,
                after: c.after.map { image -> JSONValue in
                    guard case .object(var o) = image else { return image }
                    o["version"] = .int(fresh)
                    return .object(o)
                }, reason: c.reason)
        }
        #expect(
            record.edits.compactMap(\.rowChange).map {
                RowChange(entity: $0.entity, key: $0.key, before: $0.before, after: $0.after, reason: "test")
            } == stamped)
        #expect(record.edits.map(\.seq) == Array(1...record.edits.count))
        #expect(record.header.state == .applied)
        #expect(record.header.origin == .manual)
        #expect(record.header.planDate == date("2025-01-07"))
        #expect(record.header.createdAt == Fixture.later)
        #expect(record.header.summary == ["rescheduled": 1])
        #expect(record.report == ["edits": .array([])])
        #expect(id.rawValue.hasPrefix("cs-20250108-030000-") && id.rawValue.count == 25)
    }

    /// The nightly workers write a changeset's JSON text ahead (`renderText`); the commit stores
    /// exactly what it would have written itself, and text written from an older state of the
    /// changeset is never stored.
    @Test func textRenderedAheadIsStoredAsTheCommitWouldWriteIt() throws {
        func stored(renderingAhead: Bool, editAfterwards: Bool) throws -> [String] {
            let f = try ChangesetStoreTests.seededBase()
            let original = try f.plans.loadPlan(userID: "mei", window: ChangesetStoreTests.window)
            var working = original
            working.complete(OccurrenceID(taskID: "m1"))
            working.skip(OccurrenceID(taskID: "eng", originalDate: date("2025-01-06")))
            var changeset = NewChangeset(
                userID: "mei", origin: .nightly, planDate: date("2025-01-07"), createdAt: Fixture.later,
                changes: PlanDiff.changes(from: original, to: working, now: Fixture.later) { _, _ in "test" },
                summary: ["dropped": 0], report: ["edits": ["m1"]])
            if renderingAhead {
                changeset.renderText()
                #expect(changeset.text?.report == #"{"edits":["m1"]}"#)
            }
            if editAfterwards {
                changeset.report = ["edits": ["m1", "eng"]]
                #expect(changeset.text == nil)
                changeset.changes.removeLast()
            }
            try f.changesets.commit(changeset)
            return try f.db.query(
                "SELECT entity || ' ' || entity_key || ' ' || coalesce(before, '-') || ' ' || coalesce(after, '-') FROM changeset_edits ORDER BY changeset_id, seq"
            ) { $0.text(0) }
                + f.db.query("SELECT summary || report FROM changesets WHERE origin = 'nightly'") { $0.text(0) }
        }
        let plain = try stored(renderingAhead: false, editAfterwards: false)
        #expect(try stored(renderingAhead: true, editAfterwards: false) == plain)
        #expect(plain.last == #"{"dropped":0}{"edits":["m1"]}"#)
        let edited = try stored(renderingAhead: false, editAfterwards: true)
        #expect(try stored(renderingAhead: true, editAfterwards: true) == edited)
        #expect(edited != plain)
    }

    @Test func commitConflictsWhenRowsChangedSinceLoadAndWritesNothing() throws {
        let f = try ChangesetStoreTests.seededBase()
        let original = try f.plans.loadPlan(userID: "mei", window: ChangesetStoreTests.window)

        // Another process edits m1 and completes eng@01-08 after we loaded.
        let other = try f.openAgain()
        let theirs = try PlanRepository(other).loadPlan(userID: "mei", window: ChangesetStoreTests.window)
        var theirWorking = theirs
        var m1 = theirWorking.tasks["m1"]!
        m1.title = "Renamed by the student"
        theirWorking.put(m1)
        theirWorking.complete(OccurrenceID(taskID: "eng", originalDate: date("2025-01-08")))
        try ChangesetStore(other).commit(
            NewChangeset(
                userID: "mei", origin: .manual, planDate: nil, createdAt: Fixture.now,
                changes: PlanDiff.changes(from: theirs, to: theirWorking, now: Fixture.now) { _, _ in "student" }))

        var working = original
        working.complete(OccurrenceID(taskID: "m1"))
        working.complete(OccurrenceID(taskID: "eng", originalDate: date("2025-01-08")))
        working.put(oneOff("new", "2025-01-09T09:00", "2025-01-09T10:00", category: "Chemistry"))
        let found = conflict { () throws(StoreError) in _ = try f.commit(from: original, to: working, at: Fixture.later)
        }

        #expect(found?.changesetID == nil)
        let theirVersion = try #require(try f.plans.task(id: "m1")?.version)
        #expect(
            Set(found?.rows ?? []) == [
                ChangesetConflict.Row(entity: .task, key: "m1", expectedVersion: 1, foundVersion: theirVersion),
                ChangesetConflict.Row(
                    entity: .override, key: "eng@2025-01-08", expectedVersion: nil, foundVersion: theirVersion),
            ])
        #expect(try f.plans.task(id: "new") == nil)
        #expect(try f.plans.task(id: "m1")?.completed == false)
        #expect(try f.changesets.changesets(userID: "mei").count == 2)
        #expect(try StatisticsRepository(f.db).statistics(userID: "mei").map(\.category) == ["English", "Math"])
    }

    @Test func undoRestoresADeletedTaskRowForRow() throws {
        let f = try ChangesetStoreTests.seededBase()
        let before = try f.plans.loadPlan(userID: "mei", window: nil)

        // The nightly window does not see eng@2025-03-03 or the February slide; deleting the
        // series still takes them, and the changeset records them.
        let original = try f.plans.loadPlan(userID: "mei", window: ChangesetStoreTests.window)
        var working = original
        working.deleteTask("eng")
        let id = try f.commit(from: original, to: working, at: Fixture.later)
        #expect(try f.plans.task(id: "eng") == nil)
        #expect(try f.count("SELECT count(*) FROM occurrence_overrides") == 0)
        #expect(try f.count("SELECT count(*) FROM series_slides") == 0)

        let outcome = try f.changesets.undo(changesetID: id, now: Fixture.later)
        #expect(try f.plans.loadPlan(userID: "mei", window: nil) == before)
        #expect(outcome.changeset.state == .undone)
        #expect(outcome.overwritten.isEmpty)
        #expect(outcome.applied.map(\.entity) == [.task, .override, .override, .slide])
        #expect(outcome.applied.map(\.key).contains("eng@2025-03-03"))
        #expect(try f.changesets.changeset(id).header.state == .undone)
    }

    @Test(arguments: EngineUnderTest.engines) func undoIsRefusedAfterATouchedRowChangedAndForceWins(
        _ engine: DatabaseEngine
    ) throws {
        let f = try Fixture(engine)
        let mei = try f.addUser()
        try f.seed(UserPlan(user: mei, tasks: [oneOff("m1", "2025-01-07T14:00", "2025-01-07T15:00")]))

        let p1 = try f.plans.loadPlan(userID: "mei", window: nil)
        var w1 = p1
        var m1 = w1.tasks["m1"]!
        m1.title = "Moved by the nightly job"
        m1.start = at("2025-01-08T14:00")
        m1.end = at("2025-01-08T15:00")
        w1.put(m1)
        let nightly = try f.commit(from: p1, to: w1, at: Fixture.now, origin: .nightly)

        let p2 = try f.plans.loadPlan(userID: "mei", window: nil)
        var w2 = p2
        m1 = w2.tasks["m1"]!
        m1.note = "the student's own note"
        w2.put(m1)
        try f.commit(from: p2, to: w2, at: Fixture.later)

        let refused = conflict { () throws(StoreError) in
            _ = try f.changesets.undo(changesetID: nightly, now: Fixture.later)
        }
        #expect(refused?.changesetID == nightly)
        #expect(refused?.rows == [ChangesetConflict.Row(entity: .task, key: "m1", expectedVersion: 2, foundVersion: 3)])
        #expect(try f.plans.task(id: "m1")?.note == "the student's own note")
        #expect(try f.changesets.changeset(nightly).header.state == .applied)

        let forced = try f.changesets.undo(changesetID: nightly, force: true, now: Fixture.later)
        let restored = try f.plans.task(id: "m1")
        #expect(restored?.title == "Task m1")
        #expect(restored?.start == at("2025-01-07T14:00"))
        #expect(restored?.note == "")
        #expect(restored?.version == 4)
        #expect(forced.overwritten == refused?.rows)

        // The forced row no longer matches the changeset's before image: redo must ask again.
        let redo = conflict { () throws(StoreError) in
            _ = try f.changesets.redo(changesetID: nightly, now: Fixture.later)
        }
        #expect(redo?.rows == [ChangesetConflict.Row(entity: .task, key: "m1", expectedVersion: 1, foundVersion: 4)])
    }

    @Test(arguments: EngineUnderTest.engines) func undoingTwiceAndRedoingAnAppliedChangesetAreRefused(
        _ engine: DatabaseEngine
    ) throws {
        let f = try Fixture(engine)
        let mei = try f.addUser()
        let id = try f.seed(UserPlan(user: mei, tasks: [oneOff("m1", "2025-01-07T14:00", "2025-01-07T15:00")]))
        #expect(
            storeError { () throws(StoreError) in _ = try f.changesets.redo(changesetID: id, now: Fixture.now) }
                == .notUndone(id))
        try f.changesets.undo(changesetID: id, now: Fixture.now)
        #expect(
            storeError { () throws(StoreError) in _ = try f.changesets.undo(changesetID: id, now: Fixture.now) }
                == .alreadyUndone(id))
        #expect(
            storeError { () throws(StoreError) in _ = try f.changesets.undo(changesetID: "cs-nope", now: Fixture.now) }
                == .unknownChangeset("cs-nope"))
    }

    @Test func redoReappliesExactlyWhatUndoReverted() throws {
        let f = try ChangesetStoreTests.seededBase()
        let original = try f.plans.loadPlan(userID: "mei", window: ChangesetStoreTests.window)
        var working = original
        working.move(
            OccurrenceID(taskID: "eng", originalDate: date("2025-01-08")), start: at("2025-01-08T16:00"),
            end: at("2025-01-08T17:00"))
        working.deleteTask("m1")
        working.addSlide(taskID: "eng", from: date("2025-01-09"), days: 1)
        let id = try f.commit(from: original, to: working, at: Fixture.later)
        let after = try f.plans.loadPlan(userID: "mei", window: nil)

        try f.changesets.undo(changesetID: id, now: Fixture.later)
        #expect(try content(f.plans.loadPlan(userID: "mei", window: ChangesetStoreTests.window)) == content(original))
        let outcome = try f.changesets.redo(changesetID: id, now: Fixture.later)
        #expect(outcome.changeset.state == .applied)
        #expect(try f.plans.loadPlan(userID: "mei", window: nil) == after)
    }

    @Test(arguments: EngineUnderTest.engines) func redoIsRefusedWhenARowChangedAfterTheUndo(_ engine: DatabaseEngine)
        throws
    {
        let f = try Fixture(engine)
        let mei = try f.addUser()
        let id = try f.seed(UserPlan(user: mei, tasks: [oneOff("m1", "2025-01-07T14:00", "2025-01-07T15:00")]))
        try f.changesets.undo(changesetID: id, now: Fixture.now)
        // The student creates a task with the same id meanwhile.
        let empty = try f.plans.loadPlan(userID: "mei", window: nil)
        var working = empty
        working.put(oneOff("m1", "2025-01-09T08:00", "2025-01-09T09:00"))
        try f.commit(from: empty, to: working)
        let studentVersion = try #require(try f.plans.task(id: "m1")?.version)
        let refused = conflict { () throws(StoreError) in _ = try f.changesets.redo(changesetID: id, now: Fixture.later)
        }
        #expect(
            refused?.rows == [
                ChangesetConflict.Row(entity: .task, key: "m1", expectedVersion: nil, foundVersion: studentVersion)
            ])
        try f.changesets.redo(changesetID: id, force: true, now: Fixture.later)
        #expect(try f.plans.task(id: "m1")?.start == at("2025-01-07T14:00"))
        #expect(try f.plans.task(id: "m1")?.version ?? 0 > studentVersion, "a forced write takes a fresh version")
    }

    @Test(arguments: EngineUnderTest.engines) func undoIsRefusedWhenATaskItDeletesGainedAnOverride(
        _ engine: DatabaseEngine
    ) throws {
        let f = try Fixture(engine)
        let mei = try f.addUser()
        let created = try f.seed(UserPlan(user: mei, tasks: [series("eng", "2025-01-06T10:00", "2025-01-06T11:00")]))
        let p = try f.plans.loadPlan(userID: "mei", window: nil)
        var w = p
        w.complete(OccurrenceID(taskID: "eng", originalDate: date("2025-01-06")))
        try f.commit(from: p, to: w)

        let overrideVersion = try f.count("SELECT version FROM occurrence_overrides")
        let refused = conflict { () throws(StoreError) in
            _ = try f.changesets.undo(changesetID: created, now: Fixture.later)
        }
        #expect(
            refused?.rows == [
                ChangesetConflict.Row(
                    entity: .override, key: "eng@2025-01-06", expectedVersion: nil,
                    foundVersion: overrideVersion, kind: .unrecordedChild)
            ])
        try f.changesets.undo(changesetID: created, force: true, now: Fixture.later)
        #expect(try f.plans.task(id: "eng") == nil)
        #expect(try f.count("SELECT count(*) FROM occurrence_overrides") == 0)
    }

    @Test(arguments: EngineUnderTest.engines) func redoSkipsAnOverrideWhoseSeriesIsGoneOnlyWithForce(
        _ engine: DatabaseEngine
    ) throws {
        let f = try Fixture(engine)
        let mei = try f.addUser()
        try f.seed(UserPlan(user: mei, tasks: [series("eng", "2025-01-06T10:00", "2025-01-06T11:00")]))
        let p = try f.plans.loadPlan(userID: "mei", window: nil)
        var w = p
        w.skip(OccurrenceID(taskID: "eng", originalDate: date("2025-01-07")))
        let skip = try f.commit(from: p, to: w)
        try f.changesets.undo(changesetID: skip, now: Fixture.now)
        let q = try f.plans.loadPlan(userID: "mei", window: nil)
        var gone = q
        gone.deleteTask("eng")
        try f.commit(from: q, to: gone)

        let refused = conflict { () throws(StoreError) in
            _ = try f.changesets.redo(changesetID: skip, now: Fixture.later)
        }
        #expect(refused?.rows.map(\.kind) == [.parentMissing])
        let outcome = try f.changesets.redo(changesetID: skip, force: true, now: Fixture.later)
        #expect(outcome.applied.isEmpty)
        #expect(outcome.changeset.state == .applied)
    }

    @Test(arguments: EngineUnderTest.engines) func forcedUndoSkipsAnOverrideWhoseSeriesWasDeletedSince(
        _ engine: DatabaseEngine
    ) throws {
        let (f, _) = try Fixture.seeded(
            engine,
            tasks: [series("eng", "2025-01-06T10:00", "2025-01-06T11:00")],
            overrides: [OccurrenceOverride(taskID: "eng", originalDate: date("2025-01-06"), state: .skipped)])
        let p = try f.plans.loadPlan(userID: "mei", window: nil)
        var w = p
        w.complete(OccurrenceID(taskID: "eng", originalDate: date("2025-01-06")))
        let completed = try f.commit(from: p, to: w)
        let q = try f.plans.loadPlan(userID: "mei", window: nil)
        var gone = q
        gone.deleteTask("eng")
        try f.commit(from: q, to: gone)

        let refused = conflict { () throws(StoreError) in
            _ = try f.changesets.undo(changesetID: completed, now: Fixture.later)
        }
        #expect(
            refused?.rows == [
                ChangesetConflict.Row(
                    entity: .override, key: "eng@2025-01-06", expectedVersion: 2,
                    foundVersion: nil, kind: .parentMissing)
            ])
        let outcome = try f.changesets.undo(changesetID: completed, force: true, now: Fixture.later)
        #expect(outcome.applied.isEmpty)
        #expect(outcome.overwritten == refused?.rows)
        #expect(try f.plans.task(id: "eng") == nil)
    }

    @Test(arguments: EngineUnderTest.engines) func statisticRowIsCreatedForANewCategoryAndRemovedByUndo(
        _ engine: DatabaseEngine
    ) throws {
        let f = try Fixture(engine)
        let mei = try f.addUser()
        let seeded = try f.seed(UserPlan(user: mei, tasks: [series("eng", "2025-01-06T10:00", "2025-01-06T11:00")]))
        #expect(try f.changesets.changeset(seeded).edits.first?.entity == .statistic)
        let stats = StatisticsRepository(f.db)
        #expect(
            try stats.statistics(userID: "mei") == [
                CategoryStatistic(
                    category: "English", taskCount: 0, completedCount: 0,
                    completionRate: 0, focusMinutes: 0)
            ])

        let p = try f.plans.loadPlan(userID: "mei", window: nil)
        var w = p
        w.put(oneOff("chem", "2025-01-09T09:00", "2025-01-09T10:00", category: "Chemistry"))
        w.put(oneOff("eng2", "2025-01-09T11:00", "2025-01-09T12:00", category: "English"))
        let id = try f.commit(from: p, to: w)
        let edits = try f.changesets.changeset(id).edits
        #expect(edits.filter { $0.entity == .statistic }.map(\.key) == ["Chemistry"])
        #expect(edits.first?.after?["user"] == "mei")
        #expect(try stats.statistics(userID: "mei").map(\.category) == ["Chemistry", "English"])

        try f.changesets.undo(changesetID: id, now: Fixture.later)
        #expect(try stats.statistics(userID: "mei").map(\.category) == ["English"])
        try f.changesets.redo(changesetID: id, now: Fixture.later)
        #expect(try stats.statistics(userID: "mei").map(\.category) == ["Chemistry", "English"])
    }

    @Test(arguments: EngineUnderTest.engines) func outboxRowsAreWrittenWithTheChangesetAndItsUndo(
        _ engine: DatabaseEngine
    ) throws {
        let f = try Fixture(engine)
        let mei = try f.addUser()
        let entries = [
            OutboxEntry(
                occurrenceID: OccurrenceID(taskID: "m1"), fireAt: Date(timeIntervalSince1970: 1_736_229_000),
                action: .schedule),
            OutboxEntry(
                occurrenceID: OccurrenceID(taskID: "eng", originalDate: date("2025-01-08")), fireAt: Fixture.later,
                action: .cancel),
        ]
        let id = try f.commit(
            from: UserPlan(user: mei, tasks: []),
            to: UserPlan(user: mei, tasks: [oneOff("m1", "2025-01-07T14:00", "2025-01-07T15:00")]), outbox: entries)
        let stored = try OutboxRepository(f.db).entries(changesetID: id)
        #expect(stored.map(\.entry) == entries)
        #expect(stored.allSatisfy { $0.userID == "mei" && $0.createdAt == Fixture.now && $0.changesetID == id })

        try f.changesets.undo(
            changesetID: id, now: Fixture.later,
            outbox: [OutboxEntry(occurrenceID: OccurrenceID(taskID: "m1"), fireAt: Fixture.later, action: .cancel)])
        let all = try OutboxRepository(f.db).entries(userID: "mei")
        #expect(all.count == 3)
        #expect(all.last?.entry.action == .cancel && all.last?.createdAt == Fixture.later)
        try OutboxRepository(f.db).remove(ids: all.map(\.id))
        #expect(try OutboxRepository(f.db).entries(userID: "mei").isEmpty)
    }

    @Test(arguments: EngineUnderTest.engines) func rowsOfAnotherUserAreNeverTouched(_ engine: DatabaseEngine) throws {
        let f = try Fixture(engine)
        let mei = try f.addUser()
        let zoe = try f.addUser("zoe")
        try f.seed(
            UserPlan(user: zoe, tasks: [oneOff("shared-id", user: "zoe", "2025-01-07T14:00", "2025-01-07T15:00")]))
        let error = storeError { () throws(StoreError) in
            _ = try f.commit(
                from: UserPlan(user: mei, tasks: []),
                to: UserPlan(user: mei, tasks: [oneOff("shared-id", "2025-01-08T14:00", "2025-01-08T15:00")]))
        }
        #expect(error == .foreignRow(entity: "task", key: "shared-id"))
        #expect(try f.plans.taskOwner(taskID: "shared-id") == "zoe")
    }

    /// A changeset reads each task it touches once; the check still covers every row under it.
    @Test(arguments: EngineUnderTest.engines) func overridesAndSlidesUnderAnotherUsersSeriesAreRefused(
        _ engine: DatabaseEngine
    ) throws {
        let f = try Fixture(engine)
        let mei = try f.addUser()
        let zoe = try f.addUser("zoe")
        try f.seed(UserPlan(user: zoe, tasks: [series("zoe-eng", user: "zoe", "2025-01-06T10:00", "2025-01-06T11:00")]))
        let writes: [(RowChange, StoreError)] = [
            (
                RowChange(
                    entity: .override, key: "zoe-eng@2025-01-07", before: nil,
                    after: RowImage.override(
                        OccurrenceOverride(taskID: "zoe-eng", originalDate: date("2025-01-07"), state: .skipped)),
                    reason: "test"),
                .foreignRow(entity: "override", key: "zoe-eng@2025-01-07")
            ),
            (
                RowChange(
                    entity: .slide, key: "zoe-eng@2025-01-08", before: nil,
                    after: RowImage.slide(SeriesSlide(taskID: "zoe-eng", from: date("2025-01-08"), days: 1)),
                    reason: "test"),
                .foreignRow(entity: "slide", key: "zoe-eng@2025-01-08")
            ),
        ]
        for (change, expected) in writes {
            // Behind an edit of mei's own that reads fine, so the foreign row is not the first one looked at.
            let own = RowChange(
                entity: .task, key: "m1", before: nil,
                after: RowImage.task(oneOff("m1", "2025-01-07T14:00", "2025-01-07T15:00")), reason: "test")
            let error = storeError { () throws(StoreError) in
                _ = try f.changesets.commit(
                    NewChangeset(
                        userID: mei.id, origin: .manual, planDate: nil, createdAt: Fixture.now,
                        changes: [own, change]))
            }
            #expect(error == expected)
        }
        #expect(try f.plans.task(id: "m1") == nil)
        #expect(try f.plans.overrides(taskID: "zoe-eng").isEmpty && f.plans.slides(taskID: "zoe-eng").isEmpty)
    }

    /// The task rows a changeset reads once follow its own writes: a task it creates takes
    /// overrides and slides, and one it deletes is gone for the rows after it.
    @Test(arguments: EngineUnderTest.engines)
    func rowsUnderATaskTheSameChangesetCreatesOrDeletesAreCheckedAgainstThatWrite(_ engine: DatabaseEngine) throws {
        let f = try Fixture(engine)
        let mei = try f.addUser()
        let created = try f.commit(
            from: UserPlan(user: mei, tasks: []),
            to: UserPlan(
                user: mei, tasks: [series("eng", "2025-01-06T10:00", "2025-01-06T11:00")],
                overrides: [OccurrenceOverride(taskID: "eng", originalDate: date("2025-01-07"), state: .completed)],
                slides: [SeriesSlide(taskID: "eng", from: date("2025-01-09"), days: -1)]))
        #expect(try f.plans.overrides(taskID: "eng").count == 1 && f.plans.slides(taskID: "eng").count == 1)

        // An override written after its task's deletion in the same changeset has no task to go under.
        let eng = try #require(try f.plans.task(id: "eng"))
        let deleteThenWrite = [
            RowChange(
                entity: .override, key: "eng@2025-01-07",
                before: RowImage.override(try #require(try f.plans.overrides(taskID: "eng").first)), after: nil,
                reason: "test"),
            RowChange(
                entity: .slide, key: "eng@2025-01-09",
                before: RowImage.slide(try #require(try f.plans.slides(taskID: "eng").first)), after: nil,
                reason: "test"),
            RowChange(entity: .task, key: "eng", before: RowImage.task(eng), after: nil, reason: "test"),
            RowChange(
                entity: .override, key: "eng@2025-01-08", before: nil,
                after: RowImage.override(
                    OccurrenceOverride(taskID: "eng", originalDate: date("2025-01-08"), state: .skipped)),
                reason: "test"),
        ]
        let error = storeError { () throws(StoreError) in
            _ = try f.changesets.commit(
                NewChangeset(
                    userID: mei.id, origin: .manual, planDate: nil, createdAt: Fixture.later,
                    changes: deleteThenWrite))
        }
        #expect(
            error == .malformedRow(entity: "override", key: "eng@2025-01-08", problem: "its task eng does not exist"))
        #expect(try f.plans.task(id: "eng") != nil)

        // Undoing the creation deletes the rows, then the task, each checked as the undo goes.
        try f.changesets.undo(changesetID: created, now: Fixture.later)
        #expect(try f.plans.task(id: "eng") == nil)
        try f.changesets.redo(changesetID: created, now: Fixture.later)
        #expect(try f.plans.overrides(taskID: "eng").count == 1 && f.plans.slides(taskID: "eng").count == 1)
    }

    /// Rows the check found are written with an UPDATE; every column of the after image lands.
    @Test func everyColumnOfAStoredTaskAndOverrideIsRewritten() throws {
        let f = try ChangesetStoreTests.seededBase()
        let original = try f.plans.loadPlan(userID: "mei", window: nil)
        var working = original
        var eng = try #require(original.tasks["eng"])
        eng.title = "English B2"
        eng.note = ""
        eng.category = "Languages"
        eng.color = .red
        eng.start = at("2025-01-06T11:00")
        eng.end = at("2025-01-06T12:30")
        eng.allDay = false
        eng.subtasks = [Subtask(title: "listening", done: true)]
        eng.repeatRule = RepeatRule(every: .weekly, until: date("2025-06-30"))
        working.put(eng)
        var m1 = try #require(original.tasks["m1"])
        m1.allDay = true
        m1.completed = true
        m1.start = at("2025-01-08T00:00")
        m1.end = at("2025-01-08T00:00")
        m1.subtasks = []
        m1.repeatRule = nil
        working.put(m1)
        working.move(
            OccurrenceID(taskID: "eng", originalDate: date("2025-03-03")), start: at("2025-03-04T09:00"),
            end: at("2025-03-04T10:00"))
        try f.commit(from: original, to: working, at: Fixture.later)
        #expect(content(try f.plans.loadPlan(userID: "mei", window: nil)) == content(working))
    }

    /// A row the caller believed stored but that is not there is still written (as an insert).
    @Test(arguments: EngineUnderTest.engines) func aRowBelievedStoredButMissingIsStillWritten(_ engine: DatabaseEngine)
        throws
    {
        let f = try Fixture(engine)
        try f.addUser()
        let task = series("eng", "2025-01-06T10:00", "2025-01-06T11:00")
        let override = OccurrenceOverride(taskID: "eng", originalDate: date("2025-01-07"), state: .skipped)
        try f.db.write { (db) throws(StoreError) in
            let applier = ChangesetApplier(db: db, userID: "mei", now: Fixture.now)
            try applier.apply(.task, key: "eng", image: RowImage.task(task), stored: true)
            try applier.apply(.override, key: "eng@2025-01-07", image: RowImage.override(override), stored: true)
        }
        #expect(try f.plans.task(id: "eng") == task)
        #expect(try f.plans.overrides(taskID: "eng") == [override])
    }

    @Test(arguments: EngineUnderTest.engines) func logQueriesListNewestFirst(_ engine: DatabaseEngine) throws {
        let f = try Fixture(engine)
        let mei = try f.addUser()
        try f.addUser("zoe")
        let first = try f.seed(UserPlan(user: mei, tasks: [oneOff("m1", "2025-01-07T14:00", "2025-01-07T15:00")]))
        let p = try f.plans.loadPlan(userID: "mei", window: nil)
        var w = p
        w.complete(OccurrenceID(taskID: "m1"))
        let second = try f.commit(from: p, to: w, at: Fixture.later)
        try f.seed(
            UserPlan(
                user: try f.users.get("zoe"), tasks: [oneOff("z1", user: "zoe", "2025-01-07T14:00", "2025-01-07T15:00")]
            ))

        #expect(try f.changesets.changesets(userID: "mei").map(\.id) == [second, first])
        #expect(try f.changesets.changesets(limit: 2).first?.id == second)
        #expect(try f.changesets.changesets().count == 3)
        #expect(try f.changesets.lastApplied(userID: "mei")?.id == second)
        try f.changesets.undo(changesetID: second, now: Fixture.later)
        #expect(try f.changesets.lastApplied(userID: "mei")?.id == first)
    }

    /// A night's overrides go out several rows to a statement on PostgreSQL
    /// (`ChangesetApplier.applyAll`): a changeset of 45 override writes (new rows and stored
    /// ones, around a task it creates and after a task it deletes) stores exactly the working
    /// copy, each row with the changeset's version, and its undo puts back every row.
    @Test(arguments: EngineUnderTest.engines) func aRunOfManyOverridesIsWrittenAsTheWorkingCopyAndUndoneWhole(
        _ engine: DatabaseEngine
    ) throws {
        let f = try Fixture(engine)
        let mei = try f.addUser()
        let ids = ["a", "b", "c", "gone"]
        try f.seed(UserPlan(user: mei, tasks: ids.map { series($0, "2025-01-01T10:00", "2025-01-01T11:00") }))
        let window = date("2024-12-31")...date("2025-01-31")
        var before = try f.plans.loadPlan(userID: "mei", window: window)
        var first = before
        for day in 2...9 { first.complete(OccurrenceID(taskID: "a", originalDate: date("2025-01-0\(day)"))) }
        first.complete(OccurrenceID(taskID: "gone", originalDate: date("2025-01-05")))
        try f.commit(from: before, to: first)
        before = try f.plans.loadPlan(userID: "mei", window: window)
        var working = before
        for day in 2...9 { working.skip(OccurrenceID(taskID: "a", originalDate: date("2025-01-0\(day)"))) }
        for day in 10...28 {
            working.move(
                OccurrenceID(taskID: "b", originalDate: date("2025-01-\(day)")), start: at("2025-01-\(day)T15:00"),
                end: at("2025-01-\(day)T16:00"))
            working.complete(OccurrenceID(taskID: "c", originalDate: date("2025-01-\(day)")))
        }
        working.deleteTask("gone")
        working.put(series("new", "2025-01-20T08:00", "2025-01-20T09:00"))
        working.complete(OccurrenceID(taskID: "new", originalDate: date("2025-01-21")))
        let id = try f.commit(from: before, to: working, at: Fixture.later)

        let loaded = try f.plans.loadPlan(userID: "mei", window: window)
        #expect(content(loaded) == content(working))
        #expect(loaded.allOverrides.count == 8 + 19 + 19 + 1)
        let fresh = try #require(loaded.tasks["new"]?.version)
        #expect(loaded.allOverrides.filter { $0.taskID != "a" }.allSatisfy { $0.version == fresh })
        try f.changesets.undo(changesetID: id, now: Fixture.later)
        #expect(content(try f.plans.loadPlan(userID: "mei", window: window)) == content(before))
    }
}
