import Foundation

/// The local rules of one night (planning.md §2–§6) for one user: drops stale sessions, slides
/// or re-lays missed runs, and finds new slots for the remaining missed sessions.
///
/// A pure function of the plan and the clock: `now` is passed in, the zone and settings come
/// with the plan, and the result is a new working copy plus the edits that lead to it.
///
/// Running the rules again on the result with the same `today` yields no edits (planning.md
/// §6). One pass alone cannot promise that: a missed session that found no room may find it
/// once a later item of the same pass has moved away. So the postponer repeats the pass on its
/// own result while a pass both changed something and left a missed session without a slot;
/// every repeated pass either places one more missed session or changes nothing, so this ends
/// within (number of missed sessions + 1) passes, and the edits of all passes are merged into
/// one before → after per occurrence.
///
/// A chain keeps the order of the members it moves. A member that found no room in its
/// chain's order and finds room only in a later pass is no longer where its run put it, so
/// it is placed by that pass's rules alone and may land before a predecessor; the
/// alternative, leaving it flagged although a slot is free, would make the next run move it
/// anyway. Such edits say so in their detail (`Postponer.laterPassDetail`).
public struct Postponer: Sendable {
    /// The run's instant.
    public let now: Date

    public init(now: Date) { self.now = now }

    /// A run at a wall-clock time in `zone` (tests and `--now`).
    public init(localNow: CivilDateTime, zone: UserZone) { self.now = zone.instant(localNow) }

    /// The detail of an edit made by a repeated pass, after other moves of the night made room.
    public static let laterPassDetail = "placed once other moves made room"

    /// `now` on the user's clock, rounded up to the whole minute: planning is to the minute,
    /// and a session may not start in a minute that has already begun.
    public func civilNow(in zone: UserZone) -> CivilDateTime {
        let seconds = now.timeIntervalSince1970
        let remainder = seconds - (seconds / 60).rounded(.down) * 60
        return zone.civil(remainder > 0 ? now.addingTimeInterval(60 - remainder) : now)
    }

    public func postpone(_ plan: UserPlan) -> PostponementResult {
        let civil = civilNow(in: plan.zone)
        var current = plan
        var edits = EditLog()
        var flags: [PlanFlag] = []
        var passes = 0
        while true {
            passes += 1
            var pass = PostponementPass(plan: current, now: civil, createdAt: now)
            pass.run()
            // A chain whose shift would leave a session on top of another stops the pass; it
            // starts over with that chain taking the no-shift path (once per such chain).
            var unshiftable: Set<OccurrenceID> = []
            while let rejected = pass.rejectedShift {
                unshiftable.insert(rejected)
                pass = PostponementPass(plan: current, now: civil, createdAt: now, unshiftable: unshiftable)
                pass.run()
            }
            current = pass.plan
            edits.merge(passes == 1 ? pass.edits : pass.edits.map {
                var e = $0
                if e.detail.isEmpty { e.detail = Postponer.laterPassDetail }
                return e
            })
            let touched = Set(pass.edits.map(\.id))
            flags.removeAll { touched.contains($0.id) }
            for f in pass.flags where !flags.contains(f) { flags.append(f) }
            let missedWithoutSlot = pass.flags.contains { $0.kind == .couldNotFit && pass.overdueIDs.contains($0.id) }
            if pass.edits.isEmpty || !missedWithoutSlot || passes >= 64 { break }
        }
        var merged = edits.edits
        if passes > 1 {
            // A later pass reports only what it sees within its own range; a session an
            // earlier pass moved may have moved again with a later slide out there. The plan
            // is the truth for where everything ended up.
            merged = merged.compactMap { edit in
                guard edit.op == .move || edit.op == .create, let o = current.occurrence(edit.id) else { return edit }
                var e = edit
                e.after = TimeRange(o)
                return e.op == .move && e.after == e.before ? nil : e
            }
        }
        return PostponementResult(plan: current, edits: merged, flags: flags, summary: PlanSummary(edits: merged), now: civil)
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
