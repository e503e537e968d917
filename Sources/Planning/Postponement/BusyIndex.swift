/// What occupies a user's days (docs/planning.md §1.5), indexed by local date.
///
/// Holds the timed intervals of open and completed occurrences and, separately, the all-day
/// ones: all-day occurrences never collide with timed ones, only with all-day occurrences of
/// the same chain key. Occurrences that are being moved are not removed while a placement is
/// worked out; callers pass their ids as `ignoring`, which keeps "who blocks whom" explicit.
package struct BusyIndex: Sendable {
    /// One busy occurrence as the placement rules see it.
    package struct Entry: Hashable, Sendable {
        package var id: OccurrenceID
        package var title: String
        /// Only all-day entries need a chain key (timed ones collide by time alone); computing
        /// it for every entry would cost a title normalisation per busy session.
        package var key: ChainKey?
        package var start: CivilDateTime
        package var end: CivilDateTime
        package var allDay: Bool

        package init(_ o: Occurrence) {
            id = o.id
            title = o.title
            key = o.allDay ? ChainKey(o) : nil
            start = o.start
            end = o.end
            allDay = o.allDay
        }

        /// Local dates the entry touches (an end at midnight does not touch its day).
        var dayNumbers: ClosedRange<Int> {
            let last = allDay ? end.date.dayNumber : max(start.minuteNumber, end.minuteNumber - 1) / 1440
            return start.date.dayNumber...max(start.date.dayNumber, last)
        }
    }

    /// The entries, each in a slot that stays put while it is busy; nil marks a free slot.
    /// The per-day lists and the id lookup hold slot numbers, so an entry (an id, a title and
    /// maybe a chain key: several strings) is stored once and never copied around by the
    /// index, and a removal touches only the days of the removed entry.
    private var slots: [Entry?] = []
    private var freeSlots: [Int] = []
    private var slotOfID: [OccurrenceID: Int] = [:]
    /// The slots touching each day, from `firstDay` on: a day is an array position, not a key
    /// to hash. Order within a day means nothing; every query orders or picks by start and id.
    private var days: [DaySlots] = []
    private var firstDay = 0

    private struct DaySlots {
        var timed: [Int] = []
        var allDay: [Int] = []
    }

    package init() {}

    /// Indexes the open and completed occurrences among `occurrences`; skipped ones are free.
    package init(_ occurrences: [Occurrence]) {
        // Room for as many again: the planner extends the index by weeks at a time, and growing
        // the id table means hashing every id in it once more.
        slots.reserveCapacity(2 * occurrences.count)
        slotOfID.reserveCapacity(2 * occurrences.count)
        for o in occurrences { insert(o) }
    }

    package func contains(_ id: OccurrenceID) -> Bool { slotOfID[id] != nil }
    package func entry(_ id: OccurrenceID) -> Entry? { slotOfID[id].flatMap { slots[$0] } }

    /// Adds an occurrence, replacing any entry with its id. Skipped occurrences are not busy.
    package mutating func insert(_ o: Occurrence) {
        guard o.state != .skipped else {
            remove(o.id)
            return
        }
        let slot = store(Entry(o))
        // One lookup both files the new slot and finds the entry it replaces.
        if let replaced = slotOfID.updateValue(slot, forKey: o.id) { release(replaced) }
        link(slot)
    }

    /// `insert`, unless an entry with the occurrence's id is already there (it then stays).
    package mutating func insertIfAbsent(_ o: Occurrence) {
        guard o.state != .skipped else { return }
        let slot = store(Entry(o))
        // The `default:` subscript looks the id up once and files the new slot if it is new.
        var filed = -1
        func file(_ existing: inout Int) {
            if existing < 0 { existing = slot }
            filed = existing
        }
        file(&slotOfID[o.id, default: -1])
        if filed == slot {
            link(slot)
        } else {
            slots[slot] = nil
            freeSlots.append(slot)
        }
    }

    package mutating func remove(_ id: OccurrenceID) {
        guard let slot = slotOfID.removeValue(forKey: id) else { return }
        release(slot)
    }

    /// Puts an entry in a free slot (not yet on any day).
    private mutating func store(_ e: Entry) -> Int {
        if let free = freeSlots.popLast() {
            slots[free] = e
            return free
        }
        slots.append(e)
        return slots.count - 1
    }

    /// Lists a stored entry on the days it touches.
    private mutating func link(_ slot: Int) {
        guard let e = slots[slot] else { return }
        let range = e.dayNumbers
        makeRoom(for: range)
        for day in range {
            if e.allDay { days[day - firstDay].allDay.append(slot) } else { days[day - firstDay].timed.append(slot) }
        }
    }

    /// Takes an entry off its days and frees its slot (its id is already unfiled).
    private mutating func release(_ slot: Int) {
        guard let e = slots[slot] else { return }
        for day in e.dayNumbers {
            if e.allDay {
                if let i = days[day - firstDay].allDay.firstIndex(of: slot) {
                    days[day - firstDay].allDay.remove(at: i)
                }
            } else if let i = days[day - firstDay].timed.firstIndex(of: slot) {
                days[day - firstDay].timed.remove(at: i)
            }
        }
        slots[slot] = nil
        freeSlots.append(slot)
    }

    /// Removes every entry of one task (all occurrences of a series).
    package mutating func removeAll(taskID: String) {
        let ids = slots.compactMap { $0?.id.taskID == taskID ? $0?.id : nil }
        for id in ids { remove(id) }
    }

    /// Timed entries touching `day`, by start.
    package func timed(on day: CivilDate, ignoring: Set<OccurrenceID> = []) -> [Entry] {
        timedSlots(on: day.dayNumber).compactMap { slots[$0] }.filter { !ignores(ignoring, $0.id) }
            .sorted { ($0.start, $0.id) < ($1.start, $1.id) }
    }

    /// The minutes (civil minute numbers) the timed entries touching `day` occupy, in no
    /// particular order: what the slot search subtracts from a day's windows.
    func timedIntervals(on day: CivilDate, ignoring: Set<OccurrenceID> = []) -> [Range<Int>] {
        timedSlots(on: day.dayNumber).compactMap { slot in
            guard let e = slots[slot], !ignores(ignoring, e.id) else { return nil }
            return e.start.minuteNumber..<e.end.minuteNumber
        }
    }

    /// All-day entries on `day`, by id.
    package func allDay(on day: CivilDate, ignoring: Set<OccurrenceID> = []) -> [Entry] {
        allDaySlots(on: day.dayNumber).compactMap { slots[$0] }.filter { !ignores(ignoring, $0.id) }.sorted {
            $0.id < $1.id
        }
    }

    /// The earliest timed entry overlapping `start ..< end` (civil minute numbers).
    package func timedConflict(start: Int, end: Int, ignoring: Set<OccurrenceID> = []) -> Entry? {
        guard end > start else { return nil }
        var best: Entry?
        let firstDay = start / 1440 - (start < 0 && start % 1440 != 0 ? 1 : 0)
        let lastDay = (end - 1) / 1440
        for day in firstDay...max(firstDay, lastDay) {
            for slot in timedSlots(on: day) {
                guard let e = slots[slot], e.start.minuteNumber < end, start < e.end.minuteNumber,
                    !ignores(ignoring, e.id)
                else { continue }
                if best.map({ (e.start, e.id) < ($0.start, $0.id) }) ?? true { best = e }
            }
        }
        return best
    }

    /// An all-day entry of `key` on any date of `first ... last`.
    package func allDayConflict(key: ChainKey, first: CivilDate, last: CivilDate, ignoring: Set<OccurrenceID> = [])
        -> Entry?
    {
        guard first <= last else { return nil }
        for day in first.dayNumber...last.dayNumber {
            var best: Entry?
            for slot in allDaySlots(on: day) {
                guard let e = slots[slot], e.key == key, !ignores(ignoring, e.id) else { continue }
                if best.map({ e.id < $0.id }) ?? true { best = e }
            }
            if let best { return best }
        }
        return nil
    }

    // MARK: - Storage

    private func timedSlots(on day: Int) -> [Int] {
        day >= firstDay && day - firstDay < days.count ? days[day - firstDay].timed : []
    }

    private func allDaySlots(on day: Int) -> [Int] {
        day >= firstDay && day - firstDay < days.count ? days[day - firstDay].allDay : []
    }

    /// Grows the day table so it covers `range`.
    private mutating func makeRoom(for range: ClosedRange<Int>) {
        if days.isEmpty { firstDay = range.lowerBound }
        if range.lowerBound < firstDay {
            days.insert(contentsOf: repeatElement(DaySlots(), count: firstDay - range.lowerBound), at: 0)
            firstDay = range.lowerBound
        }
        let needed = range.upperBound - firstDay + 1
        if needed > days.count { days.append(contentsOf: repeatElement(DaySlots(), count: needed - days.count)) }
    }

    /// Whether `id` is among the ignored ones. The set is usually the one occurrence being
    /// placed (or a chain's members): comparing a few ids beats hashing one.
    private func ignores(_ ignoring: Set<OccurrenceID>, _ id: OccurrenceID) -> Bool {
        if ignoring.isEmpty { return false }
        if ignoring.count <= 8 { return ignoring.contains { $0 == id } }
        return ignoring.contains(id)
    }
}
