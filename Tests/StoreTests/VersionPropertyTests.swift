import Foundation
import JSON
import Planning
import ReplanTestSupport
import Testing

@testable import Store

/// Issue 13's version rule as a property: random interleavings of manual edits, imports,
/// nightly runs and model edits (each a changeset built from a plan read some steps earlier,
/// as a night that waits on the model is), undos and redos, on one database. A write lands
/// exactly when every row it touches still is what its changeset read; otherwise it is
/// refused as a conflict naming the changed rows. And a (row, version) pair never names two
/// contents, whatever was deleted, undone or re-created.
@Suite struct VersionPropertyTests {
    /// Every stored plan row of the user, by "entity|key", as its image.
    static func rows(_ f: Fixture) throws -> [String: JSONValue] {
        let plan = try f.plans.loadPlan(userID: "mei", window: nil)
        var rows: [String: JSONValue] = [:]
        for t in plan.sortedTasks { rows["task|\(t.id)"] = RowImage.task(t) }
        for o in plan.allOverrides { rows["override|\(o.occurrenceID)"] = RowImage.override(o) }
        for s in plan.allSlides { rows["slide|\(s.key)"] = RowImage.slide(s) }
        return rows
    }

    static let ids = ["a", "b", "c", "d", "s"]
    static let origins: [ChangesetOrigin] = [.manual, .import, .nightly]

    /// One random change of a plan as read: what a student, an import, the rules or the model
    /// might do to it.
    static func mutate(_ plan: UserPlan, _ g: inout SeededRandom, step: Int) -> UserPlan {
        var w = plan
        let id = ids.randomElement(using: &g)!
        let day = Int.random(in: 6...12, using: &g)
        let dayText = String(format: "2025-01-%02d", day)
        switch Int.random(in: 0..<6, using: &g) {
        case 0: // (re)create, or replace as an import would
            if id == "s" {
                w.put(series("s", "2025-01-06T18:00", "2025-01-06T19:00"))
            } else {
                var t = oneOff(id, "\(dayText)T10:00", "\(dayText)T11:00")
                t.title = "created at step \(step)"
                t.version = w.tasks[id]?.version ?? 1
                w.put(t)
            }
        case 1: // retitle
            if var t = w.tasks[id] {
                t.title = "step \(step)"
                w.put(t)
            }
        case 2: // delete
            w.deleteTask(id)
        case 3: // move
            if w.tasks[id]?.isSeries == true {
                w.move(
                    OccurrenceID(taskID: id, originalDate: date(dayText)), start: at("\(dayText)T08:00"),
                    end: at("\(dayText)T09:00"))
            } else if w.tasks[id] != nil {
                w.move(
                    OccurrenceID(taskID: id), start: at("\(dayText)T1\(step % 10):00"),
                    end: at("\(dayText)T1\(step % 10):30"))
            }
        case 4: // complete
            w.complete(
                w.tasks[id]?.isSeries == true
                    ? OccurrenceID(taskID: id, originalDate: date(dayText)) : OccurrenceID(taskID: id))
        default: // skip a series occurrence
            w.skip(OccurrenceID(taskID: "s", originalDate: date(dayText)))
        }
        return w
    }

    @Test(arguments: [1, 2, 3, 4, 5, 6, 7, 8] as [UInt64])
    func noWriteLandsOnARowChangedSinceItsChangesetReadIt(seed: UInt64) throws {
        var g = SeededRandom(seed: seed)
        let (f, _) = try Fixture.seeded(tasks: [
            oneOff("a", "2025-01-07T10:00", "2025-01-07T11:00"),
            series("s", "2025-01-06T18:00", "2025-01-06T19:00"),
        ])
        var pending: [UserPlan] = []
        var changesets: [ChangesetID] = []
        var seen: [String: JSONValue] = [:]
        var landed = 0
        var refused = 0

        func observe(_ what: String) throws {
            for (identity, image) in try Self.rows(f) {
                let version = image["version"]?.intValue ?? -1
                let key = "\(identity)#\(version)"
                if let earlier = seen[key] {
                    #expect(
                        earlier == image, "seed \(seed), \(what): \(identity) version \(version) names two contents")
                } else {
                    seen[key] = image
                }
            }
        }
        try observe("seed")

        for step in 0..<160 {
            let current = try Self.rows(f)
            switch Int.random(in: 0..<10, using: &g) {
            case 0...2: // a changeset reads the plan now and writes later
                pending.append(try f.plans.loadPlan(userID: "mei", window: nil))
                if pending.count > 3 { pending.removeFirst() }
            case 3...6: // a changeset built from a plan read earlier writes now
                guard !pending.isEmpty else { continue }
                let read = pending.remove(at: Int.random(in: 0..<pending.count, using: &g))
                let working = Self.mutate(read, &g, step: step)
                let changes = PlanDiff.changes(from: read, to: working, now: Fixture.now) { _, _ in "step \(step)" }
                guard !changes.isEmpty else { continue }
                let unchanged = changes.allSatisfy { current["\($0.entity.rawValue)|\($0.key)"] == $0.before }
                let origin = Self.origins.randomElement(using: &g)!
                let outcome = storeError { () throws(StoreError) in
                    changesets.append(
                        try f.changesets.commit(
                            NewChangeset(
                                userID: "mei", origin: origin, planDate: nil,
                                createdAt: Fixture.now, changes: changes)))
                }
                try check(
                    outcome, unchanged: unchanged,
                    expected: Dictionary(
                        changes.map { ("\($0.entity.rawValue)|\($0.key)", $0.before) },
                        uniquingKeysWith: { a, _ in a }), current: current,
                    what: "step \(step) \(origin) commit")
            default: // undo or redo a changeset, as the student would
                guard let id = changesets.randomElement(using: &g) else { continue }
                let record = try f.changesets.changeset(id)
                let undo = record.header.state == .applied
                let steps = (undo ? record.edits.reversed().map(\.inverted) : record.edits).filter {
                    $0.entity != .statistic
                }
                let unchanged = steps.allSatisfy { current["\($0.entity.rawValue)|\($0.key)"] == $0.before }
                let outcome = storeError { () throws(StoreError) in
                    if undo {
                        try f.changesets.undo(changesetID: id, now: Fixture.later)
                    } else {
                        try f.changesets.redo(changesetID: id, now: Fixture.later)
                    }
                }
                try check(
                    outcome, unchanged: unchanged,
                    expected: Dictionary(
                        steps.map { ("\($0.entity.rawValue)|\($0.key)", $0.before) }, uniquingKeysWith: { a, _ in a }),
                    current: current, what: "step \(step) \(undo ? "undo" : "redo") \(id)")
            }
            try observe("step \(step)")
        }

