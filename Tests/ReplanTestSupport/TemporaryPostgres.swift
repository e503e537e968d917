import Foundation
import Store

/// A fresh PostgreSQL database of its own on the throwaway server `scripts/test` starts
/// (`REPLAN_TEST_POSTGRES_URL`), dropped when the value goes away. Each test makes its own, so
/// tests run in parallel on one server.
///
/// Without a server the PostgreSQL tests are skipped (`isAvailable` is their condition); under
/// `REPLAN_REQUIRE_POSTGRES=1` (CI) `PostgresRequirementTests` fails instead.
package final class TemporaryPostgres: Sendable {
    /// The server's URL, naming its maintenance database.
    package static let serverURL: String? = {
        let value = ProcessInfo.processInfo.environment["REPLAN_TEST_POSTGRES_URL"] ?? ""
        return value.isEmpty ? nil : value
    }()

    /// Whether PostgreSQL tests can run here.
    package static var isAvailable: Bool { serverURL != nil }

    /// Whether a skipped PostgreSQL test must count as a failure (CI sets it).
    package static var isRequired: Bool { ProcessInfo.processInfo.environment["REPLAN_REQUIRE_POSTGRES"] == "1" }

    package let name: String
    /// The connection URI of this test's database.
    package let url: String

    package init() throws {
        guard let server = Self.serverURL else { throw TemporaryPostgresError.noServer }
        name = "replan_test_\(UUID().uuidString.replacingOccurrences(of: "-", with: "").lowercased())"
        url = try Self.url(server, database: name)
        let admin = try PostgresConnection.connect(server)
        // The name is generated above (letters, digits, underscores), never input.
        try admin.execute("CREATE DATABASE \(name) TEMPLATE template0 ENCODING 'UTF8'")
    }

    deinit {
        guard let server = Self.serverURL, let admin = try? PostgresConnection.connect(server) else { return }
        _ = try? admin.execute("DROP DATABASE IF EXISTS \(name) WITH (FORCE)")
    }

    /// A connection to this test's database. The database is dropped when this value goes
    /// away; keep it alive while the connection is used (`withConnection` does).
    package func connect() throws -> PostgresConnection { try PostgresConnection.connect(url) }

    /// Runs `body` on a connection to a fresh database, dropped afterwards.
    package static func withConnection(_ body: (PostgresConnection) throws -> Void) throws {
        let database = try TemporaryPostgres()
        try withExtendedLifetime(database) { try body(try database.connect()) }
    }

    /// `server` with its database replaced by `database`.
    package static func url(_ server: String, database: String) throws -> String {
        guard var parts = URLComponents(string: server) else { throw TemporaryPostgresError.unreadableURL }
        parts.path = "/\(database)"
        guard let text = parts.string else { throw TemporaryPostgresError.unreadableURL }
        return text
    }
}

package enum TemporaryPostgresError: Error, CustomStringConvertible {
    case noServer
    case unreadableURL

    package var description: String {
        switch self {
        case .noServer: "REPLAN_TEST_POSTGRES_URL is not set: run the tests with scripts/test"
        case .unreadableURL: "REPLAN_TEST_POSTGRES_URL is not a URL"
        }
    }
}
