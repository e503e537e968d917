/// One checklist item of a task.
package struct Subtask: Hashable, Sendable, Codable {
    package var title: String
    package var done: Bool

    package init(title: String, done: Bool = false) {
        self.title = title
        self.done = done
    }
}
