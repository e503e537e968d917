import CPostgres
import Foundation

/// One libpq connection to a PostgreSQL server: the PostgreSQL side of the `SQLExecutor`
/// boundary. Every value is sent as text through `PQexecParams` (the server casts it to the
/// column's type), so no value is ever part of the SQL text; results come back as text too.
///
/// Errors carry the SQLSTATE and the server's primary message with bound values and the
/// password taken out, and name the server by host, port, database and user.
///
/// Used from one thread at a time, like the SQLite `Database` (not `Sendable`).
package final class PostgresConnection: SQLExecutor {
    package let location: PostgresLocation
    private var connection: OpaquePointer?
    private var transactionDepth = 0
    /// Inside `joiningNestedWrites`: nested `write`s run in the open transaction.
    private var nestedWritesJoin = false

    package var engine: DatabaseEngine { .postgresql }

    private init(location: PostgresLocation, connection: OpaquePointer) {
        self.location = location
        self.connection = connection
    }

    deinit { if let connection { PQfinish(connection) } }

    /// Connects to the server `uri` names (a libpq connection URI; the password may also come
    /// from `PGPASSWORD` or the password file).
    ///
    /// - Throws: `.badLocation` for a URI libpq cannot read, `.cannotConnect` for an
    ///   unreachable server, a refused login or a missing database.
    package static func connect(_ uri: String) throws(StoreError) -> PostgresConnection {
        let location = try PostgresLocation(uri)
        guard let raw = PQconnectdb(uri) else {
            throw StoreError.cannotConnect(server: location.description, reason: "libpq is out of memory")
        }
        guard PQstatus(raw) == CONNECTION_OK else {
            let reason = location.redacting(String(cString: PQerrorMessage(raw)))
            PQfinish(raw)
            throw StoreError.cannotConnect(server: location.description, reason: reason)
        }
        // Notices (e.g. "relation already exists, skipping") would go to stderr by default.
        PQsetNoticeProcessor(raw, { _, _ in }, nil)
        let db = PostgresConnection(location: location, connection: raw)
        guard PQsetClientEncoding(raw, "UTF8") == 0 else {
            throw StoreError.cannotConnect(server: location.description, reason: "the server refuses UTF8")
        }
        return db
    }

    /// Closes the connection; using it afterwards is a programming error.
    package func close() {
        if let connection { PQfinish(connection) }
        connection = nil
    }

    private var handle: OpaquePointer {
        guard let connection else { preconditionFailure("PostgreSQL connection \(location) used after close()") }
        return connection
    }

    package var isInTransaction: Bool { transactionDepth > 0 }

    // MARK: Statements

    package var locationDescription: String { location.description }

    @discardableResult
    package func execute(_ sql: String, _ values: [SQLValue]) throws(StoreError) -> Int {
        let result = try run(sql, values, verb: "execute")
        guard let tuples = PQcmdTuples(result.handle) else { return 0 }
        return Int(String(cString: tuples)) ?? 0
    }

    package func query<T>(_ sql: String, _ values: [SQLValue], _ row: (any SQLRow) throws(StoreError) -> T)
        throws(StoreError) -> [T]
    {
        let result = try run(sql, values, verb: "query")
        let count = PQntuples(result.handle)
        var mapped: [T] = []
        mapped.reserveCapacity(Int(count))
        for index in 0..<count { mapped.append(try row(PostgresRow(result: result, row: index))) }
        return mapped
    }

    package func queryFirst<T>(_ sql: String, _ values: [SQLValue], _ row: (any SQLRow) throws(StoreError) -> T)
        throws(StoreError) -> T?
    {
        let result = try run(sql, values, verb: "query")
        guard PQntuples(result.handle) > 0 else { return nil }
        return try row(PostgresRow(result: result, row: 0))
    }

    /// Runs several `;`-separated statements without bindings (schema scripts), in one round trip.
    package func executeScript(_ sql: String) throws(StoreError) {
        let result = PQexec(handle, sql)
        _ = try checked(result, sql: sql, values: [], verb: "script")
    }

    /// Sends one statement with its values as text parameters.
    ///
    /// A statement with parameters is prepared once per connection (the server then parses and
    /// plans it once, not on every execution: the night runs the same few dozen statements for
    /// every student), up to `preparedLimit` texts; any further text runs unprepared. A
    /// prepared statement outlives a transaction that rolls back, as the protocol defines, and a
    /// preparation that fails is not remembered.
    private func run(_ sql: String, _ values: [SQLValue], verb: String) throws(StoreError) -> PostgresResult {
        let parameters: [UnsafeMutablePointer<CChar>?] = values.map { $0.postgresText.map { strdup($0) } ?? nil }
        defer { for parameter in parameters { free(parameter) } }
        let pointers = parameters.map { $0.map { UnsafePointer($0) } }
        guard !values.isEmpty else {
            let result = PQexecParams(handle, PostgresPlaceholders.numbered(sql), 0, nil, nil, nil, nil, 0)
            return try checked(result, sql: sql, values: values, verb: verb)
        }
        if let name = try preparedName(sql, parameterCount: values.count) {
            let result = PQexecPrepared(handle, name, Int32(values.count), pointers, nil, nil, 0)
            return try checked(result, sql: sql, values: values, verb: verb)
        }
        let result = PQexecParams(
            handle, PostgresPlaceholders.numbered(sql), Int32(values.count), nil, pointers, nil, nil, 0)
        return try checked(result, sql: sql, values: values, verb: verb)
    }

    /// Prepared statements by SQL text.
    private var prepared: [String: String] = [:]
    static let preparedLimit = 256

    /// The name of `sql`'s prepared statement, preparing it now if needed; nil once the limit
    /// is reached (the statement then runs unprepared).
    private func preparedName(_ sql: String, parameterCount: Int) throws(StoreError) -> String? {
        if let name = prepared[sql] { return name }
        guard prepared.count < Self.preparedLimit else { return nil }
        let name = "replan_\(prepared.count + 1)"
        let result = PQprepare(handle, name, PostgresPlaceholders.numbered(sql), 0, nil)
        _ = try checked(result, sql: sql, values: [], verb: "prepare")
        prepared[sql] = name
        return name
    }

    private func checked(_ result: OpaquePointer?, sql: String, values: [SQLValue], verb: String)
        throws(StoreError) -> PostgresResult
    {
        guard let result else {
            throw StoreError.postgres(
                failure(
                    sqlState: "08000", message: String(cString: PQerrorMessage(handle)), sql: sql, values: values,
                    verb: verb))
        }
        let wrapped = PostgresResult(result)
        switch PQresultStatus(result) {
        case PGRES_COMMAND_OK, PGRES_TUPLES_OK, PGRES_EMPTY_QUERY: return wrapped
        default:
            let state = PQresultErrorField(result, Int32(UInt8(ascii: "C"))).map { String(cString: $0) }
            let primary = PQresultErrorField(result, Int32(UInt8(ascii: "M"))).map { String(cString: $0) }
            let lost = PQstatus(handle) != CONNECTION_OK
            throw StoreError.postgres(
                failure(
                    sqlState: state ?? (lost ? "08006" : "XX000"),
                    message: primary ?? String(cString: PQerrorMessage(handle)), sql: sql, values: values, verb: verb))
        }
    }

    /// The server's message without bound values or secrets. Data exceptions (class 22, e.g.
    /// `invalid input syntax for type integer: "…"`) quote the offending value after a colon, so
    /// their message stops there; any other bound text that still appears is blanked.
    private func failure(sqlState: String, message: String, sql: String, values: [SQLValue], verb: String)
        -> PostgresFailure
    {
        var text = message
        if sqlState.hasPrefix("22"), let colon = text.firstIndex(of: ":") { text = String(text[..<colon]) }
        for value in values {
            guard let bound = value.postgresText, bound.count >= 2 else { continue }
            text = text.replacingOccurrences(of: bound, with: "…")
        }
        return PostgresFailure(
            sqlState: sqlState, message: location.redacting(text), operation: operationName(verb, sql),
            server: location.description)
    }

    // MARK: Transactions

    /// A top-level write runs `REPEATABLE READ`: the night and undo read versions and then write
    /// the rows they checked, so a row another connection (the app's backend) changes after the
    /// snapshot makes the write fail with a serialization failure (`isBusy`, retried) instead of
    /// being overwritten under READ COMMITTED.
    @discardableResult
    package func write<T>(_ body: (any SQLExecutor) throws(StoreError) -> T) throws(StoreError) -> T {
        if transactionDepth > 0 && nestedWritesJoin { return try body(self) }
        return try transaction(begin: "BEGIN ISOLATION LEVEL REPEATABLE READ", body)
    }

    @discardableResult

    package func read<T>(_ body: (any SQLExecutor) throws(StoreError) -> T) throws(StoreError) -> T {
        if transactionDepth > 0 { return try body(self) }
        return try transaction(begin: "BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY", body)
    }

    @discardableResult

    package func joiningNestedWrites<T>(_ body: (any SQLExecutor) throws(StoreError) -> T) throws(StoreError) -> T {
        precondition(transactionDepth > 0, "joiningNestedWrites needs an open transaction")
        let outer = nestedWritesJoin
        nestedWritesJoin = true
        defer { nestedWritesJoin = outer }
        return try body(self)
    }

    private func transaction<T>(begin: String, _ body: (any SQLExecutor) throws(StoreError) -> T)
        throws(StoreError) -> T
    {
        let depth = transactionDepth
        let savepoint = "replan_\(depth)"
        try execute(depth == 0 ? begin : "SAVEPOINT \(savepoint)")
        transactionDepth += 1
        defer { transactionDepth = depth }
        let result: T
        do throws(StoreError) {
            result = try body(self)
            try execute(depth == 0 ? "COMMIT" : "RELEASE SAVEPOINT \(savepoint)")
        } catch {
            // Best effort: after a lost connection there is nothing left to roll back.
            if depth == 0 {
                discard("ROLLBACK")
            } else {
                discard("ROLLBACK TO SAVEPOINT \(savepoint)")
                discard("RELEASE SAVEPOINT \(savepoint)")
            }
            throw error
        }
        return result
    }

    package func beginBatch() throws(StoreError) {
        precondition(transactionDepth == 0, "a batch can not start inside a transaction")
        try execute("BEGIN ISOLATION LEVEL REPEATABLE READ")
        transactionDepth = 1
    }

    package func commitBatch() throws(StoreError) {
        precondition(transactionDepth == 1, "no batch is open")
        defer { transactionDepth = 0 }
        do throws(StoreError) { try execute("COMMIT") } catch {
            discard("ROLLBACK")
            throw error
        }
    }

    package func rollbackBatch() {
        precondition(transactionDepth == 1, "no batch is open")
        discard("ROLLBACK")
        transactionDepth = 0
    }

    private func discard(_ sql: String) {
        guard let connection else { return }
        PQclear(PQexec(connection, sql))
    }
}

