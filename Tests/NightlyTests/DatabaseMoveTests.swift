import Foundation
import JSON
import Nightly
import Planning
import ReplanTestSupport
import Store
import Testing

/// Issue 21: `copy-database` moves a SQLite deployment to PostgreSQL with nothing lost: the same
/// exports, the same changesets, undo of a changeset made before the move, versions and outbox
/// ids that continue; a second copy is refused and changes nothing.
@Suite(.enabled(if: EngineUnderTest.engines.contains(.postgresql)))
struct DatabaseMoveTests {
    static let later = NightlyFixture.now.addingTimeInterval(86_400)

    /// A SQLite deployment with history: students, a night, a manual move, reminders.
    static func deployment() throws -> NightlyFixture {
        let f = try NightlyFixture()
        try f.addStudents(6)
        let db = try f.database()
        _ = try Roster(database: db).list()
        var options = RunOptions(now: NightlyFixture.now)
        options.concurrency = 2
        _ = try NightlyRunner(databasePath: f.path, pipeline: UserPipeline(reviewer: nil), options: options).run()
        try f.moveByHand("s0-eng-3", to: "2025-01-09T16:00", db: db)
        return f
    }

    static func exports(_ db: ReplanDatabase) throws -> [String] {
        try Roster(database: db).list().map { try Exporter(database: db).document(userID: $0.id).prettyText }
    }

    static func changesets(_ connection: any SQLExecutor) throws -> [String] {
        try connection.query(
            """
            SELECT c.id, c.user_id, c.origin, c.state, c.summary, e.seq, e.entity, e.entity_key, e.before, e.after, e.reason
            FROM changesets c JOIN changeset_edits e ON e.changeset_id = c.id ORDER BY c.id, e.seq
            """, []
        ) { s in (0..<11).map { s.optionalText($0) ?? "null" }.joined(separator: "|") }
    }

    @Test func everythingArrivesAndAPreMoveChangesetStillUndoes() throws {
        let source = try Self.deployment()
        let target = try TemporaryDatabase(engine: .postgresql)
        let copied = try DatabaseMove(database: try source.database()).copy(to: target.path, now: Self.later)
        #expect(copied.total > 0)
        let sqlite = try source.database()
        let postgres = try ReplanDatabase.open(path: target.path)
        #expect(try Self.exports(postgres) == Self.exports(sqlite))
        #expect(try Self.changesets(target.connect()) == Self.changesets(source.connect()))
        let sourceOutbox = try Outbox(database: sqlite).entries(after: 0, limit: 10_000)
        #expect(try Outbox(database: postgres).entries(after: 0, limit: 10_000).map(\.id) == sourceOutbox.map(\.id))
        // The newest changeset of the same second comes first on both engines.
        let newest = try RunLog(database: sqlite).entries(RunLog.Query()).changesets.map(\.id)
        #expect(try RunLog(database: postgres).entries(RunLog.Query()).changesets.map(\.id) == newest)

        // Undo the night's changeset of s1, made before the move, on the new engine.
        let night = try #require(
            try target.connect().queryFirst(
                "SELECT id FROM changesets WHERE user_id = 's1' AND origin = 'nightly'", []
            ) { ChangesetID($0.text(0)) })
        let undo = ChangesetReversal(database: postgres, direction: .undo, retentionDays: nil)
        guard case .done(let done) = try undo.perform(undo.load(night), force: false, now: Self.later) else {
            Issue.record("the undo of a pre-move changeset was refused")
            return
        }
        #expect(done.state == .undone)
        // A new write's versions are above every version copied; outbox ids continue.
        try target.moveByHand("s0-eng-4", to: "2025-01-10T17:00", db: postgres)
        let version = try target.connect().queryFirst("SELECT version FROM tasks WHERE id = 's0-eng-4'", []) {
            $0.int(0)
        }
        #expect((version ?? 0) > copied.versionClock)
        if let highest = sourceOutbox.map(\.id).max() {
            let after = try Outbox(database: postgres).entries(after: highest, limit: 100)
            #expect(after.allSatisfy { $0.id > copied.outboxHighWater })
        }
    }

    @Test func aSecondCopyIsRefusedAndChangesNothing() throws {
        let source = try Self.deployment()
        let target = try TemporaryDatabase(engine: .postgresql)
        _ = try DatabaseMove(database: try source.database()).copy(to: target.path, now: Self.later)
        let before = try Self.changesets(target.connect())
        #expect(throws: UseCaseError.self) {
            _ = try DatabaseMove(database: try source.database()).copy(to: target.path, now: Self.later)
        }
        #expect(try Self.changesets(target.connect()) == before)
    }

    @Test func aPostgreSQLSourceOrATargetThatIsNotPostgreSQLIsBadInput() throws {
        let source = try Self.deployment()
        let error = #expect(throws: UseCaseError.self) {
            _ = try DatabaseMove(database: try source.database()).copy(to: source.file("other.db"), now: Self.later)
        }
        #expect(error?.kind == .badInput)
        let server = try TemporaryDatabase(engine: .postgresql)
        let fromServer = #expect(throws: UseCaseError.self) {
            _ = try DatabaseMove(database: try ReplanDatabase.open(path: server.path)).copy(
                to: server.path, now: Self.later)
        }
        #expect(fromServer?.kind == .badInput)
    }
}
