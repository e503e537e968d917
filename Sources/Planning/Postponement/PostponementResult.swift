/// What one night's local rules did to a user's plan (docs/planning.md §8): the updated working
/// copy, the edits as a student reads them, the flags for the assistant and the summary.
package struct PostponementResult: Hashable, Sendable {
    /// The working copy with every edit applied; the nightly job diffs it against the loaded
    /// plan to build the changeset (one slide row for a slid series, not a row per occurrence).
    package var plan: UserPlan
    /// In order of work: drops first, then each work item's moves, skips, deletions and
    /// creations.
    package var edits: [PlanEdit]
    package var flags: [PlanFlag]
    package var summary: PlanSummary
    /// `now` on the user's clock, rounded up to the minute (nothing is placed before it).
    package var now: CivilDateTime
    /// Stale sessions found but left for the following nights: a night drops at most
    /// `StaleLimits.dropsPerNight` (0: every stale session was handled).
    package var staleLeft = 0

    package init(plan: UserPlan, edits: [PlanEdit], flags: [PlanFlag], summary: PlanSummary, now: CivilDateTime) {
        self.plan = plan
        self.edits = edits
        self.flags = flags
        self.summary = summary
        self.now = now
    }

    package var hasEdits: Bool { !edits.isEmpty }

    /// The edit of one occurrence, if the rules touched it.
    package func edit(for id: OccurrenceID) -> PlanEdit? { edits.first { $0.id == id } }

    /// The flags of one occurrence.
    package func flags(for id: OccurrenceID) -> [PlanFlag.Kind] { flags.filter { $0.id == id }.map(\.kind) }
}

extension PlanSummary {
    /// The counts of docs/planning.md §8 read off the edits, so they count exactly the listed edits:
    /// dropped (reason dropped-stale), skipped (reason missed), rescheduled (every move of the
    /// rules, and an occurrence replaced by split parts), of which chained (reason make-up,
    /// chain-shift or series-shift). Created split parts are not counted again.
    package init(edits: [PlanEdit]) {
        self.init()
        for e in edits where e.op != .create {
            switch e.reason {
            case .droppedStale: dropped += 1
            case .missed: skipped += 1
            case .makeUp, .chainShift, .seriesShift:
                rescheduled += 1
                chained += 1
            case .rescheduled: rescheduled += 1
            case .model, .manual: break
            }
        }
    }
}
