import CPostgres
import Foundation

/// One libpq connection to a PostgreSQL server: the PostgreSQL side of the `SQLExecutor`
/// boundary. Every value is sent as a text parameter (the server casts it to the column's
/// type), so no value is ever part of the SQL text; results come back as text too.
///
/// Inside a transaction, writes given to `send` and the transaction's own `BEGIN` or
/// `SAVEPOINT` are held back and go out as one libpq pipeline with the next statement that
/// needs an answer: a night's student costs a few round trips instead of one per statement.
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
    /// How many times this connection waited for the server's answer (a pipeline counts
    /// once): what the pipeline saves, for the tests to see.
    package private(set) var roundTrips = 0
    /// How many statements this connection sent (preparations aside): what grouping rows
    /// into statements saves, for the tests to see.
    package private(set) var statementsSent = 0

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

    /// Sends the queries, after whatever `send` holds, as one pipeline: one round trip for all.
    package func queryEach<T>(
        _ queries: [(sql: String, values: [SQLValue])], _ row: (Int, any SQLRow) throws(StoreError) -> T
    ) throws(StoreError) -> [[T]] {
        guard !pipelineBroken else { throw brokenPipeline(sql: queries.first?.sql ?? "", verb: "query") }
        if queries.count <= 1 && held.isEmpty {
            return try queries.map { (q) throws(StoreError) -> [T] in
                try query(q.sql, q.values) { (s) throws(StoreError) -> T in try row(0, s) }
            }
        }
        let results = try flush(then: queries.map { Held(number: 0, sql: $0.sql, values: $0.values, verb: "query") })
        var mapped: [[T]] = []
        mapped.reserveCapacity(results.count)
        for (index, result) in results.enumerated() {
            var rows: [T] = []
            for r in 0..<PQntuples(result.handle) { rows.append(try row(index, PostgresRow(result: result, row: r))) }
            mapped.append(rows)
        }
        return mapped
    }

    /// Runs several `;`-separated statements without bindings (schema scripts), in one round trip.
    package func executeScript(_ sql: String) throws(StoreError) {
        guard !pipelineBroken else { throw brokenPipeline(sql: sql, verb: "script") }
        if !held.isEmpty { try flush(then: []) }
        roundTrips += 1
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
        guard !pipelineBroken else { throw brokenPipeline(sql: sql, verb: verb) }
        if !held.isEmpty, let result = try flush(then: [Held(number: 0, sql: sql, values: values, verb: verb)]).first {
            return result
        }
        let parameters: [UnsafeMutablePointer<CChar>?] = values.map { $0.postgresText.map { strdup($0) } ?? nil }
        defer { for parameter in parameters { free(parameter) } }
        let pointers = parameters.map { $0.map { UnsafePointer($0) } }
        roundTrips += 1
        statementsSent += 1
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
        roundTrips += 1
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
        try verify(wrapped, sql: sql, values: values, verb: verb)
        return wrapped
    }

    /// Throws the failure a result reports, if it does.
    private func verify(_ wrapped: PostgresResult, sql: String, values: [SQLValue], verb: String)
        throws(StoreError)
    {
        let result = wrapped.handle
        switch PQresultStatus(result) {
        case PGRES_COMMAND_OK, PGRES_TUPLES_OK, PGRES_EMPTY_QUERY: return
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

    // MARK: The pipeline

    /// A statement held back until the next one that needs an answer; `number` counts every
    /// statement ever held on this connection, so a rollback can tell whether the statement
    /// that opened its transaction or savepoint reached the server.
    private struct Held {
        var number: Int
        var sql: String
        var values: [SQLValue]
        var verb: String
    }

    /// Held statements, oldest first.
    private var held: [Held] = []
    /// The number of the last statement held, and of the last one sent.
    private var heldThrough = 0
    private var sentThrough = 0
    /// Set when the connection could not leave pipeline mode: every later statement fails
    /// (as a lost connection, which the caller discards) rather than run out of step.
    private var pipelineBroken = false
    /// How many statements one pipeline holds at most; more are sent in several. The server
    /// answers each with a few bytes, far below what the socket buffers hold, so the client
    /// never blocks on a full socket while the server waits for it to read.
    static let pipelineLimit = 512

    package func send(_ sql: String, _ values: [SQLValue]) throws(StoreError) {
        guard transactionDepth > 0 else {
            _ = try run(sql, values, verb: "execute")
            return
        }
        hold(sql, values, verb: "execute")
        if held.count >= Self.pipelineLimit { try flush(then: []) }
    }

    private func hold(_ sql: String, _ values: [SQLValue], verb: String) {
        heldThrough += 1
        held.append(Held(number: heldThrough, sql: sql, values: values, verb: verb))
    }

    /// Sends the held statements and then `answered` as one pipeline, and reads every
    /// answer before looking at any: the connection leaves pipeline mode in step with the
    /// server whatever failed. The server skips every statement after a failed one up to the
    /// pipeline's end, so the first failure is thrown (named by its own statement) and the
    /// transaction is left aborted for the caller's rollback.
    ///
    /// - Returns: the results of `answered`, in order.
    @discardableResult
    private func flush(then answered: [Held]) throws(StoreError) -> [PostgresResult] {
        var statements = held
        held.removeAll()
        statements += answered
        // Preparing is a round trip of its own, not allowed in pipeline mode: done first (once
        // per text and connection, so only the first student pays it).
        var names: [String?] = []
        names.reserveCapacity(statements.count)
        for statement in statements {
            names.append(
                statement.values.isEmpty
                    ? nil : try preparedName(statement.sql, parameterCount: statement.values.count))
        }
        guard PQenterPipelineMode(handle) == 1 else {
            throw StoreError.postgres(
                failure(
                    sqlState: "08000", message: String(cString: PQerrorMessage(handle)), sql: statements[0].sql,
                    values: [], verb: statements[0].verb))
        }
        // From here on the held statements may have reached the server: a rollback goes there.
        if let number = statements.last(where: { $0.number > 0 })?.number { sentThrough = number }
        var sent = 0
        for (statement, name) in zip(statements, names) {
            guard pipelineSend(statement, prepared: name) else { break }
            sent += 1
        }
        statementsSent += sent
        let synced = PQpipelineSync(handle) == 1
        roundTrips += 1
        // Each statement's answer is followed by a null result; the pipeline's end by a
        // PGRES_PIPELINE_SYNC result. A lost connection gives nulls only: bounded by `sent`.
        var results: [PostgresResult?] = Array(repeating: nil, count: sent)
        var index = 0
        while synced && index <= sent {
            guard let raw = PQgetResult(handle) else {
                index += 1
                if PQstatus(handle) != CONNECTION_OK { break }
                continue
            }
            let result = PostgresResult(raw)
            if PQresultStatus(raw) == PGRES_PIPELINE_SYNC { break }
            if index < sent, results[index] == nil { results[index] = result }
        }
        if PQexitPipelineMode(handle) != 1 { pipelineBroken = true }
        for (offset, statement) in statements.enumerated() {
            guard offset < sent, let result = results[offset] else {
                throw StoreError.postgres(
                    failure(
                        sqlState: "08006", message: String(cString: PQerrorMessage(handle)), sql: statement.sql,
                        values: statement.values, verb: statement.verb))
            }
            // Skipped because an earlier statement failed: that one was thrown already.
            if PQresultStatus(result.handle) == PGRES_PIPELINE_ABORTED { continue }
            try verify(result, sql: statement.sql, values: statement.values, verb: statement.verb)
        }
        if pipelineBroken { throw brokenPipeline(sql: statements[0].sql, verb: statements[0].verb) }
        return results.suffix(answered.count).compactMap { $0 }
    }

    /// Queues one statement of a pipeline; false when libpq could not (a lost connection).
    private func pipelineSend(_ statement: Held, prepared name: String?) -> Bool {
        let parameters: [UnsafeMutablePointer<CChar>?] = statement.values.map {
            $0.postgresText.map { strdup($0) } ?? nil
        }
        defer { for parameter in parameters { free(parameter) } }
        let pointers = parameters.map { $0.map { UnsafePointer($0) } }
        let count = Int32(statement.values.count)
        if let name { return PQsendQueryPrepared(handle, name, count, pointers, nil, nil, 0) == 1 }
        return PQsendQueryParams(
            handle, PostgresPlaceholders.numbered(statement.sql), count, nil, count == 0 ? nil : pointers, nil, nil,
            0) == 1
    }

    private func brokenPipeline(sql: String, verb: String) -> StoreError {
        .postgres(
            failure(
                sqlState: "08006", message: "the connection could not leave pipeline mode; open a new one", sql: sql,
                values: [], verb: verb))
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
        if depth == 0 { replanIfDue() }
        let savepoint = "replan_\(depth)"
        if depth > 0 && !held.isEmpty {
            // The outer level's held statements go out first, with the savepoint: an error in
            // one of them is the outer level's, thrown before this savepoint exists.
            try execute("SAVEPOINT \(savepoint)")
        } else {
            // Held, not sent: it goes out with the first statement inside that needs an answer.
            hold(depth == 0 ? begin : "SAVEPOINT \(savepoint)", [], verb: "execute")
        }
        let opening = heldThrough
        transactionDepth += 1
        defer { transactionDepth = depth }
        let result: T
        do throws(StoreError) {
            result = try body(self)
            // The release or commit sends whatever is still held: an error in it lands here.
            try execute(depth == 0 ? "COMMIT" : "RELEASE SAVEPOINT \(savepoint)")
        } catch {
            rollBack(depth: depth, savepoint: savepoint, opening: opening)
            throw error
        }
        return result
    }

    /// Undoes a failed transaction or savepoint: what it still holds is dropped unsent, and
    /// once its opening statement has reached the server it is rolled back there too (best
    /// effort: after a lost connection there is nothing left to roll back).
    private func rollBack(depth: Int, savepoint: String, opening: Int) {
        held.removeAll { $0.number >= opening }
        guard sentThrough >= opening else { return }
        if depth == 0 {
            discard("ROLLBACK")
        } else {
            discard("ROLLBACK TO SAVEPOINT \(savepoint)")
            discard("RELEASE SAVEPOINT \(savepoint)")
        }
    }

    package func beginBatch() throws(StoreError) {
        precondition(transactionDepth == 0, "a batch can not start inside a transaction")
        replanIfDue()
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
        held.removeAll()
        discard("ROLLBACK")
        transactionDepth = 0
    }

    /// Top-level transactions begun on this connection, and the count at which its cached
    /// plans are next thrown away.
    private var transactionsBegun = 0
    private var replanAt = 64

    /// The server keeps the plan of a prepared statement, and of the foreign-key checks its
    /// writes fire, for the connection's life. A plan made while a table was nearly empty (the
    /// changesets of a first night) scans it whole, and keeps scanning as the night fills it,
    /// so a long first night slows as it goes (docs/benchmark.md). After 64, 128, 256, …
    /// transactions the plans are dropped and made again for the tables as they are now:
    /// doubling keeps the re-planning to a few dozen times however long the night.
    private func replanIfDue() {
        transactionsBegun += 1
        guard transactionsBegun >= replanAt, held.isEmpty else { return }
        replanAt = replanAt > Int.max / 2 ? Int.max : replanAt * 2
        discard("DISCARD PLANS")
    }

    private func discard(_ sql: String) {
        guard let connection, !pipelineBroken else { return }
        roundTrips += 1
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
