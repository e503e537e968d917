import Foundation
import Nightly
import Planning
import ReplanTestSupport
import Store
import Testing

/// Issue 22 on a real PostgreSQL server, with three workers in one process (each a
/// `NightlyRunner` with a name of its own, sharing the night through claims as separate
/// machines would): the app's backend edits students with plain SQL while the night runs, and
/// the night is one story in `log` and `night`.
@Suite(.enabled(if: EngineUnderTest.engines.contains(.postgresql)))
struct SharedNightTests {
    static let students = 60
    /// Students the backend edits while the model "thinks" about them: between the night's
    /// read and its commit, so that commit must be refused (as on one worker).
    static func editedDuringReview(_ i: Int) -> Bool { i % 6 == 0 }
    /// Students the backend edits from its own thread at moments the night does not choose:
    /// before their read (planned around), between read and commit (refused) or after.
    static func editedMeanwhile(_ i: Int) -> Bool { i % 6 == 3 }

    /// The model stage; with `backend`, the backend edits the student meanwhile.
    struct BackendDuringReview: ModelReviewer {
        let backend: String?
        func review(_ working: UserPlan, local: PostponementResult, now: Date) -> ModelReview {
            let id = working.user.id
            if let path = backend, let i = Int(id.dropFirst()), SharedNightTests.editedDuringReview(i),
                let backend = try? PostgresConnection.connect(path)
            {
                _ = try? backend.execute("UPDATE tasks SET note = 'BACKEND' WHERE id = ?", [.text("\(id)-eng-2")])
            }
            return ModelReview(plan: working, ending: .endConversation, requests: 1, turns: 1)
        }
    }

    /// Runs `workers` runners side by side, one thread each, and returns their reports.
    static func night(_ path: String, _ name: String, workers: Int, reviewer: any ModelReviewer) throws
        -> [NightlyRunner.Report]
    {
        let reports = Shared<[NightlyRunner.Report]>()
        let errors = Shared<[String]>()
        let group = DispatchGroup()
        // Threads of their own, all at once (a dispatch queue may run them one after another
        // on a small machine, and a worker that starts after the others stopped is another night).
        for w in 0..<workers {
            group.enter()
            Thread {
                defer { group.leave() }
                work(w)
            }.start()
        }
        group.wait()
        @Sendable func work(_ w: Int) {
            var options = RunOptions(now: NightlyFixture.now)
            options.concurrency = 2
            options.lease = 5
            options.workerID = "\(name)-worker-\(w)"
            do {
                let report = try NightlyRunner(
                    databasePath: path, pipeline: UserPipeline(reviewer: reviewer), options: options
                ).run()
                reports.append(report)
            } catch {
                errors.append("\(error)")
            }
        }
        #expect(errors.value.isEmpty, "\(errors.value)")
        return reports.value
    }

    static func notes(_ db: any SQLExecutor) throws -> [String: String] {
        Dictionary(
            uniqueKeysWithValues: try db.query("SELECT id, note FROM tasks WHERE id LIKE '%-eng-2'", []) {
                ($0.text(0), $0.text(1))
            })
    }

