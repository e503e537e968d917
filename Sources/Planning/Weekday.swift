/// A day of the week, Monday first, named as in the settings (`mon` … `sun`).
public enum Weekday: String, CaseIterable, Sendable, Codable, Comparable {
    case mon, tue, wed, thu, fri, sat, sun

    public var index: Int { Weekday.allCases.firstIndex(of: self)! }

    public static func < (a: Weekday, b: Weekday) -> Bool { a.index < b.index }
}
