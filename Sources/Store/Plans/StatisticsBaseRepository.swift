import JSON
import Planning

/// A student's settled statistics: per-category counts of the sessions that start on or
/// before `through`, kept so the nightly recount reads only the days after it instead of the
/// whole history (a student with years of history would otherwise cost the job more each
/// night).
///
/// A base is only as good as the rows it was counted from, so every write of the user's plan
/// rows (`ChangesetStore` commit, undo, redo: the only writers of tasks, overrides and slides)
/// calls `invalidate`, which raises `serial` and drops the base when the write touches a date
/// on or before `through`. The nightly job stores a new base only if `serial` is still the
/// one it read, so a base counted from a snapshot that a concurrent edit has since made stale
/// is never stored.
package struct StatisticsBase: Hashable, Sendable {
    /// Raised by every write of the user's plan rows; 0 when the user has no row yet.
    package var serial: Int
    /// The last date counted in `counts`; nil when there is no valid base.
    package var through: CivilDate?
    package var counts: [String: CategoryCount]

    package init(serial: Int, through: CivilDate?, counts: [String: CategoryCount]) {
        self.serial = serial
        self.through = through
        self.counts = counts
    }
}

package struct StatisticsBaseRepository {
    let db: any SQLExecutor

    package init(_ db: any SQLExecutor) { self.db = db }

    /// The user's base (serial 0 and no date when none was ever stored).
    package func base(userID: String) throws(StoreError) -> StatisticsBase {
        try Self.base(try db.queryFirst(Self.baseSQL, [.text(userID)]) { StoredRow($0) }, userID: userID)
    }

    /// The query `base(userID:)` runs (one `?`, the user id), for a caller that reads it in a
    /// batch with others (`SQLExecutor.queryEach`): its row, kept as `StoredRow`, becomes the
    /// base through `base(_:userID:)`.
    package static let baseSQL = "SELECT serial, through, counts FROM statistics_base WHERE user_id = ?"

    /// A row of `baseSQL`, not yet checked.
    package struct StoredRow {
        let serial: Int
        let through: String?
        let counts: String?

        package init(_ s: any SQLRow) {
            serial = s.int(0)
            through = s.optionalText(1)
            counts = s.optionalText(2)
        }
    }

    /// The base a stored row (nil: none) holds.
    /// - Throws: `.malformedRow` for a row replan did not write.
    package static func base(_ row: StoredRow?, userID: String) throws(StoreError) -> StatisticsBase {
        guard let row else { return StatisticsBase(serial: 0, through: nil, counts: [:]) }
        let serial = row.serial
        guard let throughText = row.through, let countsText = row.counts else {
            return StatisticsBase(serial: serial, through: nil, counts: [:])
        }
        func bad(_ problem: String) -> StoreError {
            .malformedRow(entity: "statistics base", key: userID, problem: problem)
        }
        guard let through = CivilDate(throughText) else { throw bad("bad through date") }
        guard let object = try StoredJSON.parse(countsText, entity: "statistics base", key: userID).objectValue else {
            throw bad("counts is not an object")
        }
        var counts: [String: CategoryCount] = [:]
        for (category, pair) in object {
            guard let values = pair.arrayValue, values.count == 2, let tasks = values[0].intValue,
                let completed = values[1].intValue
            else {
                throw bad("counts of \(category) are not [tasks, completed]")
            }
            counts[category] = CategoryCount(tasks: tasks, completed: completed)
        }
        return StatisticsBase(serial: serial, through: through, counts: counts)
    }

    /// The user's current serial (0 without a row).
    package func serial(userID: String) throws(StoreError) -> Int {
        try db.queryFirst(Self.serialSQL, [.text(userID)]) { $0.int(0) } ?? 0
    }

    /// The query `serial(userID:)` runs (one `?`, the user id; no row means 0), for a batch.
    package static let serialSQL = "SELECT serial FROM statistics_base WHERE user_id = ?"

    /// Stores a base counted through `through` and raises the serial. The caller has checked,
    /// in the same write transaction, that the serial is still the one its counts were read
    /// with (allowing for its own changeset's raise).
    ///
    /// `raise`: by how much; 2 stands for a changeset's `invalidate` followed by this store, in
    /// one statement (`ChangesetStore.commit(_:thenStoring:)`): both leave the same row.
    package func store(userID: String, through: CivilDate, counts: [String: CategoryCount], raise: Int = 1)
        throws(StoreError)
    {
        var object: [String: JSONValue] = [:]
        for (category, c) in counts { object[category] = [.int(c.tasks), .int(c.completed)] }
        try db.send(
            """
            INSERT INTO statistics_base (user_id, serial, through, counts) VALUES (?1, ?4, ?2, ?3)
            ON CONFLICT (user_id) DO UPDATE SET serial = statistics_base.serial + ?4, through = ?2, counts = ?3
            """,
            [.text(userID), .text(through.description), .text(JSONValue.object(object).text), .integer(raise)])
    }

    /// A base to store right after a changeset (`ChangesetStore.commit(_:thenStoring:)`).
    package struct Counted {
        package var through: CivilDate
        package var counts: [String: CategoryCount]

        package init(through: CivilDate, counts: [String: CategoryCount]) {
            self.through = through
            self.counts = counts
        }
    }

    /// Records a write of the user's plan rows whose earliest affected date is `earliest`
    /// (nil: no plan date affected): raises the serial and drops the base if the write reaches
    /// back to or before its date.
    package func invalidate(userID: String, earliest: CivilDate?) throws(StoreError) {
        try db.send(
            """
            INSERT INTO statistics_base (user_id, serial) VALUES (?1, 1)
            ON CONFLICT (user_id) DO UPDATE SET serial = statistics_base.serial + 1,
                through = CASE WHEN ?2 <= statistics_base.through THEN NULL ELSE statistics_base.through END,
                counts = CASE WHEN ?2 <= statistics_base.through THEN NULL ELSE statistics_base.counts END
            """, [.text(userID), SQLValue(earliest?.description)])
    }
}
