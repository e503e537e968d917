/// One change to an occurrence, as a student reads it: what moved, was skipped, deleted,
/// created or updated, from where to where, and why.
public struct PlanEdit: Hashable, Sendable {
    public enum Operation: String, Sendable, Hashable, Codable { case move, skip, delete, create, update }

    /// Why an edit was made: a local rule's reason, or the model's.
    public enum Reason: String, Sendable, Hashable, Codable {
        case makeUp = "make-up"
        case chainShift = "chain-shift"
        case rescheduled
        /// A missed session of a course appended after the series' end (planning.md §4 `shift`).
        case seriesShift = "series-shift"
        /// A missed session of a habit, skipped (planning.md §4 `skip`).
        case missed
        case droppedStale = "dropped-stale"
        case model
        case manual
    }

    public var op: Operation
    public var id: OccurrenceID
    public var title: String
    public var before: TimeRange?
    public var after: TimeRange?
    public var reason: Reason
    /// Free text from the model (or a rule) that explains the edit; may be empty.
    public var detail: String

    public init(op: Operation, id: OccurrenceID, title: String, before: TimeRange?, after: TimeRange?,
                reason: Reason, detail: String = "") {
        self.op = op; self.id = id; self.title = title; self.before = before; self.after = after
        self.reason = reason; self.detail = detail
    }
}

/// A local start and end (all-day ranges use midnights of the first and last day).
public struct TimeRange: Hashable, Sendable {
    public var start: CivilDateTime
    public var end: CivilDateTime

    public init(start: CivilDateTime, end: CivilDateTime) { self.start = start; self.end = end }
    public init(_ o: Occurrence) { self.start = o.start; self.end = o.end }
}

/// Something the rules could not decide alone, attached to an occurrence.
public struct PlanFlag: Hashable, Sendable {
    public enum Kind: String, Sendable, Hashable, Codable {
        case needsDecision = "needs-decision"
        case couldNotFit = "could-not-fit"
    }

    public var id: OccurrenceID
    public var kind: Kind
    /// How many occurrences the flag stands for: a kept category's stale sessions are flagged
    /// once per task with their number (planning.md §2); 1 otherwise.
    public var count: Int

    public init(id: OccurrenceID, kind: Kind, count: Int = 1) { self.id = id; self.kind = kind; self.count = count }
}

/// Summary counts of one night's local rules (planning.md §8): dropped (stale deletes and
/// skips), skipped (a habit's missed sessions), rescheduled (every move), of which chained
/// (moves with reason make-up, chain-shift or series-shift).
public struct PlanSummary: Hashable, Sendable {
    public var dropped = 0
    public var skipped = 0
    public var rescheduled = 0
    public var chained = 0

    public init(dropped: Int = 0, skipped: Int = 0, rescheduled: Int = 0, chained: Int = 0) {
        self.dropped = dropped; self.skipped = skipped; self.rescheduled = rescheduled; self.chained = chained
    }
}
