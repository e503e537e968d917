import Foundation
import JSON
import Planning

/// A changeset to commit: one user's row changes (usually from `PlanDiff`), with the summary
/// and report the caller built, and the notification outbox rows to write with it.
package struct NewChangeset: Sendable {
    package var userID: String
    package var origin: ChangesetOrigin
    package var planDate: CivilDate?
    package var createdAt: Date
    package var changes: [RowChange] { didSet { text = nil } }
    /// Summary counts, free-form (e.g. `{"dropped":1,"rescheduled":3,"chained":2}`).
    package var summary: JSONValue { didSet { text = nil } }
    /// Free-form report: occurrence-level edits, flags, model info — whatever `show` needs.
    package var report: JSONValue { didSet { text = nil } }
    package var outbox: [OutboxEntry]
    /// One more member of the report, given as JSON text (`JSONTextWriter`) instead of a value:
    /// the nightly job's list of edits. The stored report is `report` with it in its sorted place.
    package var reportMember: (key: String, rawValue: String)? { didSet { text = nil } }
    /// The JSON text the commit stores, written ahead by `renderText()`; dropped by any change
    /// of what it was written from.
    package private(set) var text: Text?

    /// The stored JSON text of a changeset: its summary, report and row images.
    package struct Text: Sendable {
        package var summary: String
        package var report: String
        /// By `changes` index: the before and after image.
        var images: [(before: String?, after: String?)]
    }

    /// Writes the JSON text of the summary, report and images now, so the commit only stores it.
    /// The nightly job calls this on its worker threads: the text of a catch-up night's report
    /// and images was a quarter of the one writer thread's work.
    package mutating func renderText() {
        let images = changes.map { (before: $0.before?.text, after: $0.after?.text) }
        text = Text(summary: summary.text, report: reportText, images: images)
    }

    /// The report's text: `report`, with `reportMember` added.
    var reportText: String {
        guard let member = reportMember else { return report.text }
        return JSONValue.text(ofObject: report.objectValue ?? [:], adding: member.key, rawValue: member.rawValue)
    }

    package init(
        userID: String, origin: ChangesetOrigin, planDate: CivilDate?, createdAt: Date, changes: [RowChange],
        summary: JSONValue = [:], report: JSONValue = [:], outbox: [OutboxEntry] = []
    ) {
        self.userID = userID
        self.origin = origin
        self.planDate = planDate
        self.createdAt = createdAt
        self.changes = changes
        self.summary = summary
        self.report = report
        self.outbox = outbox
    }
}
