import Foundation
import Nightly
import Planning
import Store
import Testing

#if canImport(Glibc)
    import Glibc
#endif

@Suite("Feeds as a use case: one file per student, every student handed out once")
struct FeedPublisherTests {
    @Test("every student gets DIR/<id>.ics; --user limits the pass; an unknown one is bad input")
    func publish() throws {
        let f = try NightlyFixture()
        try f.addStudents(5)
        let out = f.directory.appendingPathComponent("feeds").path
        try FileManager.default.createDirectory(atPath: out, withIntermediateDirectories: true)
        let feeds = FeedPublisher(
            databasePath: f.path, directory: out, now: NightlyFixture.now, daysBack: 14, daysAhead: 60)
        let db = try f.database()
        let all = try feeds.publish(only: [], database: db, workers: 3, shouldStop: { false }, log: { _ in })
        #expect(all.written == 5 && all.failed == 0)
        #expect(all.handedOut == ["s0", "s1", "s2", "s3", "s4"])
        let files = try FileManager.default.contentsOfDirectory(atPath: out).sorted()
        #expect(files == ["s0.ics", "s1.ics", "s2.ics", "s3.ics", "s4.ics"])
        let one = try feeds.publish(only: ["s3"], database: db, workers: 2, shouldStop: { false }, log: { _ in })
        #expect(one.written == 1 && one.handedOut == ["s3"])
        #expect(throws: UseCaseError.badInput("no user 'nobody'")) {
            try feeds.publish(only: ["nobody"], database: db, workers: 1, shouldStop: { false }, log: { _ in })
        }
    }

    @Test("a pass told to stop hands out no student")
    func stops() throws {
        let f = try NightlyFixture()
        try f.addStudents(3)
        let out = f.directory.path
        let feeds = FeedPublisher(
            databasePath: f.path, directory: out, now: NightlyFixture.now, daysBack: 14, daysAhead: 60)
        let stopped = try feeds.publish(
            only: [], database: try f.database(), workers: 2, shouldStop: { true }, log: { _ in })
        #expect(stopped.written == 0 && stopped.handedOut.isEmpty)
    }

    /// A fresh feed directory of mode `mode` under the fixture's directory.
    static func feedDirectory(_ f: NightlyFixture, mode: Int16 = 0o755) throws -> String {
        let out = f.directory.appendingPathComponent("feeds").path
        try FileManager.default.createDirectory(atPath: out, withIntermediateDirectories: true)
        #expect(chmod(out, mode_t(mode)) == 0)
        return out
    }

    @Test("a link planted at a feed's temporary name is replaced, never written through (issue 28, item 3)")
    func plantedLink() throws {
        let f = try NightlyFixture()
        try f.addStudents(1)
        let out = try Self.feedDirectory(f)
        let victim = f.directory.appendingPathComponent("victim").path
        try "precious".write(toFile: victim, atomically: false, encoding: .utf8)
        #expect(chmod(victim, 0o600) == 0)
        let planted = (out as NSString).appendingPathComponent(".s0.ics.\(getpid()).tmp")
        try FileManager.default.createSymbolicLink(atPath: planted, withDestinationPath: victim)
        let feeds = FeedPublisher(
            databasePath: f.path, directory: out, now: NightlyFixture.now, daysBack: 14, daysAhead: 60)
        let done = try feeds.publish(
            only: ["s0"], database: try f.database(), workers: 1, shouldStop: { false }, log: { _ in })
        #expect(done.written == 1 && done.failed == 0)
        #expect(try String(contentsOfFile: victim, encoding: .utf8) == "precious")
        let attributes = try FileManager.default.attributesOfItem(atPath: victim)
        #expect((attributes[.posixPermissions] as? Int) == 0o600)
        let feed = try String(contentsOfFile: (out as NSString).appendingPathComponent("s0.ics"), encoding: .utf8)
        #expect(feed.hasPrefix("BEGIN:VCALENDAR"))
        #expect(FileManager.default.fileExists(atPath: planted) == false)
    }

    @Test("a feed directory writable by others is refused unless sticky and ours (issue 28, item 3)")
    func sharedDirectory() throws {
        let f = try NightlyFixture()
        try f.addStudents(1)
        let db = try f.database()
        for mode: Int16 in [0o777, 0o775, 0o757] {
            let out = try Self.feedDirectory(f, mode: mode)
            let feeds = FeedPublisher(
                databasePath: f.path, directory: out, now: NightlyFixture.now, daysBack: 14, daysAhead: 60)
            do {
                _ = try feeds.publish(only: [], database: db, workers: 1, shouldStop: { false }, log: { _ in })
                Issue.record("mode \(String(mode, radix: 8)) was accepted")
            } catch {
                #expect(error.kind == .cannotOpenDatabase && error.message.contains("writable by other users"))
            }
            #expect(try FileManager.default.contentsOfDirectory(atPath: out).isEmpty)
        }
        // Sticky and owned by this user (like /tmp, but ours): accepted.
        let out = try Self.feedDirectory(f, mode: 0o1777)
        let feeds = FeedPublisher(
            databasePath: f.path, directory: out, now: NightlyFixture.now, daysBack: 14, daysAhead: 60)
        let done = try feeds.publish(only: [], database: db, workers: 1, shouldStop: { false }, log: { _ in })
        #expect(done.written == 1)
    }

    @Test("temporaries left by a pass that died are removed; a live pass's are kept (issue 28, item 3)")
    func staleTemporaries() throws {
        let f = try NightlyFixture()
        try f.addStudents(1)
        let out = try Self.feedDirectory(f)
        // No process has this id (above the kernel's pid_max).
        let dead = (out as NSString).appendingPathComponent(".s9.ics.2147483646.tmp")
        let live = (out as NSString).appendingPathComponent(".s8.ics.1.tmp")
        let other = (out as NSString).appendingPathComponent("notes.tmp")
        for path in [dead, live, other] { try "half".write(toFile: path, atomically: false, encoding: .utf8) }
        let feeds = FeedPublisher(
            databasePath: f.path, directory: out, now: NightlyFixture.now, daysBack: 14, daysAhead: 60)
        _ = try feeds.publish(only: [], database: try f.database(), workers: 1, shouldStop: { false }, log: { _ in })
        let names = Set(try FileManager.default.contentsOfDirectory(atPath: out))
        #expect(names == ["s0.ics", ".s8.ics.1.tmp", "notes.tmp"])
    }

    @Test("the same student twice is written once, never racing itself (issue 28, item 16)")
    func sameStudentTwice() throws {
        let f = try NightlyFixture()
        try f.addStudents(2)
        let out = try Self.feedDirectory(f)
        let feeds = FeedPublisher(
            databasePath: f.path, directory: out, now: NightlyFixture.now, daysBack: 14, daysAhead: 60)
        let db = try f.database()
        for _ in 0..<5 {
            let done = try feeds.publish(
                only: ["s1", "s1", "s0", "s1"], database: db, workers: 4, shouldStop: { false }, log: { _ in })
            #expect(done.written == 2 && done.failed == 0 && done.handedOut == ["s0", "s1"])
        }
    }
}
