/// A day of the week, Monday first, named as in the settings (`mon` … `sun`).
package enum Weekday: String, CaseIterable, Sendable, Codable, Comparable {
    case mon, tue, wed, thu, fri, sat, sun

    package var index: Int { Weekday.allCases.firstIndex(of: self)! }

    package static func < (a: Weekday, b: Weekday) -> Bool { a.index < b.index }
}
