import Foundation

/// G9 and G10 of the rules' version 3, for `GuaranteeChecker`: a night moves an open session
/// only if it is overdue, or if leaving it would break G1 or G2 given the other moves (it is
/// pushed); a pushed session never moves earlier. Read on two nights with a day between in
/// which the student only completed or missed sessions, the same test is G10: nothing that was
/// neither overdue nor pushed moves.
///
/// Readings written down here: "earlier" compares dates (a pushed session may take an earlier
/// free time of its own day); "pushed" means another session the night moved now overlaps the
/// session's old place (G1), or a session of its course that came before it now lies on or
/// after its old date (G2); a session earlier today whose time has already passed counts as
/// missed.
extension GuaranteeChecker {
    /// The moves of a night that G9 does not allow, as breach messages.
    static func disruptions(
        old: [OccurrenceID: Occurrence], new: [OccurrenceID: Occurrence], today: CivilDate, now: CivilDateTime
    ) -> [String] {
        var moved: [(old: Occurrence, new: Occurrence)] = []
        for (id, o) in old where o.state == .open {
            if let n = new[id], n.state == .open, n.start != o.start || n.end != o.end { moved.append((o, n)) }
        }
        var result: [String] = []
        for m in moved where m.old.start.date >= today && m.old.start >= now {
            if m.new.start.date < m.old.start.date {
                result.append("\(m.old.id) moved earlier, \(m.old.start) → \(m.new.start)")
                continue
            }
            let key = ChainKey(m.old)
            let pushed = moved.contains { y in
                guard y.old.id != m.old.id else { return false }
                if !y.new.allDay, !m.old.allDay, y.new.start < m.old.end, m.old.start < y.new.end { return true }
                return ChainKey(y.old) == key && (y.old.start, y.old.id) < (m.old.start, m.old.id)
                    && y.new.lastDate >= m.old.start.date
            }
            if !pushed {
                result.append("\(m.old.id) moved \(m.old.start) → \(m.new.start), neither overdue nor pushed")
            }
        }
        return result.sorted()
    }

    /// G10: the next night, on a plan the student changed only by completing sessions and
    /// letting others pass since the night before (`dayBetween`), moves only what is overdue or
    /// pushed, and nothing at all when nothing is overdue.
    package static func stability(
        dayBetween: UserPlan, night: UserPlan, edits: [PlanEdit], now: Date
    ) -> [Breach] {
        let civilNow = Postponer(now: now).civilNow(in: night.zone)
        let today = civilNow.date
        let range = dates(of: dayBetween, night, today: today)
        func index(_ plan: UserPlan) -> [OccurrenceID: Occurrence] {
            Dictionary(
                plan.occurrences(from: range.lowerBound, through: range.upperBound).map { ($0.id, $0) },
                uniquingKeysWith: { a, _ in a })
        }
        let before = index(dayBetween)
        var breaches = disruptions(old: before, new: index(night), today: today, now: civilNow).map {
            Breach(guarantee: "G10", message: $0)
        }
        // Nothing overdue or passed at all: no moves at all. (A session still flagged from an
        // earlier night is overdue and may find room now that the horizon has moved on a day.)
        let overdue = before.values.contains {
            $0.state == .open && ($0.allDay ? $0.start.date < today : $0.start < civilNow)
        }
        if !overdue, let e = edits.first(where: { $0.op == .move }) {
            breaches.append(Breach(guarantee: "G10", message: "\(e.id) moved though nothing is overdue"))
        }
        return breaches
    }
}
