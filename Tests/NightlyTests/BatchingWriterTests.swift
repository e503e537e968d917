import Foundation
import ReplanTestSupport
import Store
import Testing

@testable import Nightly

@Suite("The nightly writer commits students in batches, each student still all or nothing")
struct BatchingWriterTests {
    /// A database with one table to write into, and a second connection to look from.
    final class Scratch {
        let fixture: NightlyFixture
        let writerDB: any SQLExecutor
        let observer: any SQLExecutor

        init() throws {
            fixture = try NightlyFixture()
            writerDB = try fixture.connect()
            try writerDB.execute("CREATE TABLE notes (student TEXT NOT NULL, line TEXT NOT NULL)", [])
            observer = try fixture.connect()
        }

        func visible() throws -> [String] {
            try observer.query("SELECT student || ':' || line FROM notes ORDER BY rowid", []) { $0.text(0) }
        }
    }

    /// A student's writes: two rows, in their own savepoint like a night's commit.
    func night(_ student: String, failing: Bool = false) -> (any SQLExecutor) throws(StoreError) -> String {
        { (db) throws(StoreError) -> String in
            try db.write { (db) throws(StoreError) in
                try db.execute("INSERT INTO notes VALUES (?, 'changeset')", [.text(student)])
                if failing { throw StoreError.unknownUser(student) }
                try db.execute("INSERT INTO notes VALUES (?, 'user run')", [.text(student)])
            }
            return student
        }
    }

    @Test("staged students are invisible and unreported until their batch commits; a failing one rolls back alone")
    func batchCommitsTogether() throws {
        let s = try Scratch()
        let writer = BatchingWriter(s.writerDB, maxStudents: 100, maxAge: 3600)
        defer { writer.stop() }
        let reported = Reports()
        writer.stage(night("a"), then: reported.add)
        writer.stage(night("b", failing: true), then: reported.add)
        writer.stage(night("c"), then: reported.add)
        writer.drain()
        #expect(try s.visible() == [])
        #expect(reported.all == [])

        writer.flush()
        #expect(try s.visible() == ["a:changeset", "a:user run", "c:changeset", "c:user run"])
        #expect(reported.all == ["a", "failed: no user 'b'", "c"])
    }

    @Test("a student whose writes fail is recorded by the fallback instead, in the same batch")
    func failureIsRecordedInstead() throws {
        let s = try Scratch()
        let writer = BatchingWriter(s.writerDB, maxStudents: 100, maxAge: 3600)
        defer { writer.stop() }
        let reported = Reports()
        writer.stage(
            night("a", failing: true),
            otherwise: { (error, db) throws(StoreError) -> String in
                try db.execute("INSERT INTO notes VALUES ('a', 'failure recorded')", [])
                return "a recorded"
            }, then: reported.add)
        writer.flush()
        #expect(try s.visible() == ["a:failure recorded"])
        #expect(reported.all == ["a recorded"])
    }

    @Test("workers hand over and go on: stage returns before the writer thread has run the write")
    func stageDoesNotWaitForTheWrite() throws {
        let s = try Scratch()
        let writer = BatchingWriter(s.writerDB, maxStudents: 100, maxAge: 3600)
        defer { writer.stop() }
        let release = NSCondition()
        var released = false
        let reported = Reports()
        writer.stage(
            { (db) throws(StoreError) -> String in
                release.lock()
                while !released { release.wait() }
                release.unlock()
                return "slow"
            }, then: reported.add)
        writer.stage(night("b"), then: reported.add)
        // Both calls returned while the first write is still blocked on the writer thread.
        release.lock()
        released = true
        release.signal()
        release.unlock()
        writer.flush()
        #expect(reported.all == ["slow", "b"])
    }

    @Test("a full batch commits at once")
    func fullBatchCommits() throws {
        let s = try Scratch()
        let writer = BatchingWriter(s.writerDB, maxStudents: 2, maxAge: 3600)
        defer { writer.stop() }
        let reported = Reports()
        writer.stage(night("a"), then: reported.add)
        writer.stage(night("b"), then: reported.add)
        writer.drain()
        #expect(try s.visible().count == 4)
        #expect(reported.all == ["a", "b"])
        writer.stage(night("c"), then: reported.add)
        writer.drain()
        #expect(reported.all == ["a", "b"])
    }

    @Test("an open batch is committed when it is old, without waiting for another student")
    func agedBatchCommits() throws {
        let s = try Scratch()
        let writer = BatchingWriter(s.writerDB, maxStudents: 100, maxAge: 0.05)
        defer { writer.stop() }
        let reported = Reports()
        writer.stage(night("a"), then: reported.add)
        // Waits for the event, not for a time: the bound only keeps a broken writer from hanging the suite.
        let deadline = Date().addingTimeInterval(30)
        while reported.all.isEmpty && Date() < deadline { usleep(5_000) }
        #expect(reported.all == ["a"])
        #expect(try s.visible() == ["a:changeset", "a:user run"])
    }

    @Test("the run's own rows are written after the open batch is committed")
    func performCommitsTheBatchFirst() throws {
        let s = try Scratch()
        let writer = BatchingWriter(s.writerDB, maxStudents: 100, maxAge: 3600)
        defer { writer.stop() }
        let reported = Reports()
        writer.stage(night("a"), then: reported.add)
        _ = try writer.perform { (db) throws(StoreError) in
            try db.write { (db) throws(StoreError) in
                try db.execute("INSERT INTO notes VALUES ('run', 'finished')", [])
            }
        }
        #expect(reported.all == ["a"])
        #expect(try s.visible() == ["a:changeset", "a:user run", "run:finished"])
    }
}

/// Completions, collected from whichever thread calls them.
typealias Reports = Shared<[String]>

extension Shared<[String]> {
    func add(_ result: Result<String, StoreError>) {
        switch result {
        case .success(let name): append(name)
        case .failure(let error): append("failed: \(error)")
        }
    }
}
