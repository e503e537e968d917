import Foundation
import Planning

// Values written the way the spec writes them ("2025-01-06", "2025-01-06T10:00"), for tests
// on small literal plans. A malformed literal is a bug in the test, so these trap.

/// A civil date: `date("2025-01-06")`.
package func date(_ text: String) -> CivilDate { CivilDate(text)! }

/// A civil date-time: `at("2025-01-06T10:00")`.
package func at(_ text: String) -> CivilDateTime { CivilDateTime(text)! }

/// A time of day: `timeOfDay("09:30")`; `24:00` is accepted as the end of a day.
package func timeOfDay(_ text: String) -> TimeOfDay { TimeOfDay(text, allowingEndOfDay: true)! }

/// An occurrence id: `id("vocab@2025-01-07")` or a one-off task's `id("essay")`.
package func id(_ text: String) -> OccurrenceID { OccurrenceID(text)! }

/// The span from `start` to `end`: `range("2025-01-06T10:00", "2025-01-06T11:00")`.
package func range(_ start: String, _ end: String) -> TimeRange { TimeRange(start: at(start), end: at(end)) }

/// A time zone by its IANA name: `zone("Asia/Taipei")`.
package func zone(_ identifier: String) -> UserZone { try! UserZone(identifier: identifier) }

/// The instants the tests run at, fixed so every run is the same.
package enum TestClock {
    /// Tuesday 2025-01-07 03:00 in Taipei (19:00 UTC the day before): worked example 2's night.
    package static let tuesdayNightTaipei = Date(timeIntervalSince1970: 1_736_190_000)
    /// 2025-01-07T03:00:00Z.
    package static let tuesday0300UTC = Date(timeIntervalSince1970: 1_736_218_800)
    /// 2025-01-08T03:00:00Z, a day after `tuesday0300UTC`.
    package static let wednesday0300UTC = Date(timeIntervalSince1970: 1_736_305_200)
}
