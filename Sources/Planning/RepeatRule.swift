/// How a series repeats: from the task's first start, every day / week / month, until an
/// optional inclusive last date.
public struct RepeatRule: Hashable, Sendable {
    public enum Frequency: String, CaseIterable, Sendable, Codable {
        case daily, weekly, monthly
    }

    public var every: Frequency
    public var until: CivilDate?

    public init(every: Frequency, until: CivilDate? = nil) {
        self.every = every; self.until = until
    }
}