@available(*, unavailable, message: "open one connection per thread; libpq connections are not shared")
extension PostgresConnection: Sendable {}

/// A `PGresult`, cleared when the last reader lets go of it.
final class PostgresResult {
    let handle: OpaquePointer

    init(_ handle: OpaquePointer) { self.handle = handle }

    deinit { PQclear(handle) }
}

/// One row of a PostgreSQL result; every column arrives as text and is read as the type asked.
struct PostgresRow: SQLRow {
    let result: PostgresResult
    let row: Int32

    var columnCount: Int32 { PQnfields(result.handle) }

    func isNull(_ column: Int32) -> Bool { PQgetisnull(result.handle, row, column) != 0 }

    func optionalText(_ column: Int32) -> String? {
        guard !isNull(column), let pointer = PQgetvalue(result.handle, row, column) else { return nil }
        let count = Int(PQgetlength(result.handle, row, column))
        return pointer.withMemoryRebound(to: UInt8.self, capacity: count) {
            String(decoding: UnsafeBufferPointer(start: $0, count: count), as: UTF8.self)
        }
    }

    func text(_ column: Int32) -> String { optionalText(column) ?? "" }

    func withColumnBytes<T>(_ column: Int32, _ body: (UnsafeBufferPointer<UInt8>) -> T?) -> T? {
        guard !isNull(column), let pointer = PQgetvalue(result.handle, row, column) else { return nil }
        let count = Int(PQgetlength(result.handle, row, column))
        return pointer.withMemoryRebound(to: UInt8.self, capacity: count) {
            body(UnsafeBufferPointer(start: $0, count: count))
        }
    }