    @Test func aBackendEditDuringAMultiWorkerNightIsNeverOverwritten() throws {
        let f = try NightlyFixture(engine: .postgresql)
        try f.addStudents(Self.students, instruction: "two hours of English every weekday")
        let path = f.path
        let meanwhile = (0..<Self.students).filter(Self.editedMeanwhile)
        let stop = Shared(false)
        let lastWritten = Shared<[String: String]>([:])
        let backend = Thread {
            guard let db = try? PostgresConnection.connect(path) else { return }
            var round = 0
            // Edit each of them again and again until the night ends, so some edits land
            // between a worker's read and its commit.
            while !stop.value {
                for i in meanwhile {
                    let note = "BACKEND \(round)"
                    if (try? db.execute("UPDATE tasks SET note = ? WHERE id = ?", [.text(note), .text("s\(i)-eng-2")]))
                        == 1
                    {
                        lastWritten.update { $0["s\(i)-eng-2"] = note }
                    }
                    usleep(2_000)
                }
                round += 1
            }
        }
        backend.start()
        let reports = try Self.night(path, "first", workers: 3, reviewer: BackendDuringReview(backend: path))
        stop.set(true)
        while !backend.isFinished { usleep(1000) }

        let db = try f.connect()
        let notes = try Self.notes(db)
        for i in 0..<Self.students {
            let note = notes["s\(i)-eng-2"]
            if Self.editedDuringReview(i) {
                #expect(note == "BACKEND", "s\(i): the backend's edit during the review is kept")
            } else if Self.editedMeanwhile(i) {
                #expect(
                    note != nil && note == lastWritten.value["s\(i)-eng-2"],
                    "s\(i): the backend's last edit is kept: \(note ?? "nil")")
            } else {
                #expect(note == "", "s\(i)")
            }
        }
        let most = try db.queryFirst(
            "SELECT count(*) FROM changesets WHERE origin = 'nightly' GROUP BY user_id ORDER BY 1 DESC LIMIT 1", []
        ) { $0.int(0) }
        #expect((most ?? 0) == 1, "nobody was planned twice")
        for i in (0..<Self.students).filter(Self.editedDuringReview) {
            let nightly = try db.queryFirst(
                "SELECT count(*) FROM changesets WHERE origin = 'nightly' AND user_id = ?", [.text("s\(i)")]
            ) { $0.int(0) }
            #expect(nightly == 0, "s\(i): the night that read the plan before the edit committed nothing")
            let errors = try db.query(
                "SELECT coalesce(error, '') FROM user_runs WHERE user_id = ? AND status = 'failed'", [.text("s\(i)")]
            ) { $0.text(0) }
            #expect(errors.contains { $0.contains("s\(i)-eng-2") }, "s\(i): its record names the row: \(errors)")
        }

        // The night is one story: one line in log across the three workers, and `night` counts
        // every claim finished by one of them.
        let log = try RunLog(database: ReplanDatabase.open(path: path)).entries(RunLog.Query())
        #expect(log.nights.count == 1, "one night: \(log.nights.map { $0.runs.map(\.run.id) })")
        let night = try #require(log.nights.first)
        #expect(night.runs.count == 3 && night.shared?.workers.count == 3)
        let recorded = night.runs.map(\.users).reduce(0, +)
        #expect(recorded == reports.map(\.done).reduce(0, +), "the night's due is the workers' user runs")
        let outcomes = night.runs.map { $0.changed + $0.unchanged + $0.failed }.reduce(0, +)
        #expect(outcomes == recorded)
        let progress = try #require(try RunLog(database: ReplanDatabase.open(path: path)).latestNight()?.progress)
        #expect(progress.total.due == Self.students && progress.total.pending == 0 && progress.total.claimed == 0)
        #expect(progress.total.done + progress.total.failed == Self.students, "\(progress.total)")
        #expect(progress.night.finishedAt != nil && progress.night.workers.allSatisfy { $0.state == .stopped })

        // The next run plans the refused students from the edited rows; every edit survives.
        let second = try Self.night(path, "second", workers: 1, reviewer: BackendDuringReview(backend: nil))
        #expect(second.first?.failed == 0, "\(second)")
        #expect(try Self.notes(db) == notes, "the second night kept every backend edit too")
        #expect(
            try db.queryFirst(
                "SELECT count(*) FROM (SELECT user_id FROM changesets WHERE origin = 'nightly' GROUP BY user_id HAVING count(*) = 1) s",
                []
            ) { $0.int(0) } == Self.students, "after the retry every student has exactly one nightly changeset")
        let two = try RunLog(database: ReplanDatabase.open(path: path)).entries(RunLog.Query())
        #expect(
            two.nights.count == 2 && two.nights.first?.runs.count == 1,
            "the retry is a night of its own: \(two.nights.map { $0.runs.map(\.run.id) })")
    }
}
