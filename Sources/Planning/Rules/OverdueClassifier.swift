/// How an open occurrence stands on the night of a run (docs/planning.md §2).
package enum OverdueClass: String, Sendable, Hashable, CaseIterable {
    /// Today or later (or still running): stays unless a chain shift moves it.
    case current
    /// Missed within the last `deleteAfterDays` days: rescheduled.
    case overdue
    /// Missed longer ago: dropped, or flagged `needs-decision` when its category is kept.
    case stale
}

/// The open occurrences of one run sorted into the classes of docs/planning.md §2.
package struct OverdueClassification: Hashable, Sendable {
    package var current: [Occurrence] = []
    package var overdue: [Occurrence] = []
    /// Stale occurrences the rules drop (one-off deleted, series occurrence skipped).
    package var stale: [Occurrence] = []
    /// Stale occurrences of a kept category: never dropped, flagged `needs-decision`.
    package var kept: [Occurrence] = []
    package private(set) var classes: [OccurrenceID: OverdueClass] = [:]

    package init() {}

    package func `class`(of id: OccurrenceID) -> OverdueClass? { classes[id] }

    /// Room for `count` classes, so filling a night's classification never rehashes.
    mutating func reserveCapacity(_ count: Int) { classes.reserveCapacity(count) }

    mutating func add(_ o: Occurrence, as c: OverdueClass, kept isKept: Bool) {
        classes[o.id] = c
        switch c {
        case .current: current.append(o)
        case .overdue: overdue.append(o)
        case .stale: if isKept { kept.append(o) } else { stale.append(o) }
        }
    }
}

/// Sorts open occurrences into current, overdue and stale, in the user's local dates.
///
/// `today − d` is counted in civil days of the start date `d`, so the class never depends on
/// DST or on the hour of the run. An occurrence earlier today is current (the student may still
/// do it tonight), and so is one that started before today but is still running at `now`
/// (decision: a multi-day block that covers today is not "missed").
package struct OverdueClassifier: Sendable {
    package let now: CivilDateTime
    package let deleteAfterDays: Int
    /// Categories that are never dropped, compared as trimmed text.
    package let keepCategories: Set<String>

    package init(now: CivilDateTime, deleteAfterDays: Int = 7, keepCategories: [String] = []) {
        self.now = now
        self.deleteAfterDays = deleteAfterDays
        self.keepCategories = Set(keepCategories.map { $0.trimmingWhitespace() })
    }

    package init(now: CivilDateTime, settings: UserSettings) {
        self.init(now: now, deleteAfterDays: settings.deleteAfterDays, keepCategories: settings.keepCategories)
    }

    package var today: CivilDate { now.date }

    /// The class of an open occurrence; nil for completed and skipped ones, which never change.
    package func classify(_ o: Occurrence) -> OverdueClass? {
        guard o.state == .open else { return nil }
        let stillRunning = o.allDay ? o.lastDate >= today : o.end > now
        if o.start.date >= today || stillRunning { return .current }
        return o.start.date.days(until: today) <= deleteAfterDays ? .overdue : .stale
    }

    /// Whether a stale occurrence of this category is kept and flagged instead of dropped.
    package func keeps(category: String) -> Bool {
        keepCategories.contains(category.trimmingWhitespace())
    }

    package func classify(_ occurrences: [Occurrence]) -> OverdueClassification {
        var result = OverdueClassification()
        result.reserveCapacity(occurrences.count)
        for o in occurrences {
            guard let c = classify(o) else { continue }
            result.add(o, as: c, kept: c == .stale && keeps(category: o.category))
        }
        return result
    }
}
