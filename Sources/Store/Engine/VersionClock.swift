import Foundation
import JSON
import Planning

/// The database-wide source of row versions (issue 13).
///
/// A row's version used to be its previous version + 1. Undo and redo put back a row image
/// with the version it had, so after `undo B`, `undo A` and a new edit, the new edit carried
/// B's before-version again: `redo B` (or a nightly run that read the row before the undo)
/// found the version it expected and overwrote the student's edit. A task deleted and
/// re-created restarted at 1 the same way.
///
/// Now every write of new content (a commit of any origin: manual, import, nightly, model;
/// a forced undo or redo) stamps the rows it writes with a number taken from one counter
/// that only grows and survives every delete. Undo and redo without `--force` put back the
/// exact row a changeset recorded, version included, which is the pair that row already had.
/// So for the whole life of a database a (row, version) pair names exactly one content, and
/// "the version is still the one I read" means "nobody changed the row since I read it".
enum VersionClock {
    /// Migration 5: the counter, seeded above every version stored in a row or recorded in a
    /// changeset image (an undone changeset's images must never match a fresh version).
    static let migration = Migration(version: 5, name: "database-wide row version counter") { (db) throws(StoreError) in
        try db.executeScript(
            """
            CREATE TABLE version_clock (
                id INTEGER PRIMARY KEY CHECK (id = 1),
                value INTEGER NOT NULL
            );
            INSERT INTO version_clock (id, value) SELECT 1, max(
                (SELECT coalesce(max(version), 0) FROM tasks),
                (SELECT coalesce(max(version), 0) FROM occurrence_overrides),
                (SELECT coalesce(max(version), 0) FROM series_slides),
                (SELECT coalesce(max(CAST(json_extract(before, '$.version') AS INTEGER)), 0) FROM changeset_edits WHERE json_valid(before)),
                (SELECT coalesce(max(CAST(json_extract(after, '$.version') AS INTEGER)), 0) FROM changeset_edits WHERE json_valid(after))
            );
            """)
    }

    /// A version no row of this database has ever had. Call inside the write transaction
    /// that uses it (the counter's row is then locked with the rest).
    ///
    /// On PostgreSQL the counter is the `version_clock` sequence: it never hands out a number
    /// twice, whatever rolls back, `pg_dump` keeps its position, and the version trigger stamps
    /// the backend's writes from it too.
    static func next(_ db: any SQLExecutor) throws(StoreError) -> Int {
        try value(of: try db.query(nextSQL(db.engine), []) { $0.int(0) })
    }

    /// The statement `next` runs, for a caller that sends it in a batch with its reads
    /// (`SQLExecutor.queryEach`); `value(of:)` turns its rows into the version.
    static func nextSQL(_ engine: DatabaseEngine) -> String {
        switch engine {
        case .sqlite: "UPDATE version_clock SET value = value + 1 WHERE id = 1 RETURNING value"
        case .postgresql: "SELECT nextval('version_clock')"
        }
    }

    static func value(of rows: [Int]) throws(StoreError) -> Int {
        guard let value = rows.first else {
            throw StoreError.malformedRow(entity: "version_clock", key: "1", problem: "the counter row is missing")
        }
        return value
    }

    /// `image` with its version set to `version`; nil stays nil.
    static func stamp(_ image: JSONValue?, _ version: Int) -> JSONValue? {
        guard case .object(var fields)? = image else { return image }
        fields["version"] = .int(version)
        return .object(fields)
    }

    /// The rendered text of an image with its version replaced, without rendering the image
    /// again (the nightly writer renders images ahead on worker threads). Keys are sorted and
    /// `version` sorts last among every image's keys, so the text ends in `"version":N}`; any
    /// other shape returns nil and the caller renders the stamped image instead.
    static func stamp(text: String, _ version: Int) -> String? {
        let marker = #","version":"#
        guard text.hasSuffix("}"), let range = text.range(of: marker, options: .backwards) else { return nil }
        let digits = text[range.upperBound..<text.index(before: text.endIndex)]
        guard !digits.isEmpty, digits.allSatisfy({ $0.isASCII && $0.isNumber }) else { return nil }
        return text[..<range.upperBound] + String(version) + "}"
    }
}
