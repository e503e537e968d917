import Foundation
import Testing

@testable import Planning

@Suite("ZoneOffsetCache")
struct ZoneOffsetCacheTests {
    /// Zones with DST, negative DST, half-hour DST, standard-time changes, a skipped day and
    /// DST suspended for a month a year.
    static let zones = [
        "Asia/Taipei", "UTC", "America/New_York", "Europe/Berlin", "Europe/Dublin", "Australia/Lord_Howe",
        "Pacific/Apia", "Africa/Casablanca", "America/Sao_Paulo", "Pacific/Chatham",
    ]

    @Test("answers exactly what Foundation answers, probed out of order across many transitions", arguments: zones)
    func answersLikeFoundation(_ id: String) {
        let timeZone = TimeZone(identifier: id)!
        let cache = ZoneOffsetCache(timeZone: timeZone)
        // 2009-01-01 … 2027-01-01 in steps of 2 h 37 min 53 s, visited in a scrambled order so
        // stretches are learnt from both ends and merged.
        let start = 1_230_768_000.0
        let step = 9_473.0
        let count = 60_000
        var mismatches: [String] = []
        for k in 0..<count {
            let i = (k &* 7_919) % count // 7919 is prime and does not divide count: a permutation
            let seconds = start + Double(i) * step
            let expected = timeZone.secondsFromGMT(for: Date(timeIntervalSince1970: seconds))
            if cache.secondsFromGMT(at: seconds) != expected {
                mismatches.append("\(Date(timeIntervalSince1970: seconds))")
            }
        }
        #expect(mismatches.isEmpty, "\(id): \(mismatches.prefix(3))")
    }

    @Test(
        "the second before and the second of each transition",
        arguments: ["America/New_York", "Europe/Berlin", "Pacific/Apia"])
    func transitionEdges(_ id: String) {
        let timeZone = TimeZone(identifier: id)!
        let cache = ZoneOffsetCache(timeZone: timeZone)
        var t = Date(timeIntervalSince1970: 1_230_768_000)
        while let next = timeZone.nextDaylightSavingTimeTransition(after: t), next.timeIntervalSince1970 < 1_800_000_000
        {
            for seconds in [
                next.timeIntervalSince1970, next.timeIntervalSince1970 - 1, next.timeIntervalSince1970 + 0.5,
            ] {
                #expect(
                    cache.secondsFromGMT(at: seconds)
                        == timeZone.secondsFromGMT(for: Date(timeIntervalSince1970: seconds)))
            }
            t = next
        }
    }

    @Test("copies of a zone are still equal and hash alike")
    func copiesAreEqual() throws {
        let a = try UserZone(identifier: "Europe/Berlin")
        let b = try UserZone(identifier: "Europe/Berlin")
        _ = a.existing(CivilDateTime("2025-03-30T02:30")!)
        #expect(a == b)
        #expect(Set([a, b]).count == 1)
        #expect(a != (try UserZone(identifier: "Asia/Taipei")))
    }
}
