import Foundation
import Planning
import ReplanTestSupport
import Testing

/// An instant written as its UTC wall-clock time.
private func utc(_ text: String) -> Date { Date(timeIntervalSince1970: Double(at(text).minuteNumber * 60)) }
private func zone(_ id: String) -> UserZone { try! UserZone(identifier: id) }

@Suite("UserZone")
struct UserZoneTests {
    @Test(
        "an unknown zone is an error, never a silent UTC",
        arguments: [
            "Mars/Base", "EST", "PST", "GMT+8", "UTC+8", "", "asia/taipei", "Asia/Taipei ", "America/Foo", "Z",
        ])
    func unknownZoneIsAnError(_ id: String) {
        #expect(throws: DataError.self) { try UserZone(identifier: id) }
    }

    @Test("the error names the field and the zone and says what to use")
    func unknownZoneMessage() {
        #expect(
            throws: DataError(
                path: "timeZone", message: "unknown time zone 'Mars/Base' (use an IANA name such as 'Asia/Taipei')")
        ) {
            try UserZone(identifier: "Mars/Base")
        }
    }

    @Test(
        "IANA zones are accepted, canonical names and their links alike",
        arguments: [
            "UTC", "Asia/Taipei", "America/New_York", "Europe/Berlin", "Asia/Kolkata", "Asia/Calcutta", "Etc/UTC",
            "America/Argentina/Buenos_Aires",
        ])
    func ianaZonesAreAccepted(_ id: String) throws {
        let z = try UserZone(identifier: id)
        #expect(z.identifier == id)
        #expect(z.description == id)
    }

    @Test(
        "Asia/Taipei is UTC+8 all year (no DST)",
        arguments: ["2025-01-06T10:00", "2025-07-01T10:00", "2025-03-09T02:30", "2025-11-02T01:30"])
    func taipeiHasNoDST(_ local: String) {
        let z = zone("Asia/Taipei")
        let instant = z.instant(at(local))
        #expect(instant == utc(local).addingTimeInterval(-8 * 3600))
        #expect(z.civil(instant) == at(local))
        #expect(z.existing(at(local)) == at(local))
        #expect(z.offsetText(at: at(local)) == "+08:00")
    }

    @Test("civil time of an instant in Taipei, also across midnight and before 1970")
    func civilOfInstant() {
        let z = zone("Asia/Taipei")
        #expect(z.civil(utc("2025-01-06T02:00")) == at("2025-01-06T10:00"))
        #expect(z.civil(utc("2025-01-06T18:30")) == at("2025-01-07T02:30"))
        #expect(z.civil(utc("1969-12-31T15:59")) == at("1969-12-31T23:59"))
        #expect(z.civil(utc("1969-12-31T16:00")) == at("1970-01-01T00:00"))
    }

    @Test("seconds are dropped, not rounded, including before 1970")
    func civilDropsSeconds() {
        let z = zone("UTC")
        #expect(z.civil(utc("2025-01-06T10:00").addingTimeInterval(59.9)) == at("2025-01-06T10:00"))
        #expect(z.civil(utc("1969-12-31T23:59").addingTimeInterval(30)) == at("1969-12-31T23:59"))
        #expect(z.civil(Date(timeIntervalSince1970: -0.5)) == at("1969-12-31T23:59"))
    }

    // America/New_York 2025: clocks jump 02:00 EST → 03:00 EDT on 03-09 (07:00Z) and fall back
    // 02:00 EDT → 01:00 EST on 11-02 (06:00Z).

    @Test("New York spring-forward: 02:30 does not exist and moves forward by the gap to 03:30")
    func newYorkSpringForward() {
        let z = zone("America/New_York")
        #expect(z.instant(at("2025-03-09T01:59")) == utc("2025-03-09T06:59"))
        #expect(z.instant(at("2025-03-09T02:30")) == utc("2025-03-09T07:30"))
        #expect(z.existing(at("2025-03-09T02:30")) == at("2025-03-09T03:30"))
        #expect(z.existing(at("2025-03-09T02:00")) == at("2025-03-09T03:00"))
        #expect(z.instant(at("2025-03-09T03:00")) == utc("2025-03-09T07:00"))
        #expect(z.existing(at("2025-03-10T02:30")) == at("2025-03-10T02:30"))
        #expect(z.civil(utc("2025-03-09T06:59")) == at("2025-03-09T01:59"))
        #expect(z.civil(utc("2025-03-09T07:00")) == at("2025-03-09T03:00"))
    }

    @Test("New York fall-back: 01:30 happens twice and means the first, EDT")
    func newYorkFallBack() {
        let z = zone("America/New_York")
        #expect(z.instant(at("2025-11-02T01:30")) == utc("2025-11-02T05:30"))
        #expect(z.existing(at("2025-11-02T01:30")) == at("2025-11-02T01:30"))
        #expect(z.civil(utc("2025-11-02T05:30")) == at("2025-11-02T01:30"))
        #expect(z.civil(utc("2025-11-02T06:30")) == at("2025-11-02T01:30"))
        #expect(z.instant(at("2025-11-02T02:30")) == utc("2025-11-02T07:30"))
        #expect(z.offsetText(at: at("2025-11-02T01:30")) == "-04:00")
        #expect(z.offsetText(at: at("2025-11-02T02:30")) == "-05:00")
    }

    // Europe/Berlin 2025: 02:00 CET → 03:00 CEST on 03-30 and 03:00 CEST → 02:00 CET on 10-26,
    // both at 01:00Z.

    @Test("Berlin spring-forward: 02:30 moves to 03:30")
    func berlinSpringForward() {
        let z = zone("Europe/Berlin")
        #expect(z.existing(at("2025-03-30T02:30")) == at("2025-03-30T03:30"))
        #expect(z.instant(at("2025-03-30T02:30")) == utc("2025-03-30T01:30"))
        #expect(z.instant(at("2025-03-30T01:59")) == utc("2025-03-30T00:59"))
        #expect(z.offsetText(at: at("2025-03-30T01:00")) == "+01:00")
        #expect(z.offsetText(at: at("2025-03-30T04:00")) == "+02:00")
    }

    @Test("Berlin fall-back: 02:30 happens twice and means the first, CEST")
    func berlinFallBack() {
        let z = zone("Europe/Berlin")
        #expect(z.instant(at("2025-10-26T02:30")) == utc("2025-10-26T00:30"))
        #expect(z.civil(utc("2025-10-26T00:30")) == at("2025-10-26T02:30"))
        #expect(z.civil(utc("2025-10-26T01:30")) == at("2025-10-26T02:30"))
        #expect(z.existing(at("2025-10-26T02:30")) == at("2025-10-26T02:30"))
        #expect(z.offsetText(at: at("2025-10-26T02:30")) == "+02:00")
        #expect(z.offsetText(at: at("2025-10-26T03:30")) == "+01:00")
    }

    @Test("every instant of a DST year maps to a civil time that maps back to it, except the repeated hour")
    func instantsRoundTripThroughCivilTime() {
        let z = zone("America/New_York")
        var instant = utc("2025-03-08T00:00")
        let end = utc("2025-11-03T12:00")
        while instant < end {
            let civil = z.civil(instant)
            let back = z.instant(civil)
            // In the repeated hour the civil time means the first instant, an hour earlier.
            let repeated = instant >= utc("2025-11-02T06:00") && instant < utc("2025-11-02T07:00")
            #expect(back == (repeated ? instant.addingTimeInterval(-3600) : instant), "\(civil)")
            instant = instant.addingTimeInterval(
                instant < utc("2025-03-11T00:00") || instant > utc("2025-11-01T00:00") ? 900 : 86_400)
        }
    }

    @Test(
        "offset text",
        arguments: [
            ("UTC", "2025-01-06T10:00", "+00:00"), ("Asia/Taipei", "2025-01-06T10:00", "+08:00"),
            ("America/New_York", "2025-01-06T10:00", "-05:00"), ("America/New_York", "2025-07-01T10:00", "-04:00"),
            ("Europe/Berlin", "2025-01-06T10:00", "+01:00"), ("Europe/Berlin", "2025-07-01T10:00", "+02:00"),
            ("Asia/Kolkata", "2025-01-06T10:00", "+05:30"),
        ])
    func offsetText(_ id: String, _ local: String, _ text: String) {
        #expect(zone(id).offsetText(at: at(local)) == text)
    }
}
