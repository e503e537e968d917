import ReplanTestSupport

/// What an in-process console printed on each stream, from whichever thread printed it.
struct Captured: Sendable {
    let out = Shared<[String]>()
    let err = Shared<[String]>()

    func appendOut(_ text: String) { out.append(text) }
    func appendErr(_ text: String) { err.append(text) }

    var stdout: String { out.all.joined() }
    var stderr: String { err.all.joined() }
}
