import CPostgres
import Foundation

/// A PostgreSQL connection URI as libpq reads it, and the parts of it that may be shown: host,
/// port, database and user. The password (in the URI, `PGPASSWORD` or a password file) is only
/// ever handed to libpq; `description` and every error message leave it out.
package struct PostgresLocation: Sendable, Equatable, CustomStringConvertible {
    /// The URI exactly as given, passed to libpq unchanged so `sslmode`, `application_name`,
    /// `connect_timeout` and the rest reach it.
    package let uri: String
    package let host: String
    package let port: String
    package let database: String
    package let user: String
    /// Texts that must never appear in output: the URI's password and `PGPASSWORD`.
    private let secrets: [String]

    /// Whether a `--db` value names PostgreSQL rather than a SQLite file.
    package static func isURI(_ location: String) -> Bool {
        location.hasPrefix("postgresql://") || location.hasPrefix("postgres://")
    }

    /// Parses `uri` with libpq's own parser; a URI libpq refuses is `.badLocation`, described
    /// without the URI (it may hold the password).
    package init(_ uri: String, environment: [String: String] = ProcessInfo.processInfo.environment)
        throws(StoreError)
    {
        var failure: UnsafeMutablePointer<CChar>?
        guard let options = PQconninfoParse(uri, &failure) else {
            let reason = failure.map { String(cString: $0) } ?? "libpq could not read it"
            if let failure { PQfreemem(failure) }
            throw StoreError.badLocation(reason: PostgresLocation.trimmed(reason))
        }
        defer { PQconninfoFree(options) }
        var values: [String: String] = [:]
        var option = options
        while let keyword = option.pointee.keyword {
            if let value = option.pointee.val { values[String(cString: keyword)] = String(cString: value) }
            option += 1
        }
        func part(_ key: String, _ variable: String) -> String? {
            if let value = values[key], !value.isEmpty { return value }
            if let value = environment[variable], !value.isEmpty { return value }
            return nil
        }
        self.uri = uri
        host = part("host", "PGHOST") ?? "localhost"
        port = part("port", "PGPORT") ?? "5432"
        let login = environment["USER"] ?? environment["LOGNAME"] ?? "postgres"
        user = part("user", "PGUSER") ?? login
        database = part("dbname", "PGDATABASE") ?? user
        secrets = [values["password"], environment["PGPASSWORD"]].compactMap { $0 }.filter { !$0.isEmpty }
    }

    /// `host:port/database as user`, never the password.
    package var description: String { "\(host):\(port)/\(database) as \(user)" }

    /// `message` with every secret replaced, for text that comes back from libpq or the server.
    package func redacting(_ message: String) -> String {
        var text = message
        for secret in secrets { text = text.replacingOccurrences(of: secret, with: "***") }
        return PostgresLocation.trimmed(text)
    }

    /// libpq's messages end with a newline and may span lines; one line reads better in errors.
    static func trimmed(_ message: String) -> String {
        message.split(whereSeparator: \.isNewline).map { $0.trimmingCharacters(in: .whitespaces) }
            .filter { !$0.isEmpty }.joined(separator: "; ")
    }
}
