/// Time the student spent with the app's focus timer on a category; feeds focus minutes.
package struct FocusSession: Hashable, Sendable {
    package var category: String
    package var start: CivilDateTime
    package var minutes: Int

    package init(category: String, start: CivilDateTime, minutes: Int) {
        self.category = category
        self.start = start
        self.minutes = minutes
    }
}
