import Foundation

/// The repository's files the tests read: fixtures, the Python helpers in `Tests/Support`,
/// `prompts/` and the built binary, all found from this file's place in
/// `<root>/Tests/ReplanTestSupport/`, so a fresh clone tests itself with nothing beside it.
///
/// The fixtures stay plain files in the repository (not SwiftPM resources): the Python helpers
/// read them by path too, and a path computed from `#filePath` needs no bundle on Linux.
package enum TestFiles {
    /// The repository root.
    package static let root: URL = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent() // ReplanTestSupport
        .deletingLastPathComponent() // Tests
        .deletingLastPathComponent()

    /// A file of the repository, by its path from the root.
    package static func path(_ relative: String) -> String {
        root.appendingPathComponent(relative).path
    }

    /// The system-prompt templates.
    package static var prompts: String { path("prompts") }

    /// A helper script of `Tests/Support` (`mock_openai.py`, `validate_ics.py`, …).
    package static func support(_ name: String) -> String { path("Tests/Support/" + name) }

    /// `Tests/Fixtures`, where fixtures used by the tests live (`openai/`, `firestore/`).
    package static var fixtures: URL { root.appendingPathComponent("Tests/Fixtures") }

    /// A fixture file by its path below `Tests/Fixtures` (`"firestore/firestore-export.json"`).
    package static func fixture(_ relative: String) -> URL { fixtures.appendingPathComponent(relative) }

    /// A fixture's bytes.
    package static func fixtureData(_ relative: String) throws -> Data { try Data(contentsOf: fixture(relative)) }

    /// A fixture's text (UTF-8).
    package static func fixtureText(_ relative: String) throws -> String {
        try String(contentsOf: fixture(relative), encoding: .utf8)
    }
}
