import Foundation

/// The exclusive lock of a PostgreSQL database (its once-a-night chores; runs themselves share
/// the night through `NightClaims`): a session-level advisory lock, held on a connection opened
/// for nothing else, for as long as this object lives.
///
/// Why a connection of its own: a session advisory lock belongs to the session, so it must not
/// share a connection with transactions that may fail and reconnect. The server releases it
/// when the session ends, however it ends: `kill -9` of the run closes the socket and the next
/// run can start (on a lost network, once the server notices the dead connection).
///
/// The lock keys on the database: two runs on the same server but different databases do not
/// meet; two runs reaching one database by different URIs (another host name, `sslmode`) do.
package final class PostgresRunLock: @unchecked Sendable {
    // @unchecked: the connection is touched only by `tryAcquire` (before anyone else can see
    // this object) and by `deinit`.
    private let connection: PostgresConnection

    /// The advisory lock key of the chores: an arbitrary constant of replan's own.
    static let key = 7_211_021_003

    private init(connection: PostgresConnection) { self.connection = connection }

    deinit {
        _ = try? connection.execute("SELECT pg_advisory_unlock(?)", [.integer(Self.key)])
        connection.close()
    }

    /// Connects and tries the lock without waiting.
    /// - Returns: the held lock, or nil when another session (another run) holds it.
    static func tryAcquire(_ location: PostgresLocation) throws(StoreError) -> PostgresRunLock? {
        let connection = try PostgresConnection.connect(location.uri)
        let held =
            try connection.queryFirst("SELECT pg_try_advisory_lock(?)", [.integer(key)]) { $0.bool(0) } ?? false
        guard held else {
            connection.close()
            return nil
        }
        return PostgresRunLock(connection: connection)
    }
}
