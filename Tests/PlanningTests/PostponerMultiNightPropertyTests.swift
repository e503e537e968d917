import Foundation
import ReplanTestSupport
import Testing

@testable import Planning

/// G9 and G10 over five consecutive nights (§11): each generated student (every family of
/// `StudentGenerator`) gets a night, then a simulated day in which about 70 % of that day's open
/// sessions are completed and the rest are missed, nothing else touched, then the next night at
/// the same local time. Every night must keep G1–G9, and every night after the first G10: a
/// session that was neither overdue nor pushed does not move. Replay one student with
/// `PLANNING_MULTINIGHT_FIRST_SEED` and `PLANNING_MULTINIGHT_USERS=1`; set
/// `PLANNING_MULTINIGHT_USERS` (e.g. 9600) for the deeper run, `PLANNING_MULTINIGHT_FIGURES` to
/// print how often sessions moved and how far missed sessions landed.
@Suite struct PostponerMultiNightPropertyTests {
    static let userCount = Int(ProcessInfo.processInfo.environment["PLANNING_MULTINIGHT_USERS"] ?? "") ?? 480
    static let firstSeed =
        UInt64(ProcessInfo.processInfo.environment["PLANNING_MULTINIGHT_FIRST_SEED"] ?? "") ?? 100_000

    @Test func fiveNightsWithADayBetweenMoveOnlyWhatIsOverdueOrPushed() {
        var failures: [String] = []
        var movedOnNights: [String: Int] = [:]
        var distances: [Int] = []
        var moves = 0
        for seed in Self.firstSeed..<(Self.firstSeed + UInt64(Self.userCount)) {
            var generator = StudentGenerator(seed: seed)
            let (family, start, firstNow) = generator.makeStudent()
            var random = SeededRandom(seed: seed)
            let zone = start.zone
            let local = zone.civil(firstNow)
            var plan = start
            for night in 0..<5 {
                let now = zone.instant(CivilDateTime(date: local.date.adding(days: night), time: local.time))
                let result = Postponer(now: now).postpone(plan)
                var breaches = GuaranteeChecker(now: now).check(
                    before: plan, after: result.plan, edits: result.edits, summary: result.summary)
                if night > 0 {
                    breaches += GuaranteeChecker.stability(
                        dayBetween: plan, night: result.plan, edits: result.edits, now: now)
                }
                if !breaches.isEmpty {
                    failures.append(
                        "seed \(seed) \(family) night \(night) (\(zone), now \(result.now)):\n  "
                            + breaches.prefix(6).map(\.description).joined(separator: "\n  "))
                    break
                }
                for e in result.edits where e.op == .move {
                    moves += 1
                    movedOnNights["\(seed)/\(e.id)", default: 0] += 1
                    if let b = e.before, let a = e.after, b.start.date < result.now.date {
                        distances.append(b.start.date.days(until: a.start.date))
                    }
                }
                // The day between: the sessions of the night's day, done or missed.
                var next = result.plan
                let today = result.now.date
                for o in next.occurrences(from: today, through: today)
                where o.state == .open && o.start.date == today && Double(random.next() % 100) < 70 {
                    next.complete(o.id)
                }
                plan = next
            }
        }
        #expect(
            failures.isEmpty,
            "\(failures.count) students break a guarantee:\n\(failures.prefix(8).joined(separator: "\n"))")
        // The population must exercise what it claims to: nights that moved nothing would pass.
        #expect(moves > Self.userCount / 2, "\(moves) moves")
        if ProcessInfo.processInfo.environment["PLANNING_MULTINIGHT_FIGURES"] != nil {
            let sorted = distances.sorted()
            let repeated = movedOnNights.values.filter { $0 > 1 }.count
            print(
                "multi-night figures: students \(Self.userCount), moves \(moves), sessions moved \(movedOnNights.count),"
                    + " moved on more than one night \(repeated), missed moved \(sorted.count),"
                    + " median distance \(sorted.isEmpty ? 0 : sorted[sorted.count / 2]) days,"
                    + " p90 \(sorted.isEmpty ? 0 : sorted[sorted.count * 9 / 10]) days")
        }
    }
}
