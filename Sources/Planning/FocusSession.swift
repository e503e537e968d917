/// Time the student spent with the app's focus timer on a category; feeds focus minutes.
public struct FocusSession: Hashable, Sendable {
    public var category: String
    public var start: CivilDateTime
    public var minutes: Int

    public init(category: String, start: CivilDateTime, minutes: Int) {
        self.category = category; self.start = start; self.minutes = minutes
    }
}
