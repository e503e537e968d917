import Foundation

/// A user's IANA time zone and the conversions between civil time and instants in it.
///
/// The only place where instants and civil time meet. DST rules of docs/planning.md §1.3: a civil
/// time that does not exist (spring-forward gap) moves forward by the gap; an ambiguous one
/// (fall-back overlap) takes the first of its two instants.
package struct UserZone: Hashable, Sendable, CustomStringConvertible {
    package let timeZone: TimeZone
    /// The name the user gave, kept as given: Foundation reports "UTC" as "GMT", and an export
    /// must write back what was imported.
    package let identifier: String
    /// Offsets already looked up in ICU; shared by the copies of this value.
    private let offsets: ZoneOffsetCache

    /// Validates an IANA identifier; an unknown zone is an error, never a silent UTC.
    package init(identifier: String) throws(DataError) {
        // `TimeZone(identifier:)` also accepts abbreviations ("EST") and offsets ("GMT+8"),
        // which are not IANA zones and do not follow DST. Foundation's known list holds one
        // name per zone and misses current IANA names such as "Asia/Kolkata" and "Etc/UTC", so
        // an `Area/Location` name that Foundation resolves to itself passes as well.
        guard
            identifier == "UTC" || UserZone.knownIdentifiers.contains(identifier)
                || (identifier.contains("/") && TimeZone(identifier: identifier)?.identifier == identifier),
            let zone = TimeZone(identifier: identifier)
        else {
            throw DataError(
                path: "timeZone", message: "unknown time zone '\(identifier)' (use an IANA name such as 'Asia/Taipei')")
        }
        self.timeZone = zone
        self.identifier = identifier
        self.offsets = ZoneOffsetCache(timeZone: zone)
    }

    /// Two values are the same zone when the zone and the name are (the memo is not part of it).
    package static func == (a: UserZone, b: UserZone) -> Bool {
        a.timeZone == b.timeZone && a.identifier == b.identifier
    }

    package func hash(into hasher: inout Hasher) {
        hasher.combine(timeZone)
        hasher.combine(identifier)
    }

    /// The zone's offset from UTC, in seconds, at an instant given in seconds since 1970.
    func secondsFromGMT(at seconds: Double) -> Int { offsets.secondsFromGMT(at: seconds) }

    /// Whether the offset a day before `local` (seconds of a wall-clock reading) equals the
    /// one a day after: then the zone does not change its offset around it.
    private func sameOffsetAround(_ local: Double) -> Bool {
        let (before, after) = offsets.secondsFromGMT(at: local - 86_400, local + 86_400)
        return before == after
    }

    private static let knownIdentifiers = Set(TimeZone.knownTimeZoneIdentifiers)

    /// The local wall-clock time of an instant.
    package func civil(_ instant: Date) -> CivilDateTime {
        let seconds =
            Int(instant.timeIntervalSince1970.rounded(.down)) + secondsFromGMT(at: instant.timeIntervalSince1970)
        let minutes = seconds >= 0 ? seconds / 60 : -((59 - seconds) / 60)
        return CivilDateTime(minuteNumber: minutes)
    }

    /// The instant of a wall-clock time: the first one when ambiguous, the gap-shifted one when
    /// the time does not exist.
    package func instant(_ civil: CivilDateTime) -> Date {
        let local = Double(civil.minuteNumber * 60)
        // Offsets a day either side: a zone changes its offset at most once in that span.
        let (beforeSeconds, afterSeconds) = offsets.secondsFromGMT(at: local - 86_400, local + 86_400)
        let before = Double(beforeSeconds)
        let after = Double(afterSeconds)
        // The usual case, no change of offset near this time: one answer, nothing to search.
        if before == after { return Date(timeIntervalSince1970: local - before) }
        let candidates = [local - before, local - after].filter {
            Double(secondsFromGMT(at: $0)) == local - $0
        }
        if let first = candidates.min() { return Date(timeIntervalSince1970: first) }
        // In the gap: reading the wall clock with the offset in force before the jump lands
        // the time forward by exactly the gap (02:30 → 03:30 on a one-hour spring-forward).
        return Date(timeIntervalSince1970: local - before)
    }

    /// The civil time as it will actually show on the clock: unchanged unless it falls in a
    /// spring-forward gap, in which case it moves forward by the gap.
    package func existing(_ civil: CivilDateTime) -> CivilDateTime {
        // Fast path for the days without a change of offset (all but two a year, at most).
        let local = Double(civil.minuteNumber * 60)
        if sameOffsetAround(local) { return civil }
        return self.civil(instant(civil))
    }

    /// A session that starts at the wall time `start` (moved forward out of a spring-forward
    /// gap) and lasts `minutes` elapsed minutes, as wall times (docs/planning.md §1.3): on a
    /// spring-forward day a session across the gap ends that much later on the clock, and no end
    /// names a skipped time. On a fall-back day an end in the repeated hour's second pass cannot
    /// be written as a wall time (it reads as the first); Decision: the session then ends at the
    /// first wall time after that hour, the shortest end that lasts at least `minutes`.
    package func session(at start: CivilDateTime, lasting minutes: Int) -> (start: CivilDateTime, end: CivilDateTime) {
        // Fast path: no change of offset within a day either side of the start.
        if minutes <= 1440, sameOffsetAround(Double(start.minuteNumber * 60)) {
            return (start, start.adding(minutes: minutes))
        }
        let begin = instant(start)
        let target = begin.addingTimeInterval(Double(minutes * 60))
        var end = civil(target)
        while instant(end) < target { end = end.adding(minutes: 1) }
        return (civil(begin), end)
    }

    /// Minutes elapsed between two wall times (the civil difference on days without a change
    /// of offset).
    package func elapsedMinutes(from start: CivilDateTime, to end: CivilDateTime) -> Int {
        let civilLength = end.minuteNumber - start.minuteNumber
        if civilLength <= 1440, sameOffsetAround(Double(start.minuteNumber * 60)) { return civilLength }
        return Int((instant(end).timeIntervalSince1970 - instant(start).timeIntervalSince1970) / 60)
    }

    /// UTC offset at a civil time, e.g. "+08:00".
    package func offsetText(at civil: CivilDateTime) -> String {
        let seconds = secondsFromGMT(at: instant(civil).timeIntervalSince1970)
        let sign = seconds < 0 ? "-" : "+"
        let m = abs(seconds) / 60
        return "\(sign)\(Digits.pad(m / 60, 2)):\(Digits.pad(m % 60, 2))"
    }

    package var description: String { identifier }
}
