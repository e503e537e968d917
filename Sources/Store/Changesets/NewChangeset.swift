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
    /// Focus sessions the changeset adds (`EditEntity.focus` edits, an import's): committed,
    /// checked, undone and redone with the plan's changes.
    package var focusEdits: [ChangesetEdit] = []
    /// The student's profile and settings as the changeset changes them (an `EditEntity.user`
    /// edit keyed by `userID`, `ProfileImage`s; an import's): before nil creates the student,
    /// and undo removes them again. Applied first, undone last.
    package var profileEdit: ChangesetEdit?
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
        /// The before and after image of each change, in the order of `changes`. Read only
        /// through `changesToStore`, which pairs them with their change.
        fileprivate var images: [ImageText]
    }

    /// The JSON text of one change's before and after image.
    struct ImageText: Sendable {
        var before: String?
        var after: String?
    }

    /// Writes the JSON text of the summary, report and images now, so the commit only stores it.
    /// The nightly job calls this on its worker threads, so the one writer thread does not
    /// spend its time writing text.
    package mutating func renderText() {
        let images = changes.map { ImageText(before: $0.before?.text, after: $0.after?.text) }
        text = Text(summary: summary.text, report: reportText, images: images)
    }

    /// Each change with the text of its images when `renderText()` wrote it ahead (nil when it
    /// did not, or when anything changed since): the pairing is made here, where `text` is
    /// dropped on every change of `changes`, so a caller cannot match text to the wrong change.
    var changesToStore: [(change: RowChange, text: ImageText?)] {
        guard let images = text?.images else { return changes.map { ($0, nil) } }
        return zip(changes, images).map { ($0, $1) }
    }

    /// The summary's text as stored: the text written ahead, or written now.
    var summaryText: String { text?.summary ?? summary.text }

    /// The report's text as stored: `report`, with `reportMember` added.
    var reportText: String {
        if let written = text?.report { return written }
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