    /// A boolean column reads `t`/`f`; a `numeric` (what `sum` of a bigint gives) reads its
    /// whole part; anything that is not a number reads 0, as SQLite does.
    func optionalInt(_ column: Int32) -> Int? {
        guard let text = optionalText(column) else { return nil }
        switch text {
        case "t": return 1
        case "f": return 0
        default:
            if let value = Int(text) { return value }
            guard let real = Double(text), real.isFinite, abs(real) < 9.2e18 else { return 0 }
            return Int(real)
        }
    }

    func int(_ column: Int32) -> Int { optionalInt(column) ?? 0 }
    func bool(_ column: Int32) -> Bool { int(column) != 0 }
    func optionalDouble(_ column: Int32) -> Double? { optionalText(column).map { Double($0) ?? 0 } }
    func double(_ column: Int32) -> Double { optionalDouble(column) ?? 0 }
}

extension SQLValue {
    /// The text form PostgreSQL reads for the value; nil for NULL. Doubles use Swift's
    /// shortest round-trip form; blobs the `bytea` hex form.
    var postgresText: String? {
        switch self {
        case .integer(let v): return String(v)
        case .real(let v): return "\(v)"
        case .text(let v): return v
        case .blob(let v): return "\\x" + v.map { String(format: "%02x", $0) }.joined()
        case .null: return nil
        }
    }
}
