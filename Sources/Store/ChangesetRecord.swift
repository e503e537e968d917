import Foundation
import Planning

/// A stored changeset without its edits (what `log` lists).
public struct ChangesetHeader: Hashable, Sendable {
    public var id: ChangesetID
    public var userID: String
    public var createdAt: Date
    public var origin: ChangesetOrigin
    public var planDate: CivilDate?
    public var state: ChangesetState
    public var summary: JSONValue

    public init(id: ChangesetID, userID: String, createdAt: Date, origin: ChangesetOrigin, planDate: CivilDate?,
                state: ChangesetState, summary: JSONValue) {
        self.id = id; self.userID = userID; self.createdAt = createdAt; self.origin = origin
        self.planDate = planDate; self.state = state; self.summary = summary
    }
}

/// A stored changeset with its edits and report (what `show` prints).
public struct ChangesetRecord: Hashable, Sendable {
    public var header: ChangesetHeader
    /// In application order (statistic rows first).
    public var edits: [ChangesetEdit]
    public var report: JSONValue

    public init(header: ChangesetHeader, edits: [ChangesetEdit], report: JSONValue) {
        self.header = header; self.edits = edits; self.report = report
    }
}
