/// How a series repeats: from the task's first start, every day / week / month, until an
/// optional inclusive last date, and what happens to the sessions a student misses
/// (docs/planning.md §4).
package struct RepeatRule: Hashable, Sendable {
    package enum Frequency: String, CaseIterable, Sendable, Codable {
        case daily, weekly, monthly
    }

    /// What an overdue occurrence of the series gets (docs/planning.md §4).
    package enum MissedPolicy: String, CaseIterable, Sendable, Codable {
        /// Appended after the series' end, in its cadence (a course).
        case shift
        /// Marked skipped (a habit simply goes on tomorrow).
        case skip
        /// Made up by the general search before the series' next session (a weekly lesson).
        case makeUp = "make-up"
    }

    package var every: Frequency
    package var until: CivilDate?
    /// The policy the student chose; nil takes the default for the series' kind (`defaultMissed`).
    package var missed: MissedPolicy?

    package init(every: Frequency, until: CivilDate? = nil, missed: MissedPolicy? = nil) {
        self.every = every
        self.until = until
        self.missed = missed
    }

    /// docs/planning.md §4: a daily series with an end is a course (`shift`), one without an end is a
    /// habit (`skip`), weekly and monthly series are lessons (`make-up`).
    package var defaultMissed: MissedPolicy {
        switch every {
        case .daily: return until == nil ? .skip : .shift
        case .weekly, .monthly: return .makeUp
        }
    }

    /// The policy the rules apply. `shift` needs an end to append after: an open-ended series
    /// set to `shift` is made up instead (docs/planning.md §4).
    package var effectiveMissed: MissedPolicy {
        let chosen = missed ?? defaultMissed
        return chosen == .shift && until == nil ? .makeUp : chosen
    }

    /// The policy to write out (export, images): nil when it is the kind's default.
    package var explicitMissed: MissedPolicy? {
        guard let missed, missed != defaultMissed else { return nil }
        return missed
    }
}
