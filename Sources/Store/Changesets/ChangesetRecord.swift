import Foundation
import JSON
import Planning

/// A stored changeset without its edits (what `log` lists).
package struct ChangesetHeader: Hashable, Sendable {
    package var id: ChangesetID
    package var userID: String
    package var createdAt: Date
    package var origin: ChangesetOrigin
    package var planDate: CivilDate?
    package var state: ChangesetState
    package var summary: JSONValue

    package init(
        id: ChangesetID, userID: String, createdAt: Date, origin: ChangesetOrigin, planDate: CivilDate?,
        state: ChangesetState, summary: JSONValue
    ) {
        self.id = id
        self.userID = userID
        self.createdAt = createdAt
        self.origin = origin
        self.planDate = planDate
        self.state = state
        self.summary = summary
    }
}

/// A stored changeset with its edits and report (what `show` prints).
package struct ChangesetRecord: Hashable, Sendable {
    package var header: ChangesetHeader
    /// In application order (statistic rows first).
    package var edits: [ChangesetEdit]
    package var report: JSONValue

    package init(header: ChangesetHeader, edits: [ChangesetEdit], report: JSONValue) {
        self.header = header
        self.edits = edits
        self.report = report
    }
}
