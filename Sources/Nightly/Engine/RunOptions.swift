import Foundation
import JSON
import Planning

/// How `replan run` chooses and processes users.
package struct RunOptions: Sendable {
    /// Only these users (empty: everyone).
    package var userIDs: [String] = []
    /// Re-plan users already done for their plan date, and ignore `runAfter`.
    package var force = false
    /// A user is due once their local time has passed this (docs/commands.md §3: 03:00).
    package var runAfter = TimeOfDay(hour: 3, minute: 0)
    /// User pipelines in flight at once.
    package var concurrency = 8
    package var now: Date
    /// On PostgreSQL, how long (seconds) a worker's claims stay its own without a heartbeat;
    /// the heartbeat renews it every third of it (`NightClaims`).
    package var lease = 60
    /// The worker's name in claims and the night's log; nil: `host:pid:random`.
    package var workerID: String?

    package init(now: Date) { self.now = now }

    /// `--lease`'s range: long enough for a heartbeat to be late once, short enough that a
    /// dead machine's students are taken over in the same night.
    package static let leaseRange = 5...3_600

    package var json: JSONValue {
        [
            "users": .array(userIDs.map { .string($0) }), "force": .bool(force),
            "runAfter": .string(runAfter.description),
            "concurrency": .int(concurrency), "now": .string(Timestamp.text(now)),
        ]
    }
}