        /// Landed only when nothing it touches changed; a refusal names only rows that did
        /// change (or a structural reason: a deleted task gained a child, a child lost its task).
        func check(
            _ outcome: StoreError?, unchanged: Bool, expected: [String: JSONValue?], current: [String: JSONValue],
            what: String
        ) throws {
            switch outcome {
            case nil:
                landed += 1
                #expect(unchanged, "seed \(seed), \(what) landed on a row changed since its changeset read it")
            case .conflict(let c)?:
                refused += 1
                let changedRows = c.rows.filter { $0.kind == .changed }
                #expect(!c.rows.isEmpty)
                for row in changedRows {
                    let identity = "\(row.entity.rawValue)|\(row.key)"
                    #expect(
                        current[identity] != expected[identity] ?? nil,
                        "seed \(seed), \(what): \(row) is named but did not change")
                }
                if unchanged {
                    #expect(changedRows.isEmpty, "seed \(seed), \(what): refused though nothing changed: \(c.rows)")
                }
            case let other?:
                Issue.record("seed \(seed), \(what): \(other)")
            }
        }
        // The run exercised both outcomes.
        #expect(landed > 10 && refused > 3, "seed \(seed): \(landed) landed, \(refused) refused")
    }
}

/// Issue 13: a stored transcript has a size limit; the first messages that fit are kept.
@Suite struct TranscriptLimitTests {
    @Test func aTranscriptBeyondTheLimitKeepsItsFirstMessagesAndSaysSo() {
        let messages = JSONValue.array(
            (0..<10).map { i in ["role": "assistant", "content": .string(String(repeating: "x", count: 1000) + "\(i)")]
            })
        #expect(RunStore.boundedTranscript(messages, limit: 1 << 20) == messages.text, "under the limit: unchanged")
        let cut = RunStore.boundedTranscript(messages, limit: 4000)
        #expect(cut.utf8.count <= 4000)
        let kept = (try? JSONValue(parsing: cut))?.arrayValue
        #expect(kept?.count == 4)
        #expect(
            kept?.last?["content"]?.stringValue
                == "transcript truncated: 3 of 10 messages kept (limit 0 MiB per user run)")
    }
}

/// The nightly job renders its images' text ahead (`NewChangeset.renderText`); the commit
/// patches the version into that text, which must equal the image it would have rendered.
@Suite struct PrerenderedImageVersionTests {
    @Test(arguments: EngineUnderTest.engines) func aPrerenderedAfterImageCarriesTheFreshVersionLikeTheRow(
        _ engine: DatabaseEngine
    ) throws {
        let (f, _) = try Fixture.seeded(
            engine,
            tasks: [
                oneOff("m1", "2025-01-07T14:00", "2025-01-07T15:00"),
                series("eng", "2025-01-06T10:00", "2025-01-06T11:00"),
            ])
        let original = try f.plans.loadPlan(userID: "mei", window: nil)
        var working = original
        working.complete(OccurrenceID(taskID: "m1"))
        working.skip(OccurrenceID(taskID: "eng", originalDate: date("2025-01-07")))
        working.addSlide(taskID: "eng", from: date("2025-01-09"), days: 1)
        var changeset = NewChangeset(
            userID: "mei", origin: .nightly, planDate: nil, createdAt: Fixture.later,
            changes: PlanDiff.changes(from: original, to: working, now: Fixture.later) { _, _ in "night" })
        changeset.renderText()
        let id = try f.changesets.commit(changeset)
        let stored = try f.db.query(
            "SELECT after FROM changeset_edits WHERE changeset_id = ? AND entity <> 'statistic'",
            [.text(id.rawValue)]
        ) { $0.text(0) }
        let rows = try VersionPropertyTests.rows(f)
        #expect(stored.count == 3)
        for text in stored {
            let image = try JSONValue(parsing: text)
            #expect(text == image.text, "canonical text")
            let key =
                image["id"] != nil
                ? "task|\(image["id"]!.stringValue!)"
                : image["days"] != nil
                    ? "slide|\(image["task"]!.stringValue!)@\(image["from"]!.stringValue!)"
                    : "override|\(image["task"]!.stringValue!)@\(image["date"]!.stringValue!)"
            #expect(rows[key] == image, "\(key): the stored after image is the row as written")
        }
    }

    @Test func stampingTextRewritesOnlyTheTrailingVersion() {
        #expect(VersionClock.stamp(text: #"{"a":1,"version":7}"#, 12) == #"{"a":1,"version":12}"#)
        #expect(VersionClock.stamp(text: #"{"version":7,"a":1}"#, 12) == nil)
        #expect(
            VersionClock.stamp(text: #"{"a":"x,\"version\":1","version":3}"#, 4)
                == #"{"a":"x,\"version\":1","version":4}"#)
    }
}
