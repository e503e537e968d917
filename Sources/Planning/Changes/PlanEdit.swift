/// One change to an occurrence, as a student reads it: what moved, was skipped, deleted,
/// created or updated, from where to where, and why.
package struct PlanEdit: Hashable, Sendable {
    package enum Operation: String, Sendable, Hashable, Codable, CaseIterable {
        case move, skip, delete, create, update
    }

    /// Why an edit was made: a local rule's reason, or the model's.
    package enum Reason: String, Sendable, Hashable, Codable, CaseIterable {
        case makeUp = "make-up"
        case chainShift = "chain-shift"
        case rescheduled
        /// A missed session of a course appended after the series' end (docs/planning.md §4 `shift`).
        case seriesShift = "series-shift"
        /// A missed session of a habit, skipped (docs/planning.md §4 `skip`).
        case missed
        case droppedStale = "dropped-stale"
        case model
        case manual
    }

    package var op: Operation
    package var id: OccurrenceID
    package var title: String
    package var before: TimeRange?
    package var after: TimeRange?
    package var reason: Reason
    /// Free text from the model (or a rule) that explains the edit; may be empty.
    package var detail: String

    package init(
        op: Operation, id: OccurrenceID, title: String, before: TimeRange?, after: TimeRange?,
        reason: Reason, detail: String = ""
    ) {
        self.op = op
        self.id = id
        self.title = title
        self.before = before
        self.after = after
        self.reason = reason
        self.detail = detail
    }
}

/// A local start and end (all-day ranges use midnights of the first and last day).
package struct TimeRange: Hashable, Sendable {
    package var start: CivilDateTime
    package var end: CivilDateTime

    package init(start: CivilDateTime, end: CivilDateTime) {
        self.start = start
        self.end = end
    }
    package init(_ o: Occurrence) {
        self.start = o.start
        self.end = o.end
    }
}

/// Something the rules could not decide alone, attached to an occurrence.
package struct PlanFlag: Hashable, Sendable {
    package enum Kind: String, Sendable, Hashable, Codable, CaseIterable {
        case needsDecision = "needs-decision"
        case couldNotFit = "could-not-fit"
    }

    package var id: OccurrenceID
    package var kind: Kind
    /// How many occurrences the flag stands for: a kept category's stale sessions are flagged
    /// once per task with their number (docs/planning.md §2); 1 otherwise.
    package var count: Int
    /// The task's title: a student reads "Essay [2/3] could not fit", not an id.
    package var title: String

    package init(id: OccurrenceID, kind: Kind, count: Int = 1, title: String = "") {
        self.id = id
        self.kind = kind
        self.count = count
        self.title = title
    }
}

/// Summary counts of one night's local rules (docs/planning.md §8): dropped (stale deletes and
/// skips), skipped (a habit's missed sessions), rescheduled (every move), of which chained
/// (moves with reason make-up, chain-shift or series-shift).
package struct PlanSummary: Hashable, Sendable {
    package var dropped = 0
    package var skipped = 0
    package var rescheduled = 0
    package var chained = 0

    package init(dropped: Int = 0, skipped: Int = 0, rescheduled: Int = 0, chained: Int = 0) {
        self.dropped = dropped
        self.skipped = skipped
        self.rescheduled = rescheduled
        self.chained = chained
    }

    /// The fields' names as reports and the texts of `NoteTexts` spell them.
    package static let fields = ["dropped", "skipped", "rescheduled", "chained"]
}
