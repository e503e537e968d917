/// One study window of a weekday, `HH:MM-HH:MM` in local time, start < end (`24:00` allowed
/// as an end).
package struct StudyWindow: Hashable, Sendable, CustomStringConvertible {
    package let start: TimeOfDay
    package let end: TimeOfDay

    package init(start: TimeOfDay, end: TimeOfDay) throws(DataError) {
        guard start < end else {
            throw DataError(path: "", message: "window \(start)-\(end) must start before it ends")
        }
        self.start = start
        self.end = end
    }

    package init(_ text: String) throws(DataError) {
        // Stored settings hold exactly `HH:MM-HH:MM`; read those from the bytes (every due
        // student's settings are decoded each night).
        var bytes = text
        let exact = bytes.withUTF8 { (b) -> (start: TimeOfDay, end: TimeOfDay)? in
            guard b.count == 11, b[5] == UInt8(ascii: "-"),
                let start = TimeOfDay(utf8: UnsafeBufferPointer(rebasing: b[0..<5])),
                let end = TimeOfDay(utf8: UnsafeBufferPointer(rebasing: b[6..<11]), allowingEndOfDay: true)
            else { return nil }
            return (start, end)
        }
        if let exact {
            try self.init(start: exact.start, end: exact.end)
            return
        }
        let parts = text.split(separator: "-", omittingEmptySubsequences: false)
        guard parts.count == 2,
            let s = TimeOfDay(parts[0].trimmingCharacters(in: " ")),
            let e = TimeOfDay(parts[1].trimmingCharacters(in: " "), allowingEndOfDay: true)
        else {
            throw DataError(path: "", message: "window '\(text)' is not HH:MM-HH:MM")
        }
        try self.init(start: s, end: e)
    }

    package var minutes: Int { end.minutes - start.minutes }
    package var description: String { "\(start)-\(end == TimeOfDay(minutes: 1440) ? "24:00" : end.description)" }
}

extension StringProtocol {
    func trimmingCharacters(in set: Character) -> String {
        var s = Substring(self)
        while s.first == set { s.removeFirst() }
        while s.last == set { s.removeLast() }
        return String(s)
    }
}

/// The study windows of every weekday. A weekday may have none.
package struct WeeklyWindows: Hashable, Sendable {
    package private(set) var byWeekday: [Weekday: [StudyWindow]]

    /// Validates each day: windows sorted by start and not overlapping. Days are checked
    /// Monday first, so the same input always reports the same error.
    package init(_ byWeekday: [Weekday: [StudyWindow]]) throws(DataError) {
        var sorted: [Weekday: [StudyWindow]] = [:]
        for day in Weekday.allCases {
            guard let windows = byWeekday[day], !windows.isEmpty else { continue }
            let ordered = windows.sorted { $0.start < $1.start }
            for (a, b) in zip(ordered, ordered.dropFirst()) where b.start < a.end {
                throw DataError(path: day.rawValue, message: "windows \(a) and \(b) overlap")
            }
            sorted[day] = ordered
        }
        self.byWeekday = sorted
    }

    /// Parses `{"mon": ["09:00-12:00", …]}` style text ranges.
    package init(text: [Weekday: [String]]) throws(DataError) {
        var parsed: [Weekday: [StudyWindow]] = [:]
        for day in Weekday.allCases {
            guard let ranges = text[day] else { continue }
            var list: [StudyWindow] = []
            for (i, r) in ranges.enumerated() {
                do { list.append(try StudyWindow(r)) } catch { throw error.under("\(day.rawValue)[\(i)]") }
            }
            parsed[day] = list
        }
        try self.init(parsed)
    }

    package func windows(on day: Weekday) -> [StudyWindow] { byWeekday[day] ?? [] }

    /// Mon–Fri 09:00–17:00, the default of docs/data-format.md §2.2.
    package static let standard: WeeklyWindows = {
        let nineToFive = try! StudyWindow(start: TimeOfDay(hour: 9, minute: 0), end: TimeOfDay(hour: 17, minute: 0))
        return try! WeeklyWindows([
            .mon: [nineToFive], .tue: [nineToFive], .wed: [nineToFive], .thu: [nineToFive], .fri: [nineToFive],
        ])
    }()

    /// What every day has when the user's window preference is off (docs/planning.md §1.4).
    package static let windowsOff: WeeklyWindows = {
        let day = try! StudyWindow(start: TimeOfDay(hour: 8, minute: 0), end: TimeOfDay(hour: 22, minute: 0))
        return try! WeeklyWindows(Dictionary(uniqueKeysWithValues: Weekday.allCases.map { ($0, [day]) }))
    }()
}
