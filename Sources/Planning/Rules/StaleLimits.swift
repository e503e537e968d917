/// Bounds on what one night does with stale history (issue 28, item 8), so a student's
/// night costs memory and time by the work it does, not by the length of their history.
/// The figures are documented in the README's Safety section.
package enum StaleLimits {
    /// Stale sessions one night drops at most (oldest first); the rest follow on the next
    /// nights, which read the whole history again until none is left.
    package static let dropsPerNight = 5_000
}
