import Foundation
import JSON
import ReplanTestSupport
import Testing

@testable import Assistant

/// The OpenAI fixtures, kept in the repository (`Tests/Fixtures/openai`, sources in its
/// `SOURCES.md`) so that a clone tests itself with nothing beside it.
enum Fixtures {
    static var directory: URL { TestFiles.fixture("openai") }

    static var schema: URL { directory.appendingPathComponent("chat-completions-schema.yaml") }

    static func data(_ name: String) throws -> Data {
        try TestFiles.fixtureData("openai/" + name)
    }

    static func json(_ name: String) throws -> JSONValue {
        try JSONValue(parsing: data(name))
    }

    static func response(_ name: String) throws -> ChatCompletionResponse {
        try ChatCompletionResponse.decode(data(name))
    }

    static func errorBody(_ name: String) throws -> APIErrorBody {
        try #require(APIErrorBody.decode(data(name)), "\(name) is not an error body")
    }

    /// Top-level fixture files (recordings excluded) whose names start with `prefix`.
    static func files(withPrefix prefix: String = "") throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: directory.path)
            .filter { $0.hasSuffix(".json") && $0.hasPrefix(prefix) }
            .sorted()
    }

    static func recording(_ name: String) throws -> [JSONValue] {
        let document = try json("recordings/dotnet_\(name).json")
        guard case .array(let entries)? = document["Entries"] else {
            throw FixtureError(description: "recording \(name) has no Entries")
        }
        return entries
    }

    struct FixtureError: Error, CustomStringConvertible {
        var description: String
    }
}

extension JSONValue {
    /// The value re-serialised, for decoding one part of a larger fixture.
    var data: Data { get throws { try JSONCoding.encode(self) } }
}
