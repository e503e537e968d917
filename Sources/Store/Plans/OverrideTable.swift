import Planning

/// The `occurrence_overrides` table: how an `OccurrenceOverride` maps to a row and back.
enum OverrideTable {
    static let columns = #"task_id, original_date, state, start, "end", version"#
    static let aliasedColumns = #"o.task_id, o.original_date, o.state, o.start, o."end", o.version"#

    static func values(_ o: OccurrenceOverride) -> [SQLValue] {
        [
            .text(o.taskID), .text(o.originalDate.description), .text(o.state.rawValue),
            SQLValue(o.start?.description), SQLValue(o.end?.description), .integer(o.version),
        ]
    }

    static func decode(_ s: any SQLRow) throws(StoreError) -> OccurrenceOverride {
        func bad(_ problem: String) -> StoreError {
            .malformedRow(entity: "override", key: "\(s.text(0))@\(s.text(1))", problem: problem)
        }
        guard let date = s.civilDate(1) else { throw bad("bad original_date") }
        guard let state = OccurrenceState(rawValue: s.text(2)) else { throw bad("unknown state") }
        var start: CivilDateTime?
        var end: CivilDateTime?
        if !s.isNull(3) {
            guard let v = s.civilDateTime(3) else { throw bad("bad start") }
            start = v
        }
        if !s.isNull(4) {
            guard let v = s.civilDateTime(4) else { throw bad("bad end") }
            end = v
        }
        return OccurrenceOverride(
            taskID: s.text(0), originalDate: date, state: state, start: start, end: end, version: s.int(5))
    }

    static let upsertSQL = "INSERT INTO occurrence_overrides (\(columns)) VALUES (?, ?, ?, ?, ?, ?) " + upsertTail

    private static let upsertTail = """
        ON CONFLICT (task_id, original_date) DO UPDATE SET
            state = excluded.state, start = excluded.start, "end" = excluded."end", version = excluded.version
        """

    /// Writes the overrides (`write` of each, with `stored` as there), on PostgreSQL several
    /// rows to a statement (`sendRows`). No override may appear twice.
    static func writeAll(_ rows: [(OccurrenceOverride, stored: Bool)], in db: any SQLExecutor) throws(StoreError) {
        guard db.engine == .postgresql, rows.count > 1 else {
            for row in rows { try write(row.0, stored: row.stored, in: db) }
            return
        }
        try db.sendRows("INSERT INTO occurrence_overrides (\(columns))", rows.map { values($0.0) }, then: upsertTail)
    }

    static func upsert(_ o: OccurrenceOverride, in db: any SQLExecutor) throws(StoreError) {
        try db.send(upsertSQL, values(o))
    }

    /// Writes the override, as an UPDATE when the caller knows the row is stored (see
    /// `TaskTable.write`).
    static func write(_ o: OccurrenceOverride, stored: Bool, in db: any SQLExecutor) throws(StoreError) {
        // On PostgreSQL the upsert goes out with the next round trip (see `TaskTable.write`).
        if stored && db.engine == .sqlite {
            let v = values(o)
            let changed = try db.execute(
                """
                UPDATE occurrence_overrides SET state = ?, start = ?, "end" = ?, version = ? WHERE task_id = ? AND original_date = ?
                """, [v[2], v[3], v[4], v[5], v[0], v[1]])
            if changed == 1 { return }
        }
        try upsert(o, in: db)
    }

    static func delete(taskID: String, date: CivilDate, in db: any SQLExecutor) throws(StoreError) {
        try db.send(
            "DELETE FROM occurrence_overrides WHERE task_id = ? AND original_date = ?",
            [.text(taskID), .text(date.description)])
    }

    static func find(taskID: String, date: CivilDate, in db: any SQLExecutor) throws(StoreError) -> OccurrenceOverride?
    {
        try db.query(
            "SELECT \(columns) FROM occurrence_overrides WHERE task_id = ? AND original_date = ?",
            [.text(taskID), .text(date.description)]
        ) { (s) throws(StoreError) in try decode(s) }.first
    }

    static let allSQL = "SELECT \(columns) FROM occurrence_overrides WHERE task_id = ? ORDER BY original_date"

    static func all(taskID: String, in db: any SQLExecutor) throws(StoreError) -> [OccurrenceOverride] {
        try db.query(allSQL, [.text(taskID)]) { (s) throws(StoreError) in try decode(s) }
    }
}
