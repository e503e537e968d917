/// What occupies a user's days (planning.md §1 "busy"), indexed by local date.
///
/// Holds the timed intervals of open and completed occurrences and, separately, the all-day
/// ones: all-day occurrences never collide with timed ones, only with all-day occurrences of
/// the same chain key. Occurrences that are being moved are not removed while a placement is
/// worked out; callers pass their ids as `ignoring`, which keeps "who blocks whom" explicit.
public struct BusyIndex: Sendable {
    /// One busy occurrence as the placement rules see it.
    public struct Entry: Hashable, Sendable {
        public var id: OccurrenceID
        public var title: String
        /// Only all-day entries need a chain key (timed ones collide by time alone); computing
        /// it for every entry would cost a title normalisation per busy session.
        public var key: ChainKey?
        public var start: CivilDateTime
        public var end: CivilDateTime
        public var allDay: Bool

        public init(_ o: Occurrence) {
            id = o.id; title = o.title; key = o.allDay ? ChainKey(o) : nil; start = o.start; end = o.end; allDay = o.allDay
        }

        /// Local dates the entry touches (an end at midnight does not touch its day).
        var dayNumbers: ClosedRange<Int> {
            let last = allDay ? end.date.dayNumber : max(start.minuteNumber, end.minuteNumber - 1) / 1440
            return start.date.dayNumber...max(start.date.dayNumber, last)
        }
    }

    private var timedByDay: [Int: [Entry]] = [:]
    private var allDayByDay: [Int: [Entry]] = [:]
    private var entries: [OccurrenceID: Entry] = [:]

    public init() {}

    /// Indexes the open and completed occurrences among `occurrences`; skipped ones are free.
    public init(_ occurrences: [Occurrence]) {
        for o in occurrences { insert(o) }
    }

    public func contains(_ id: OccurrenceID) -> Bool { entries[id] != nil }
    public func entry(_ id: OccurrenceID) -> Entry? { entries[id] }

    /// Adds an occurrence, replacing any entry with its id. Skipped occurrences are not busy.
    public mutating func insert(_ o: Occurrence) {
        remove(o.id)
        guard o.state != .skipped else { return }
        let e = Entry(o)
        entries[e.id] = e
        for day in e.dayNumbers {
            if e.allDay { allDayByDay[day, default: []].append(e) } else { timedByDay[day, default: []].append(e) }
        }
    }

    public mutating func remove(_ id: OccurrenceID) {
        guard let e = entries.removeValue(forKey: id) else { return }
        for day in e.dayNumbers {
            if e.allDay { allDayByDay[day]?.removeAll { $0.id == id } } else { timedByDay[day]?.removeAll { $0.id == id } }
        }
    }

    /// Removes every entry of one task (all occurrences of a series).
    public mutating func removeAll(taskID: String) {
        for id in entries.keys where id.taskID == taskID { remove(id) }
    }

    /// Timed entries touching `day`, by start.
    public func timed(on day: CivilDate, ignoring: Set<OccurrenceID> = []) -> [Entry] {
        (timedByDay[day.dayNumber] ?? []).filter { !ignoring.contains($0.id) }.sorted { ($0.start, $0.id) < ($1.start, $1.id) }
    }

    /// All-day entries on `day`, by id.
    public func allDay(on day: CivilDate, ignoring: Set<OccurrenceID> = []) -> [Entry] {
        (allDayByDay[day.dayNumber] ?? []).filter { !ignoring.contains($0.id) }.sorted { $0.id < $1.id }
    }

    /// The earliest timed entry overlapping `start ..< end` (civil minute numbers).
    public func timedConflict(start: Int, end: Int, ignoring: Set<OccurrenceID> = []) -> Entry? {
        guard end > start else { return nil }
        var best: Entry?
        let firstDay = start / 1440 - (start < 0 && start % 1440 != 0 ? 1 : 0)
        let lastDay = (end - 1) / 1440
        for day in firstDay...max(firstDay, lastDay) {
            for e in timedByDay[day] ?? [] where !ignoring.contains(e.id)
                && e.start.minuteNumber < end && start < e.end.minuteNumber {
                if best.map({ (e.start, e.id) < ($0.start, $0.id) }) ?? true { best = e }
            }
        }
        return best
    }

    /// An all-day entry of `key` on any date of `first ... last`.
    public func allDayConflict(key: ChainKey, first: CivilDate, last: CivilDate, ignoring: Set<OccurrenceID> = []) -> Entry? {
        guard first <= last else { return nil }
        for day in first.dayNumber...last.dayNumber {
            if let e = (allDayByDay[day] ?? []).filter({ $0.key == key && !ignoring.contains($0.id) }).min(by: { $0.id < $1.id }) {
                return e
            }
        }
        return nil
    }
}
