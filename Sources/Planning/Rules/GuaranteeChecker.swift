import Foundation

/// Checks one night against the guarantees of docs/planning.md §3 and §11 (G1–G9; G10, which
/// needs two nights, is `stability(dayBetween:night:edits:now:)`): given the plan before,
/// the plan after and the edits (with their summary), it reports every breach. Any test can
/// call it; the property tests run it over large seeded populations.
///
/// It works on whole plans (every task, override and slide of the student), expanded over all
/// the dates either plan can touch, so nothing beyond a horizon escapes it.
///
/// Two readings of §3 that docs/planning.md leaves open, written down here:
/// - G2 compares the open sessions of a course that are still ahead after the night (start on
///   or after today): a missed session the rules could not place stays in the past, flagged,
///   and is not part of the order of what is left to do. Sessions the night created (split
///   parts) are not compared either: §6.4 lets them share a day. The order is compared within
///   each course — the one-off sessions of a key, and each series on its own — because a
///   daily habit "Vocab" and a course "Vocab (1)…(7)" in one category share a key, and any
///   move of the course passes the habit's days; no day may hold two sessions of the key.
/// - G6's exemption (§5.3) is read as: the session kept the time of day and length it had,
///   which lay outside the windows, on a day that has a window.
package struct GuaranteeChecker: Sendable {
    package struct Breach: Hashable, Sendable, CustomStringConvertible {
        package var guarantee: String
        package var message: String
        package var description: String { "\(guarantee): \(message)" }
    }

    package let now: Date

    package init(now: Date) { self.now = now }

    /// Every breach of G1–G9 by the night that turned `before` into `after` with `edits`.
    package func check(
        before: UserPlan, after: UserPlan, edits: [PlanEdit], summary: PlanSummary,
        checkIdempotence: Bool = true
    ) -> [Breach] {
        let zone = after.zone
        let civilNow = Postponer(now: now).civilNow(in: zone)
        let today = civilNow.date
        let range = GuaranteeChecker.dates(of: before, after, today: today)
        let old = Dictionary(
            before.occurrences(from: range.lowerBound, through: range.upperBound).map { ($0.id, $0) },
            uniquingKeysWith: { a, _ in a })
        let new = Dictionary(
            after.occurrences(from: range.lowerBound, through: range.upperBound).map { ($0.id, $0) },
            uniquingKeysWith: { a, _ in a })
        var breaches: [Breach] = []
        func breach(_ g: String, _ message: String) { breaches.append(Breach(guarantee: g, message: message)) }
        let editsByID = Dictionary(grouping: edits, by: \.id)

        // G1: no overlap created.
        let timed = new.values.filter { !$0.allDay && $0.state != .skipped }.sorted {
            ($0.start, $0.id) < ($1.start, $1.id)
        }
        for (i, a) in timed.enumerated() {
            for b in timed[(i + 1)...] {
                guard b.start < a.end else { break }
                let unchanged = [a, b].allSatisfy { o in
                    old[o.id].map { $0.start == o.start && $0.end == o.end } ?? false
                }
                if unchanged { continue }
                if let oa = old[a.id], let ob = old[b.id], oa.state != .skipped, ob.state != .skipped,
                    !oa.allDay, !ob.allDay, oa.start < ob.end, ob.start < oa.end
                {
                    continue
                }
                breach("G1", "\(a.id) \(a.start)–\(a.end) overlaps \(b.id) \(b.start)–\(b.end)")
            }
        }

        // G2: order and pace kept, per course, for what is still ahead.
        var movedIDs = Set<OccurrenceID>()
        for (id, o) in old where o.state == .open {
            if let n = new[id], n.start != o.start || n.end != o.end { movedIDs.insert(id) }
        }
        let openBefore = old.values.filter { $0.state == .open }
        let byKey = Dictionary(grouping: openBefore, by: { ChainKey($0) })
        for (key, group) in byKey {
            let ordered = group.sorted { ($0.start, $0.id) < ($1.start, $1.id) }
            guard let first = ordered.firstIndex(where: { movedIDs.contains($0.id) }) else { continue }
            let tail = ordered[first...].filter { o in
                guard let n = new[o.id], n.state == .open else { return false }
                return n.start.date >= today
            }
            // The order within each course: the key's one-off sessions, and each series.
            for course in Dictionary(grouping: tail, by: { $0.isSeriesOccurrence ? $0.taskID : "" }).values {
                let beforeTitles = course.map(\.title)
                let afterTitles = course.map { new[$0.id]! }.sorted { ($0.start, $0.id) < ($1.start, $1.id) }.map(
                    \.title)
                if beforeTitles != afterTitles {
                    breach("G2", "\(key): order \(beforeTitles) became \(afterTitles)")
                }
            }
            var heldBefore: [CivilDate: Int] = [:]
            for o in group { heldBefore[o.start.date, default: 0] += 1 }
            var heldAfter: [CivilDate: Int] = [:]
            for o in tail { heldAfter[new[o.id]!.start.date, default: 0] += 1 }
            for (date, count) in heldAfter where count > max(1, heldBefore[date] ?? 0) {
                breach("G2", "\(key): \(count) sessions on \(date)")
            }
        }

        // G3: the student's marks stand.
        for (id, o) in old where o.state != .open {
            guard let n = new[id], n.state == o.state, n.start == o.start, n.end == o.end else {
                breach("G3", "\(o.state.rawValue) \(id) changed")
                continue
            }
        }
        for task in before.tasks.values where task.isSeries {
            var skippedDates = Set<CivilDate>()
            for mark in before.overrides.values where mark.taskID == task.id && mark.state == .skipped {
                skippedDates.insert(mark.originalDate)
                if let s = mark.start { skippedDates.insert(s.date) }
            }
            for o in new.values where o.taskID == task.id && o.state != .skipped && skippedDates.contains(o.start.date)
            {
                if let was = old[o.id], was.start.date == o.start.date, was.state != .skipped { continue }
                breach("G3", "\(o.id) placed on \(o.start.date), a date the student skipped")
            }
        }

        // G4: nothing lost.
        for (id, o) in old where o.state == .open {
            if let n = new[id], n.state == .open { continue }
            let allowed =
                editsByID[id]?.contains { e in
                    (e.op == .delete || e.op == .skip)
                        && (e.reason == .droppedStale || e.reason == .missed || e.detail.hasPrefix("split into"))
                } ?? false
            if !allowed { breach("G4", "open \(id) is gone without a drop, a skip or a split") }
        }

        // G5: every change listed, once, and the summary counts the list.
        for id in Set(old.keys).union(new.keys) {
            let a = old[id]
            let b = new[id]
            let changed = a?.start != b?.start || a?.end != b?.end || a?.state != b?.state
            let listed = editsByID[id] ?? []
            if changed && listed.count != 1 {
                breach(
                    "G5",
                    "\(id) changed (\(a.map { "\($0.start) \($0.state.rawValue)" } ?? "absent") → "
                        + "\(b.map { "\($0.start) \($0.state.rawValue)" } ?? "absent")) with \(listed.count) edits")
            }
            if !changed && !listed.isEmpty { breach("G5", "\(id) is listed but did not change") }
            if changed, let e = listed.first, listed.count == 1 {
                let gone = b == nil || b?.state == .skipped
                if gone ? e.after != nil : e.after != b.map(TimeRange.init) {
                    breach(
                        "G5",
                        "\(id): the edit says after \(String(describing: e.after)), the plan has \(String(describing: b.map(TimeRange.init)))"
                    )
                }
            }
        }
        for e in edits where old[e.id] == nil && new[e.id] == nil { breach("G5", "edit of unknown \(e.id)") }
        if PlanSummary(edits: edits) != summary { breach("G5", "summary \(summary) does not count the edits") }

        // G6 and G7: placements inside the windows, not in the past, on real wall times.
        let windows = after.settings.effectiveWindows
        for e in edits where e.op == .move || e.op == .create {
            guard let r = e.after, let n = new[e.id] else { continue }
            if n.allDay {
                if r.start.date < today { breach("G7", "\(e.id) placed on \(r.start.date), before today") }
                continue
            }
            if r.start < civilNow { breach("G7", "\(e.id) placed at \(r.start), before now \(civilNow)") }
            for t in [r.start, r.end] {
                if let gap = zone.skippedMinutes(on: t.date), gap.contains(t.minuteNumber) {
                    breach("G7", "\(e.id) names \(t), a wall time the clock skips")
                }
            }
            guard [.makeUp, .chainShift, .rescheduled].contains(e.reason) else { continue }
            if PlacementValidator.isInsideWindows(start: r.start, end: r.end, windows: windows) { continue }
            // The exemption of §5.3: the time of day kept (moved forward only by a DST gap).
            if let b = e.before, !PlacementValidator.isInsideWindows(start: b.start, end: b.end, windows: windows),
                zone.existing(CivilDateTime(date: r.start.date, time: b.start.time)) == r.start,
                !windows.windows(on: r.start.date.weekday).isEmpty
            {
                continue
            }
            breach("G6", "\(e.id) placed at \(r.start)–\(r.end), outside the windows")
        }

        // G9: least disruption.
        for message in GuaranteeChecker.disruptions(old: old, new: new, today: today, now: civilNow) {
            breach("G9", message)
        }

        let droppedCount = edits.count { $0.reason == .droppedStale }
        // G8: idempotent. A night over `StaleLimits.dropsPerNight` leaves stale sessions for the
        // next ones; a second run goes on dropping those (and only those).
        if checkIdempotence {
            let again = Postponer(now: now).postpone(after)
            let continued = again.edits.filter {
                !($0.reason == .droppedStale && StaleLimits.dropsPerNight <= droppedCount)
            }
            if !continued.isEmpty {
                breach("G8", "a second run changes \(continued.map { "\($0.op.rawValue) \($0.id)" })")
            }
        }
        return breaches
    }

    /// Every date either plan can put a session on: from the earliest start to a year past the
    /// latest date either plan names (open-ended series are expanded that far).
    static func dates(of a: UserPlan, _ b: UserPlan, today: CivilDate) -> ClosedRange<CivilDate> {
        var low = today
        var high = today
        for plan in [a, b] {
            for t in plan.tasks.values {
                low = min(low, t.start.date)
                high = max(high, t.end.date, t.repeatRule?.until ?? t.end.date)
            }
            for o in plan.overrides.values {
                low = min(low, o.originalDate, o.start?.date ?? o.originalDate)
                high = max(high, o.originalDate, o.end?.date ?? o.originalDate)
            }
        }
        return low.adding(days: -1)...high.adding(days: 400)
    }
}
