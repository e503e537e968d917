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
