import Foundation

/// The local rules of one night (docs/planning.md, version 3) for one user: drops every stale
/// session, applies each series' missed policy, re-lays chains of one-off sessions as a whole
/// and finds new slots for the remaining missed sessions.
///
/// A pure function of the plan and the clock: `now` is passed in, the zone and settings come
/// with the plan, and the result is a new working copy plus the edits that lead to it.
///
/// Running the rules again on the result with the same `now` yields no edits (G8). One pass
/// alone cannot promise that: a missed session that found no room may find it once a later
/// item of the same pass has moved away (docs/planning.md §7). So the postponer runs another pass on
/// its own result while a pass both changed something and left a missed session without a
/// place; every repeated pass either places one more missed session or changes nothing, so this
/// ends, and the edits of all passes are merged into one before → after per occurrence.
package struct Postponer: Sendable {
    /// The run's instant.
    package let now: Date

    package init(now: Date) { self.now = now }

    /// A run at a wall-clock time in `zone` (tests and `--now`).
    package init(localNow: CivilDateTime, zone: UserZone) { self.now = zone.instant(localNow) }

    /// The detail of an edit made by a repeated pass, after other moves of the night made room.
    package static let laterPassDetail = "placed once other moves made room"

    /// `now` on the user's clock, rounded up to the whole minute: planning is to the minute,
    /// and a session may not start in a minute that has already begun.
    package func civilNow(in zone: UserZone) -> CivilDateTime {
        let seconds = now.timeIntervalSince1970
        let remainder = seconds - (seconds / 60).rounded(.down) * 60
        return zone.civil(remainder > 0 ? now.addingTimeInterval(60 - remainder) : now)
    }

    package func postpone(_ plan: UserPlan) -> PostponementResult {
        let civil = civilNow(in: plan.zone)
        var current = plan
        var edits = EditLog()
        var flags: [PlanFlag] = []
        var passes = 0
        var staleBudget = StaleLimits.dropsPerNight
        var staleLeft = 0
        // Later passes first only place what is still flagged (rules version 3). When they
        // stop making progress, one whole pass checks the result is one the rules leave alone
        // (G8): a placement can link a session still flagged to a course it now borders, and a
        // rerun would re-lay that course. Only then do whole passes go on, as before.
        var restricted = true
        while true {
            passes += 1
            var pass = PostponementPass(plan: current, now: civil, createdAt: now, nightStart: plan)
            pass.staleBudget = staleBudget
            if passes > 1 && restricted {
                // Rules version 3: a later pass only places what is still flagged; whatever an
                // earlier pass placed is settled.
                pass.laterPass = (
                    place: Set(flags.filter { $0.kind == .couldNotFit }.map(\.id)), settled: Set(edits.edits.map(\.id))
                )
            }
            pass.run()
            staleBudget = pass.staleBudget
            if passes == 1 { staleLeft = pass.staleLeft }
            current = pass.plan
            edits.merge(
                passes == 1
                    ? pass.edits
                    : pass.edits.map {
                        var e = $0
                        if e.detail.isEmpty { e.detail = Postponer.laterPassDetail }
                        return e
                    })
            let touched = Set(pass.edits.map(\.id))
            flags.removeAll { touched.contains($0.id) || ($0.kind == .couldNotFit && !pass.flags.contains($0)) }
            for f in pass.flags where !flags.contains(f) { flags.append(f) }
            let missedWithoutPlace = pass.flags.contains { $0.kind == .couldNotFit && pass.overdueIDs.contains($0.id) }
            if !missedWithoutPlace || passes >= 64 { break }
            if pass.edits.isEmpty {
                guard restricted, passes > 1 else { break }
                restricted = false
            }
        }
        let merged = edits.edits
        var result = PostponementResult(
            plan: current, edits: merged, flags: flags, summary: PlanSummary(edits: merged), now: civil)
        result.staleLeft = staleLeft
        return result
    }
}

/// Edits of several passes folded into one per occurrence: the first `before`, the last
/// `after`, the reason that first moved it. A session moved and then moved back disappears.
struct EditLog {
    private var log: [PlanEdit?] = []
    private var index: [OccurrenceID: Int] = [:]

    var edits: [PlanEdit] { log.compactMap { $0 } }

    mutating func merge(_ new: [PlanEdit]) {
        for e in new {
            guard let i = index[e.id], var m = log[i] else {
                index[e.id] = log.count
                log.append(e)
                continue
            }
            m.after = e.after
            if m.op != .create { m.op = e.op }
            if m.op == .move && m.before == m.after {
                log[i] = nil
                index[e.id] = nil
            } else {
                log[i] = m
            }
        }
    }
}
