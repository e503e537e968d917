/// Where someone wants to put a session: an existing occurrence, or a task that does not
/// exist yet (the model's `create`, an undo that restores a deleted task).
package struct PlacementCandidate: Hashable, Sendable {
    /// What is being placed.
    package enum Subject: Hashable, Sendable {
        case occurrence(OccurrenceID)
        /// A new session, known by the title and category that give its chain key (all-day
        /// sessions only collide with all-day sessions of the same key).
        case newTask(title: String, category: String)
    }

    package var subject: Subject
    package var start: CivilDateTime
    package var end: CivilDateTime
    package var allDay: Bool

    package init(_ subject: Subject, start: CivilDateTime, end: CivilDateTime, allDay: Bool = false) {
        self.subject = subject
        self.start = start
        self.end = end
        self.allDay = allDay
    }
}
