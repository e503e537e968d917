/// `replan run|preview|undo|redo|log|show`.
enum NightlyCommands {
    static let all: [CommandDescriptor] = []
}
