/// A day of the week, Monday first, named as in the settings (`mon` … `sun`).
package enum Weekday: String, CaseIterable, Sendable, Codable, Comparable {
    case mon, tue, wed, thu, fri, sat, sun

    package var index: Int { Weekday.allCases.firstIndex(of: self)! }

    package static func < (a: Weekday, b: Weekday) -> Bool { a.index < b.index }

    /// The English name, for messages, the model's prompt and the CLI ("Wednesday"). A
    /// student's own language takes its names from the note texts instead.
    package var englishName: String {
        ["Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday"][index]
    }

    /// The English three-letter name ("Wed").
    package var englishAbbreviation: String { String(englishName.prefix(3)) }
}
