import Foundation
import ReplanTestSupport
import Testing

@testable import Store

/// What is particular to the PostgreSQL side of the boundary: reading connection URIs and the
/// failures of connecting, each naming the server and never the password.
@Suite struct PostgresLocationTests {
    @Test func aURINamesHostPortDatabaseAndUserButNotThePassword() throws {
        let location = try PostgresLocation(
            "postgresql://alice:hunter2@db.example:6543/replan?sslmode=require&application_name=night", environment: [:]
        )
        #expect(location.host == "db.example")
        #expect(location.port == "6543")
        #expect(location.database == "replan")
        #expect(location.user == "alice")
        #expect(location.description == "db.example:6543/replan as alice")
        #expect(location.redacting("password hunter2 was wrong") == "password *** was wrong")
    }

    @Test func missingPartsComeFromTheEnvironmentThenLibpqDefaults() throws {
        let fromEnvironment = try PostgresLocation(
            "postgres://", environment: ["PGHOST": "pg.internal", "PGUSER": "night", "PGPASSWORD": "s3cret"])
        #expect(fromEnvironment.description == "pg.internal:5432/night as night")
        #expect(!fromEnvironment.redacting("with s3cret").contains("s3cret"))
        let defaults = try PostgresLocation("postgresql:///replan", environment: ["USER": "student"])
        #expect(defaults.description == "localhost:5432/replan as student")
    }

    @Test func theEngineFollowsTheScheme() {
        #expect(DatabaseEngine(location: "postgresql://h/db") == .postgresql)
        #expect(DatabaseEngine(location: "postgres://h/db") == .postgresql)
        #expect(DatabaseEngine(location: "/var/lib/replan/replan.db") == .sqlite)
        #expect(DatabaseEngine(location: "postgresql.db") == .sqlite)
    }

    @Test func anUnreadableURIIsRefusedWithoutRepeatingIt() {
        let error = #expect(throws: StoreError.self) {
            _ = try PostgresLocation("postgresql://alice:hunter2@host/db?nosuchoption=1", environment: [:])
        }
        guard case .badLocation(let reason) = error else {
            Issue.record("expected badLocation, got \(String(describing: error))")
            return
        }
        #expect(reason.contains("nosuchoption"))
        #expect(!reason.contains("hunter2"))
    }
}

@Suite(.enabled(if: TemporaryPostgres.isAvailable || TemporaryPostgres.isRequired))
struct PostgresConnectionTests {
    @Test func aWrongPasswordIsRefusedNamingTheHostNotThePassword() throws {
        let server = try #require(TemporaryPostgres.serverURL)
        var parts = try #require(URLComponents(string: server))
        parts.password = "wrong-horse-battery"
        let error = #expect(throws: StoreError.self) { _ = try PostgresConnection.connect(try #require(parts.string)) }
        guard case .cannotConnect(let host, let reason) = error else {
            Issue.record("expected cannotConnect, got \(String(describing: error))")
            return
        }
        #expect(host.hasPrefix("127.0.0.1:"))
        #expect(reason.contains("password"))
        let text = error.map { "\($0)" } ?? ""
        #expect(!text.contains("wrong-horse-battery"))
    }

    @Test func anUnreachableServerIsNamed() throws {
        // Port 1 on loopback: nothing listens there, so the connection is refused at once.
        let error = #expect(throws: StoreError.self) {
            _ = try PostgresConnection.connect("postgresql://night:pw-unreachable@127.0.0.1:1/replan?connect_timeout=5")
        }
        #expect(error?.description.contains("127.0.0.1:1/replan as night") == true)
        #expect(error?.description.contains("pw-unreachable") == false)
    }

    @Test func aMissingDatabaseIsRefused() throws {
        let server = try #require(TemporaryPostgres.serverURL)
        let error = #expect(throws: StoreError.self) {
            _ = try PostgresConnection.connect(try TemporaryPostgres.url(server, database: "replan_not_there"))
        }
        #expect(error?.description.contains("replan_not_there") == true)
    }

    @Test func aValueTheServerCannotCastIsNotRepeated() throws {
        try TemporaryPostgres.withConnection { db in
            let error = #expect(throws: StoreError.self) {
                try db.execute("SELECT CAST(? AS BIGINT)", ["not-a-number-secret"])
            }
            guard case .postgres(let failure) = error else {
                Issue.record("expected a PostgreSQL failure, got \(String(describing: error))")
                return
            }
            #expect(failure.sqlState == "22P02")
            #expect(!failure.description.contains("not-a-number-secret"))
        }
    }

    @Test func eachTestHasADatabaseOfItsOwn() throws {
        let first = try TemporaryPostgres()
        let second = try TemporaryPostgres()
        try withExtendedLifetime((first, second)) {
            try first.connect().execute("CREATE TABLE mine (id TEXT)", [])
            let tables = try second.connect().query(
                "SELECT count(*) FROM information_schema.tables WHERE table_name = ?", ["mine"]
            ) { $0.int(0) }
            #expect(tables == [0])
            #expect(first.name != second.name)
        }
    }

    /// A night's first students fill tables that were empty when the connection planned its
    /// statements and the foreign-key checks its writes fire; a plan made then scans the table
    /// whole, and would go on scanning it as it grows. The connection makes its plans again as
    /// it goes (after 64, 128, 256, … transactions), so the check finds its row by the index.
    @Test func plansMadeOnAnEmptyTableAreMadeAgainAsItFills() throws {
        let database = try TemporaryPostgres()
        let db = try database.connect()
        try db.executeScript(
            """
            CREATE TABLE parent (id TEXT COLLATE "C" PRIMARY KEY, filler TEXT NOT NULL)
                WITH (autovacuum_enabled = false);
            CREATE TABLE child (parent_id TEXT COLLATE "C" NOT NULL REFERENCES parent (id), n BIGINT NOT NULL);
            """)
        // As `copy-database` leaves a deployment that has no changesets yet: analysed while
        // empty, so the planner believes the table's real size. (Never analysed, it would
        // assume ten pages and pick the index from the start.) Autovacuum stays out, since its
        // analyze would drop the plans too. Rows this wide fill a page every few rows, so by the
        // first re-plan the index is the cheaper way in.
        try db.execute("ANALYZE parent")
        let filler = String(repeating: "x", count: 1_500)
        for k in 0..<400 {
            try db.write { (db) throws(StoreError) in
                try db.send("INSERT INTO parent (id, filler) VALUES (?, ?)", [.text("p\(k)"), .text(filler)])
                try db.send("INSERT INTO child (parent_id, n) VALUES (?, ?)", [.text("p\(k)"), .integer(k)])
            }
        }
        // This connection's scan counters reach the statistics view once it flushes them.
        _ = try db.query("SELECT pg_stat_force_next_flush()", []) { _ in 0 }
        let scans = try #require(
            try db.queryFirst("SELECT seq_scan, idx_scan FROM pg_stat_user_tables WHERE relname = 'parent'", []) {
                (sequential: $0.int(0), index: $0.int(1))
            })
        // Each child insert checks its parent once: by a scan until the first re-plan, then by the index.
        #expect(scans.sequential + scans.index >= 400)
        #expect(scans.sequential < 150, "the checks kept scanning the table: \(scans)")
        withExtendedLifetime(database) {}
    }
}
