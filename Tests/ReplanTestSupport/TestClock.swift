import Foundation
import Synchronization

/// The injected clock of the tests: it stands at a fixed instant and moves only when a test
/// moves it, so nothing a test checks depends on how fast the machine runs. Its static
/// instants are the nights the tests plan.
package final class TestClock: Sendable {
    /// Tuesday 2025-01-07 03:00 in Taipei (19:00 UTC the day before): worked example 2's night.
    package static let tuesdayNightTaipei = Date(timeIntervalSince1970: 1_736_190_000)
    /// 2025-01-07T03:00:00Z.
    package static let tuesday0300UTC = Date(timeIntervalSince1970: 1_736_218_800)
    /// 2025-01-08T03:00:00Z, a day after `tuesday0300UTC`.
    package static let wednesday0300UTC = Date(timeIntervalSince1970: 1_736_305_200)

    private let current: Mutex<Date>

    package init(at start: Date = Date(timeIntervalSince1970: 1_000_000)) { current = Mutex(start) }

    /// The clock to inject: reads the current instant.
    package var now: @Sendable () -> Date { { [self] in current.withLock { $0 } } }

    /// Moves the clock `seconds` forward.
    package func advance(_ seconds: Double) { current.withLock { $0 = $0.addingTimeInterval(seconds) } }
}
