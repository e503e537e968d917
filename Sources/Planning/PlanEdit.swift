/// One change to an occurrence, as a student reads it: what moved, was skipped, deleted,
/// created or updated, from where to where, and why.
public struct PlanEdit: Hashable, Sendable {
    public enum Operation: String, Sendable, Hashable, Codable { case move, skip, delete, create, update }

    /// Why an edit was made: a local rule's reason, or the model's.
    public enum Reason: String, Sendable, Hashable, Codable {
        case makeUp = "make-up"
        case chainShift = "chain-shift"
        case rescheduled
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

    public init(id: OccurrenceID, kind: Kind) { self.id = id; self.kind = kind }
}

/// Summary counts of one night's local rules: dropped X, rescheduled Y, of which chained Z.
public struct PlanSummary: Hashable, Sendable {
    public var dropped = 0
    public var rescheduled = 0
    public var chained = 0

    public init(dropped: Int = 0, rescheduled: Int = 0, chained: Int = 0) {
        self.dropped = dropped; self.rescheduled = rescheduled; self.chained = chained
    }
}
