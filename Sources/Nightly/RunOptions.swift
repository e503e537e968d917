import Foundation
import Planning

/// How `replan run` chooses and processes users.
public struct RunOptions: Sendable {
    /// Only these users (empty: everyone).
    public var userIDs: [String] = []
    /// Re-plan users already done for their plan date, and ignore `runAfter`.
    public var force = false
    /// A user is due once their local time has passed this (cli.md: 03:00).
    public var runAfter = TimeOfDay(hour: 3, minute: 0)
    /// User pipelines in flight at once.
    public var concurrency = 8
    public var now: Date

    public init(now: Date) { self.now = now }

    public var json: JSONValue {
        ["users": .array(userIDs.map { .string($0) }), "force": .bool(force), "runAfter": .string(runAfter.description),
         "concurrency": .int(concurrency), "now": .string(Timestamp.text(now))]
    }
}
