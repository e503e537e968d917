import Foundation
import Nightly
import Store
import Testing

@Suite("Opening the database for the use cases: created when asked, never by a command that only reads")
struct ReplanDatabaseTests {
    @Test("a missing or empty file is an error naming the path and why it was looked for; nothing is created")
    func openExisting() throws {
        let f = try NightlyFixture()
        let missing = f.directory.appendingPathComponent("sub/replan.db").path
        #expect {
            try ReplanDatabase.openExisting(path: missing, source: "--db")
        } throws: {
            let e = $0 as? UseCaseError
            return e?.kind == .cannotOpenDatabase && e!.message.hasPrefix("no database at \(missing)")
                && e!.message.contains("because of --db")
        }
        #expect(!FileManager.default.fileExists(atPath: missing))
        #expect(FileManager.default.createFile(atPath: f.path, contents: Data()))
        #expect(
            throws: UseCaseError(
                .cannotOpenDatabase,
                "\(f.path) is empty, not a replan database yet (looked there because of $REPLAN_DB)")
        ) {
            try ReplanDatabase.openExisting(path: f.path, source: "$REPLAN_DB")
        }
    }

    @Test("open creates the missing directories and the database")
    func openCreates() throws {
        let f = try NightlyFixture()
        let path = f.directory.appendingPathComponent("a/b/replan.db").path
        let db = try ReplanDatabase.open(path: path)
        #expect(db.path == path)
        #expect(try Roster(database: db).list().isEmpty)
    }

    @Test("another application's file is refused as cannot-open")
    func foreignFile() throws {
        let f = try NightlyFixture()
        #expect(FileManager.default.createFile(atPath: f.path, contents: Data("not sqlite at all, just text".utf8)))
        #expect {
            try ReplanDatabase.openExisting(path: f.path, source: "--db")
        } throws: { ($0 as? UseCaseError)?.kind == .cannotOpenDatabase }
    }
}
