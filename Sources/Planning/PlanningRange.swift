/// The local dates one night's rules look at (planning.md §2–§4), so work stays bounded: a
/// ten-year daily series costs a few weeks of occurrences, never its whole length.
///
/// - `lookback` = today − deleteAfterDays − 1: every overdue day plus the newest stale one, so
///   each night drops what turned stale since the previous night. Older open series
///   occurrences are history a previous night already saw and are left alone; one-off tasks
///   are few and are always all looked at, however old.
/// - `through` = today + 2 × horizonDays: the searches started inside the horizon and the
///   chains reaching into it need this much of the future. The busy index grows past it on
///   demand when a long chain needs more.
public struct PlanningRange: Hashable, Sendable {
    public let today: CivilDate
    public let lookback: CivilDate
    public let through: CivilDate

    public init(today: CivilDate, settings: UserSettings) {
        self.today = today
        self.lookback = today.adding(days: -(max(settings.deleteAfterDays, 0) + 1))
        self.through = today.adding(days: 2 * max(settings.horizonDays, 1))
    }
}
