import Planning

/// One focus session the app's timer recorded: how long the student studied a category.
package struct StoredFocusSession: Hashable, Sendable {
    package var id: Int
    package var userID: String
    package var category: String
    /// Local wall-clock start in the user's zone.
    package var start: CivilDateTime
    package var minutes: Int

    package init(id: Int, userID: String, category: String, start: CivilDateTime, minutes: Int) {
        self.id = id
        self.userID = userID
        self.category = category
        self.start = start
        self.minutes = minutes
    }
}

/// Focus sessions of users: recorded by import and the app, summed into statistics.
package struct FocusSessionRepository {
    let db: any SQLExecutor

    package init(_ db: any SQLExecutor) { self.db = db }

    /// Records a session. - Throws: `.unknownUser`.
    @discardableResult
    package func add(userID: String, category: String, start: CivilDateTime, minutes: Int) throws(StoreError)
        -> StoredFocusSession
    {
        try db.write { (db) throws(StoreError) -> StoredFocusSession in
            guard try UserRepository(db).exists(userID) else { throw StoreError.unknownUser(userID) }
            let id = try db.queryFirst(
                "INSERT INTO focus_sessions (user_id, category, start, minutes) VALUES (?, ?, ?, ?) RETURNING id",
                [.text(userID), .text(category), .text(start.description), .integer(minutes)]
            ) { $0.int(0) }
            return StoredFocusSession(id: id ?? 0, userID: userID, category: category, start: start, minutes: minutes)
        }
    }

    /// A user's sessions by start, optionally only those starting within `dates`.
    package func sessions(userID: String, dates: ClosedRange<CivilDate>? = nil) throws(StoreError)
        -> [StoredFocusSession]
    {
        var sql = "SELECT id, user_id, category, start, minutes FROM focus_sessions WHERE user_id = ?"
        var values: [SQLValue] = [.text(userID)]
        if let dates {
            sql += " AND start >= ? AND start < ?"
            values += [.text(dates.lowerBound.description), .text(dates.upperBound.adding(days: 1).description)]
        }
        return try db.query(sql + " ORDER BY start, id", values) { (s) throws(StoreError) -> StoredFocusSession in
            guard let start = CivilDateTime(s.text(3)) else {
                throw StoreError.malformedRow(entity: "focus session", key: String(s.int(0)), problem: "bad start")
            }
            return StoredFocusSession(
                id: s.int(0), userID: s.text(1), category: s.text(2), start: start, minutes: s.int(4))
        }
    }

    /// Total focus minutes per category of a user. Summed here rather than with `GROUP BY`,
    /// which costs SQLite a sorter on every call (the nightly job asks for every student).
    package func minutesByCategory(userID: String) throws(StoreError) -> [String: Int] {
        let rows = try db.query(Self.minutesSQL, [.text(userID)]) { ($0.text(0), $0.int(1)) }
        return Dictionary(rows, uniquingKeysWith: +)
    }

    static let minutesSQL = "SELECT category, minutes FROM focus_sessions WHERE user_id = ?"
}
