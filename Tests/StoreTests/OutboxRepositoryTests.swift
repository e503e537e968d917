import Foundation
import Planning
import ReplanTestSupport
import Testing

@testable import Store

/// The outbox's delivery contract at the store (docs/outbox.md): ids never repeat, whatever
/// is acknowledged or pruned, and undelivered rows outlive their changeset.
@Suite struct OutboxRepositoryTests {
    static func reminder(_ task: String, _ seconds: Double) -> OutboxEntry {
        OutboxEntry(
            occurrenceID: OccurrenceID(taskID: task), fireAt: Date(timeIntervalSince1970: seconds), action: .schedule)
    }

    /// Issue 28, item 1: after `ack` emptied the table, the next row took id 1, below the
    /// consumer's cursor, and the consumer never saw it.
    @Test(arguments: EngineUnderTest.engines) func idsNeverRepeatAfterAFullAck(_ engine: DatabaseEngine) throws {
        let f = try Fixture(engine)
        let mei = try f.addUser()
        let empty = UserPlan(user: mei, tasks: [])
        let one = UserPlan(user: mei, tasks: [oneOff("m1", "2025-01-07T14:00", "2025-01-07T15:00")])
        try f.commit(from: empty, to: one, outbox: [Self.reminder("m1", 1_736_229_000)])
        let outbox = OutboxRepository(f.db)
        let first = try outbox.entries(after: 0, limit: 10)
        let cursor = try #require(first.last?.id)
        #expect(try outbox.acknowledge(through: cursor) == first.count)
        #expect(try outbox.entries(after: 0, limit: 10).isEmpty)

        let two = UserPlan(
            user: mei,
            tasks: [
                oneOff("m1", "2025-01-07T14:00", "2025-01-07T15:00"),
                oneOff("m2", "2025-01-08T14:00", "2025-01-08T15:00"),
            ])
        try f.commit(from: one, to: two, outbox: [Self.reminder("m2", 1_736_315_400)])
        let next = try outbox.entries(after: cursor, limit: 10)
        #expect(next.map(\.entry.occurrenceID.taskID) == ["m2"], "the consumer at \(cursor) sees the new row")
        #expect(next.allSatisfy { $0.id > cursor })
    }

    /// An acknowledged cursor beyond every id written (a consumer's cursor from before the
    /// outbox kept its high-water mark) still keeps new ids above it.
    @Test(arguments: EngineUnderTest.engines) func anAcknowledgedCursorRaisesTheNextId(_ engine: DatabaseEngine) throws
    {
        let f = try Fixture(engine)
        let mei = try f.addUser()
        let outbox = OutboxRepository(f.db)
        #expect(try outbox.acknowledge(through: 500) == 0)
        try f.commit(
            from: UserPlan(user: mei, tasks: []),
            to: UserPlan(user: mei, tasks: [oneOff("m1", "2025-01-07T14:00", "2025-01-07T15:00")]),
            outbox: [Self.reminder("m1", 1_736_229_000)])
        #expect(try outbox.entries(after: 500, limit: 10).map(\.id) == [501])
        #expect(try outbox.highestIssuedID() == 501)
    }

    /// Issue 28, item 2: the outbox row cascaded with its changeset, so retention deleted
    /// pending reminders for sessions weeks ahead, uncounted.
    @Test(arguments: EngineUnderTest.engines) func pruningAChangesetKeepsItsUndeliveredRows(_ engine: DatabaseEngine)
        throws
    {
        let f = try Fixture(engine)
        let mei = try f.addUser()
        let ahead = Fixture.later.addingTimeInterval(60 * 86_400).timeIntervalSince1970
        let passed = Fixture.now.addingTimeInterval(-90 * 86_400).timeIntervalSince1970
        let id = try f.commit(
            from: UserPlan(user: mei, tasks: []),
            to: UserPlan(user: mei, tasks: [oneOff("m1", "2025-03-07T14:00", "2025-03-07T15:00")]),
            outbox: [Self.reminder("m1", ahead), Self.reminder("old", passed)])
        let pruner = RetentionPruner(f.db)
        let cutoff = Fixture.later.addingTimeInterval(30 * 86_400)
        let counted = try pruner.count(olderThan: cutoff)
        #expect(counted.changesets == 1 && counted.outbox == 1, "\(counted)")
        let report = try pruner.prune(olderThan: cutoff)
        #expect(report.changesets == 1)
        #expect(report.outbox == 1, "the reminder whose time passed before the cutoff goes, and is counted")
        let left = try OutboxRepository(f.db).entries(userID: "mei")
        #expect(left.map(\.entry.occurrenceID.taskID) == ["m1"], "the reminder two months ahead stays")
        #expect(left.first?.changesetID == nil, "its changeset is gone: \(id)")
    }

