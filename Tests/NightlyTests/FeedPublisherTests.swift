import Foundation
import Nightly
import Planning
import Store
import Testing

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
}
