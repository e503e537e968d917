/// One checklist item of a task.
public struct Subtask: Hashable, Sendable, Codable {
    public var title: String
    public var done: Bool

    public init(title: String, done: Bool = false) {
        self.title = title; self.done = done
    }
}
