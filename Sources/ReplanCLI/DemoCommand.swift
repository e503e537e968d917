/// `replan demo`.
enum DemoCommand {
    static let descriptor = CommandDescriptor(path: ["demo"], synopsis: "demo", summary: "create a sample database and run the nightly job on it", options: []) { _ in .success }
}