    /// Migration 7 on a database with rows: ids, fields and the changeset link are kept, the
    /// next id continues after the highest, and the new reference lets a changeset go.
    @Test func migration7KeepsTheRowsAndContinuesTheirIds() throws {
        let f = try Fixture(migrations: Schema.migrations.filter { $0.version < 7 })
        // Rows as the repositories of that schema wrote them (today's name later columns).
        try f.addUserRow()
        try f.sqlite.execute(
            "INSERT INTO changesets (id, user_id, created_at, origin, state) VALUES ('c1', 'mei', ?, 'manual', 'applied')",
            [.text(Timestamp.text(Fixture.now))])
        let written = [Self.reminder("m1", 1_736_229_000), Self.reminder("m2", 1_736_229_600)]
        for e in written {
            try f.sqlite.execute(
                """
                INSERT INTO notification_outbox (user_id, occurrence_id, fire_at, action, created_at, changeset_id)
                VALUES ('mei', ?, ?, 'schedule', ?, 'c1')
                """,
                [
                    .text(e.occurrenceID.description), .text(Timestamp.text(e.fireAt)),
                    .text(Timestamp.text(Fixture.now)),
                ])
        }
        let ids = try f.sqlite.query("SELECT id FROM notification_outbox ORDER BY id") { $0.int(0) }
        try f.sqlite.close()
        let db = try Database.open(path: f.path, now: Fixture.later)
        let outbox = OutboxRepository(db)
        let after = try outbox.entries(userID: "mei")
        #expect(after.map(\.id) == ids)
        #expect(after.map(\.entry) == written, "reminders stay reminders through migration 10")
        #expect(after.map(\.changesetID) == [ChangesetID("c1"), ChangesetID("c1")])
        #expect(try outbox.highestIssuedID() == ids.last)
        #expect(try db.queryFirst("PRAGMA foreign_key_check") { $0.text(0) } == nil)
        #expect(try db.queryFirst("PRAGMA integrity_check") { $0.text(0) } == "ok")
        try db.execute("DELETE FROM changesets")
        #expect(try outbox.entries(userID: "mei").map(\.changesetID) == [nil, nil])
    }

    /// Issue 25: a morning note is a row of its own kind, with its rendered title and body and
    /// no occurrence, read back as written beside the reminders of the same changeset.
    @Test func aNoteRowKeepsItsKindTitleAndBody() throws {
        let f = try Fixture()
        let mei = try f.addUser()
        let note = OutboxEntry(
            note: OutboxEntry.Note(title: "1月7日週二的計畫：1 項調整", body: "補上的課\n- Math：改到 1月7日週二 10:00–11:00"),
            fireAt: Date(timeIntervalSince1970: 1_736_206_200))
        try f.commit(
            from: UserPlan(user: mei, tasks: []),
            to: UserPlan(user: mei, tasks: [oneOff("m1", "2025-01-07T14:00", "2025-01-07T15:00")]),
            outbox: [Self.reminder("m1", 1_736_229_000), note])
        let rows = try OutboxRepository(f.db).entries(userID: "mei")
        #expect(rows.map(\.entry) == [Self.reminder("m1", 1_736_229_000), note])
        #expect(rows.map(\.entry.kind) == [.reminder, .note])
        #expect(
            try f.db.queryFirst("SELECT occurrence_id FROM notification_outbox WHERE kind = 'note'") { $0.text(0) }
                == "")
    }

    /// The changeset's mark in a note rendered before the commit is replaced byte by byte,
    /// wherever it stands and whatever the script around it.
    @Test func theChangesetMarkIsReplacedWhereverItStands() {
        let mark = OutboxEntry.Note.changesetMark
        #expect(
            OutboxRepository.replacing(mark, with: "cs-1", in: "撤回 \(mark)。\n\(mark)") == "撤回 cs-1。\ncs-1")
        #expect(OutboxRepository.replacing(mark, with: "cs-1", in: "no mark {change}") == "no mark {change}")
        #expect(OutboxRepository.replacing(mark, with: "cs-1", in: "") == "")
    }
}
