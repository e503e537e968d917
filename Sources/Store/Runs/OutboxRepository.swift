import Foundation
import Planning

/// The notification outbox: rows written with changesets (and their undo/redo), read and
/// removed by whatever delivers push messages.
package struct OutboxRepository {
    let db: any SQLExecutor

    package init(_ db: any SQLExecutor) { self.db = db }

    /// The advisory lock every PostgreSQL transaction holds from its first outbox row to its
    /// commit: an arbitrary constant of replan's own (the migrations hold another).
    static let insertLockKey = 7_211_021_002

    /// Writes outbox rows in the caller's transaction.
    ///
    /// On PostgreSQL, identity values are handed out when a row is inserted, not when its
    /// transaction commits: with two writers, id 11 could commit and be delivered before id 10,
    /// and a consumer whose cursor passed 11 would never see 10. So every transaction takes one
    /// transaction-scoped advisory lock before its first outbox row; outbox writers then commit
    /// in the order of their ids, and "ids only grow, a cursor never skips a row" holds as on
    /// SQLite (where the write lock orders every transaction). The lock is held only from the
    /// outbox insert to the commit, which is the end of every writer's transaction.
    package func insert(
        _ entries: [OutboxEntry], userID: String, changesetID: ChangesetID?, createdAt: Date
    ) throws(StoreError) {
        if !entries.isEmpty, db.engine == .postgresql {
            try db.send("SELECT pg_advisory_xact_lock(?)", [.integer(Self.insertLockKey)])
        }
        // Several rows to a statement (`sendRows`): a row's id is handed out as the statement
        // reaches it, so the ids follow the entries' order as with one statement each.
        try db.sendRows(
            """
            INSERT INTO notification_outbox
                (user_id, occurrence_id, fire_at, action, created_at, changeset_id, kind, title, body)
            """,
            entries.map { (entry) -> [SQLValue] in
                var e = entry
                if let id = changesetID, var note = e.note {
                    note.body = OutboxRepository.replacing(
                        OutboxEntry.Note.changesetMark, with: id.rawValue, in: note.body)
                    e.note = note
                }
                return [
                    .text(userID), .text(e.occurrenceID.description), .text(Timestamp.text(e.fireAt)),
                    .text(e.action.rawValue),
                    .text(Timestamp.text(createdAt)), SQLValue(changesetID?.rawValue), .text(e.kind.rawValue),
                    SQLValue(e.note?.title), SQLValue(e.note?.body),
                ]
            })
    }

    /// A user's pending rows, in insertion order.
    package func entries(userID: String) throws(StoreError) -> [StoredOutboxEntry] {
        try db.query(
            "SELECT \(OutboxRepository.columns) FROM notification_outbox WHERE user_id = ? ORDER BY id", [.text(userID)]
        ) {
            (s) throws(StoreError) in try OutboxRepository.decode(s)
        }
    }

    /// The rows written with one changeset (and its undo/redo), in insertion order.
    package func entries(changesetID: ChangesetID) throws(StoreError) -> [StoredOutboxEntry] {
        try db.query(
            "SELECT \(OutboxRepository.columns) FROM notification_outbox WHERE changeset_id = ? ORDER BY id",
            [.text(changesetID.rawValue)]
        ) { (s) throws(StoreError) in try OutboxRepository.decode(s) }
    }

    /// Rows after `cursor` (a row id; 0 for the start), in id order: the delivery contract of
    /// `replan outbox`. Ids only grow and are never handed out twice (`AUTOINCREMENT` or the
    /// identity's sequence, raised by every acknowledged cursor), and rows commit in id order
    /// (see `insert`), so a consumer that remembers the last id it handled never sees a row
    /// twice and never skips one.
    package func entries(after cursor: Int, limit: Int) throws(StoreError) -> [StoredOutboxEntry] {
        try db.query(
            "SELECT \(OutboxRepository.columns) FROM notification_outbox WHERE id > ? ORDER BY id LIMIT ?",
            [.integer(cursor), .integer(limit)]
        ) { (s) throws(StoreError) in try OutboxRepository.decode(s) }
    }

    /// Removes every row up to and including `cursor` (the consumer has handled them), and
    /// makes sure no later row gets an id at or below it, so the consumer's cursor stays
    /// behind every row still to come.
    /// - Returns: how many rows were removed.
    @discardableResult
    package func acknowledge(through cursor: Int) throws(StoreError) -> Int {
        try db.write { (db) throws(StoreError) -> Int in
            let removed = try db.execute("DELETE FROM notification_outbox WHERE id <= ?", [.integer(cursor)])
            switch db.engine {
            case .sqlite:
                try db.execute(
                    "UPDATE sqlite_sequence SET seq = max(seq, ?) WHERE name = 'notification_outbox'",
                    [.integer(cursor)])
            case .postgresql:
                try db.execute(
                    """
                    SELECT setval(pg_get_serial_sequence('notification_outbox', 'id'), ?, true)
                    FROM (SELECT CASE WHEN is_called THEN last_value ELSE 0 END AS issued
                        FROM notification_outbox_id_seq) s WHERE s.issued < ?
                    """, [.integer(cursor), .integer(cursor)])
            }
            return removed
        }
    }

    /// The highest id ever handed out or acknowledged (0 for a new outbox): a cursor above it
    /// did not come from this outbox.
    package func highestIssuedID() throws(StoreError) -> Int {
        let sql =
            switch db.engine {
            case .sqlite: "SELECT seq FROM sqlite_sequence WHERE name = 'notification_outbox'"
            case .postgresql:
                "SELECT CASE WHEN is_called THEN last_value ELSE 0 END FROM notification_outbox_id_seq"
            }
        return try db.queryFirst(sql) { $0.int(0) } ?? 0
    }

    /// Removes delivered rows.
    package func remove(ids: [Int]) throws(StoreError) {
        try db.write { (db) throws(StoreError) in
            for id in ids { try db.execute("DELETE FROM notification_outbox WHERE id = ?", [.integer(id)]) }
        }
    }

    /// `text` with every `mark` replaced, found byte by byte in its UTF-8 (a night writes
    /// thousands of notes; Foundation's replacement costs several times as much).
    static func replacing(_ mark: String, with value: String, in text: String) -> String {
        let bytes = Array(text.utf8)
        let needle = Array(mark.utf8)
        guard !needle.isEmpty, bytes.count >= needle.count else { return text }
        var out: [UInt8] = []
        out.reserveCapacity(bytes.count + value.utf8.count)
        var i = 0
        var found = false
        while i < bytes.count {
            if bytes[i] == needle[0], i + needle.count <= bytes.count, Array(bytes[i..<(i + needle.count)]) == needle {
                out += value.utf8
                i += needle.count
                found = true
            } else {
                out.append(bytes[i])
                i += 1
            }
        }
        return found ? String(decoding: out, as: UTF8.self) : text
    }

    static let columns = "id, user_id, occurrence_id, fire_at, action, created_at, changeset_id, kind, title, body"

    static func decode(_ s: any SQLRow) throws(StoreError) -> StoredOutboxEntry {
        let key = String(s.int(0))
        let kind = OutboxEntry.Kind(rawValue: s.text(7))
        guard let kind, let fireAt = Timestamp.date(s.text(3)),
            let action = OutboxEntry.Action(rawValue: s.text(4)), let created = Timestamp.date(s.text(5))
        else {
            throw StoreError.malformedRow(entity: "outbox", key: key, problem: "bad kind, time or action")
        }
        let entry: OutboxEntry
        switch kind {
        case .note:
            entry = OutboxEntry(
                note: OutboxEntry.Note(title: s.optionalText(8) ?? "", body: s.optionalText(9) ?? ""), fireAt: fireAt)
        case .reminder:
            guard let occurrence = OccurrenceID(s.text(2)) else {
                throw StoreError.malformedRow(entity: "outbox", key: key, problem: "bad occurrence")
            }
            entry = OutboxEntry(occurrenceID: occurrence, fireAt: fireAt, action: action)
        }
        return StoredOutboxEntry(
            id: s.int(0), userID: s.text(1), entry: entry, createdAt: created,
            changesetID: s.optionalText(6).map { ChangesetID($0) })
    }
}
