import Planning

/// Which rows of a user's plan the nightly rules need for a window of dates: the rule
/// `PlanRepository.loadPlan(user:window:)` reads by (its SQL picks the same rows, or a few more
/// that this then drops), and by which `PlanRepository.window(_:of:)` cuts the same rows out of
/// a plan read whole. Every series, with all its slides, is needed; of the rest:
///
/// - a series override whose original date is at or after `overridesFrom` (the window's start
///   moved back by the longest span plus forward slides of the user's series, so every
///   occurrence the expander can slide into the window is there, and by
///   `PlanRepository.overrideMarginDays` more), or a move whose new place ends on or after
///   `movedEndingFrom` (the window's start, moved back by the margin), however far in the
///   future either lies (see `PlanRepository.seriesOverrides` for why there is no upper bound);
/// - a one-off task that touches the window or lies after it (an end at midnight does not
///   touch its day), however far ahead: a placement is checked against everything busy on its
///   day (docs/planning.md G1); or that is still open, however old: the nightly rules drop a
///   forgotten session rather than keep it forever.
struct WindowSelection {
    let window: ClosedRange<CivilDate>
    let overridesFrom: CivilDate
    let movedEndingFrom: CivilDate

    init(window: ClosedRange<CivilDate>, series: [StudyTask], slides: [SeriesSlide]) {
        self.window = window
        var forward: [String: Int] = [:]
        for slide in slides { forward[slide.taskID, default: 0] += max(slide.days, 0) }
        var low = window.lowerBound
        for task in series {
            // Mirrors OccurrenceExpander: the earliest original date whose (slid) occurrence can
            // touch the window is from − (span + forward slides).
            let span = task.start.date.days(until: task.lastDate) + 1
            low = min(low, window.lowerBound.adding(days: -(span + forward[task.id, default: 0])))
        }
        let margin = PlanRepository.overrideMarginDays
        overridesFrom = low.adding(days: -margin)
        movedEndingFrom = window.lowerBound.adding(days: -margin)
    }

    /// An override of one of the user's series.
    func keeps(_ o: OccurrenceOverride) -> Bool {
        if o.originalDate >= overridesFrom { return true }
        guard let end = o.end, o.isMove else { return false }
        return end.date >= movedEndingFrom
    }

    /// A one-off task.
    func keeps(_ t: StudyTask) -> Bool {
        t.lastDate >= window.lowerBound || !t.completed
    }
}
