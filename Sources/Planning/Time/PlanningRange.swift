/// The local dates a night loads around today (docs/planning.md §2–§6), so a normal night's reading
/// stays bounded: a ten-year daily series costs a few weeks of rows, never its whole length.
///
/// - `lookback` = today − deleteAfterDays − 1: every overdue day plus the newest stale one.
///   The loaded plan knows its series' overrides from about a week before that
///   (`UserPlan.historyFrom`); a night that follows downtime reads the whole history instead,
///   so every stale session is found (`NightRead`).
/// - `through` = today + 2 × horizonDays. The rules are not bounded by it: the loaded plan holds
///   every one-off task ahead and every series, and their busy view grows to whatever day a
///   placement or a check touches (G1).
package struct PlanningRange: Hashable, Sendable {
    package let today: CivilDate
    package let lookback: CivilDate
    package let through: CivilDate

    package init(today: CivilDate, settings: UserSettings) {
        self.today = today
        self.lookback = today.adding(days: -(max(settings.deleteAfterDays, 0) + 1))
        self.through = today.adding(days: 2 * max(settings.horizonDays, 1))
    }
}
