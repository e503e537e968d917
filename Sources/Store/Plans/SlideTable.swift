import Planning

/// The `series_slides` table: how a `SeriesSlide` maps to a row and back.
enum SlideTable {
    static let columns = "task_id, from_date, days, version"
    static let aliasedColumns = "s.task_id, s.from_date, s.days, s.version"

    static func decode(_ s: any SQLRow) throws(StoreError) -> SeriesSlide {
        guard let from = s.civilDate(1) else {
            throw StoreError.malformedRow(entity: "slide", key: "\(s.text(0))@\(s.text(1))", problem: "bad from_date")
        }
        return SeriesSlide(taskID: s.text(0), from: from, days: s.int(2), version: s.int(3))
    }

    static let upsertSQL = """
        INSERT INTO series_slides (\(columns)) VALUES (?, ?, ?, ?)
        ON CONFLICT (task_id, from_date) DO UPDATE SET days = excluded.days, version = excluded.version
        """

    static func upsert(_ slide: SeriesSlide, in db: any SQLExecutor) throws(StoreError) {
        try db.send(
            upsertSQL,
            [.text(slide.taskID), .text(slide.from.description), .integer(slide.days), .integer(slide.version)])
    }

    static func delete(taskID: String, from: CivilDate, in db: any SQLExecutor) throws(StoreError) {
        try db.send(
            "DELETE FROM series_slides WHERE task_id = ? AND from_date = ?", [.text(taskID), .text(from.description)])
    }

    static func find(taskID: String, from: CivilDate, in db: any SQLExecutor) throws(StoreError) -> SeriesSlide? {
        try db.query(
            "SELECT \(columns) FROM series_slides WHERE task_id = ? AND from_date = ?",
            [.text(taskID), .text(from.description)]
        ) { (s) throws(StoreError) in try decode(s) }.first
    }

    static let allSQL = "SELECT \(columns) FROM series_slides WHERE task_id = ? ORDER BY from_date"

    static func all(taskID: String, in db: any SQLExecutor) throws(StoreError) -> [SeriesSlide] {
        try db.query(allSQL, [.text(taskID)]) { (s) throws(StoreError) in try decode(s) }
    }
}
