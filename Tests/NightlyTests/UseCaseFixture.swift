import Foundation
import Nightly
import Planning
import Store
import Testing

extension NightlyFixture {
    /// The fixture's database as the use cases open it.
    func database() throws -> ReplanDatabase { try ReplanDatabase.open(path: path) }

    /// Moves one of `s0`'s course sessions by hand (a `manual` changeset) and returns it.
    @discardableResult
    func moveByHand(_ taskID: String, to start: String, db: ReplanDatabase) throws -> ManualEditor.Change {
        let editor = ManualEditor(database: db, userID: "s0", now: NightlyFixture.now)
        let original = try editor.loadPlan()
        var working = original
        var task = try #require(original.tasks[taskID])
        let length = task.end.minuteNumber - task.start.minuteNumber
        task.start = try #require(CivilDateTime(start))
        task.end = task.start.adding(minutes: length)
        working.put(task)
        return try #require(try editor.commit(original: original, working: working))
    }

    /// The stored start of a task.
    func start(of taskID: String) throws -> String? {
        try connect().queryFirst("SELECT start FROM tasks WHERE id = ?", [.text(taskID)]) { $0.text(0) }
    }
}
