import Foundation

/// The schema history of the replan database. Migration 1 creates every table the first
/// release needs; later changes append migrations, never edit old ones.
///
/// Notes on the layout:
/// - Civil date-times are TEXT `YYYY-MM-DDTHH:MM`, dates `YYYY-MM-DD`, instants UTC ISO text:
///   all sort correctly as text, so range queries work on them directly.
/// - `end` is an SQL keyword and is always quoted.
/// - Every row of a user hangs off `users` with `ON DELETE CASCADE`, and every foreign key has
///   an index on its child columns, so removing one user among 100k is a handful of index
///   lookups rather than table scans.
/// - `tasks_by_user_kind_end (user_id, repeat_every, end)` answers "one-off tasks of U that end
///   on or after D" (`repeat_every IS NULL`) and "series of U" (`repeat_every IN (…)`).
/// - `user_runs_by_user_date (user_id, plan_date, status)` makes "is U done for D" a covering
///   index lookup.
package enum Schema {
    package static let migrations: [Migration] = [
        .sql(version: 1, name: "initial schema", initial),
        .sql(version: 2, name: "statistics base", statisticsBase),
        checksWithoutLists,
        .sql(version: 4, name: "series missed policy", seriesMissedPolicy),
        VersionClock.migration,
        // Issue 16.
        .sql(version: 6, name: "model memory and model-stage accounting", modelMemory),
        // Issue 28, items 1 and 2.
        .sql(version: 7, name: "outbox ids never repeat; rows outlive their changeset", outboxNeverRepeats),
        // Issue 29.
        focusEdits,
        // Issue 29: undoing the import that created a student removes the student.
        importedStudents,
        // Issue 25.
        .sql(version: 10, name: "morning notes in the outbox; the student's morning time", morningNotes),
        .sql(version: 11, name: "what a night without a changeset tells the student", nightsWithoutChangeset),
        // Issue 24: instructions compile into goals.
        .sql(version: 12, name: "the goal of the instruction", instructionGoals),
    ]

    /// Migration 12: the goal the student's instruction compiles into (docs/model.md §17), kept
    /// with what the model last handled: `goal` is the stated goal as JSON (`StatedGoal`: the
    /// goal, who stated it, the instruction it belongs to, the model's next review date), and
    /// `goal_unmended` the shortfalls and violations the model was asked about and left as they
    /// were, so they are not asked again night after night. Plain `ADD COLUMN`s, the same on
    /// PostgreSQL (its step 6).
    static let instructionGoals = """
        ALTER TABLE model_memory ADD COLUMN goal TEXT;
        ALTER TABLE model_memory ADD COLUMN goal_unmended TEXT NOT NULL DEFAULT '';
        """

    /// Migration 11: a night that changed nothing can still need the student (a session that
    /// could not be placed, the model's question), and that night writes no changeset to carry
    /// its report. Its user run keeps what its morning note is rendered from, as JSON (`report`:
    /// the flags with their starts, the model's summary and question); nil for every other run.
    /// A plain `ADD COLUMN`, the same on PostgreSQL (its step 5).
    static let nightsWithoutChangeset = """
        ALTER TABLE user_runs ADD COLUMN report TEXT;
        """

    /// Migration 10: the outbox carries a second kind of row, the student's morning note
    /// (docs/outbox.md): `kind` `note` with its rendered `title` and `body` (a reminder keeps
    /// `kind` `reminder` and no text; a note concerns no one occurrence, so its
    /// `occurrence_id` is empty). And the student's `morning_time`, when the note is delivered.
    /// Plain `ADD COLUMN`s with defaults, the same on PostgreSQL (its step 4): no row is
    /// read or rebuilt.
    static let morningNotes = """
        ALTER TABLE notification_outbox ADD COLUMN kind TEXT NOT NULL DEFAULT 'reminder'
            CHECK (kind IN ('reminder', 'note'));
        ALTER TABLE notification_outbox ADD COLUMN title TEXT;
        ALTER TABLE notification_outbox ADD COLUMN body TEXT;
        ALTER TABLE settings ADD COLUMN morning_time TEXT NOT NULL DEFAULT '07:30';
        """

    /// Migration 7: the outbox's ids were SQLite rowids, which restart below a consumer's
    /// cursor once `outbox ack` empties the table; `AUTOINCREMENT` keeps the high-water mark
    /// in `sqlite_sequence` whatever is deleted. And a row no longer goes with its changeset
    /// (`ON DELETE SET NULL`): retention deleted reminders nobody had delivered yet. SQLite
    /// cannot change a column's key or reference in place, so the table is rebuilt; the
    /// sequence starts at the highest id present (`outbox ack` raises it to every cursor
    /// acknowledged from now on).
    static let outboxNeverRepeats = """
        CREATE TABLE notification_outbox_v7 (
            id INTEGER PRIMARY KEY AUTOINCREMENT,
            user_id TEXT NOT NULL REFERENCES users(id) ON DELETE CASCADE,
            occurrence_id TEXT NOT NULL,
            fire_at TEXT NOT NULL,
            action TEXT NOT NULL CHECK (action IN ('schedule', 'cancel')),
            created_at TEXT NOT NULL,
            changeset_id TEXT REFERENCES changesets(id) ON DELETE SET NULL
        );
        INSERT INTO notification_outbox_v7 (id, user_id, occurrence_id, fire_at, action, created_at, changeset_id)
            SELECT id, user_id, occurrence_id, fire_at, action, created_at, changeset_id FROM notification_outbox;
        DROP TABLE notification_outbox;
        ALTER TABLE notification_outbox_v7 RENAME TO notification_outbox;
        CREATE INDEX notification_outbox_by_user ON notification_outbox (user_id, fire_at);
        CREATE INDEX notification_outbox_by_changeset ON notification_outbox (changeset_id);
        CREATE INDEX notification_outbox_by_fire_at ON notification_outbox (fire_at);
        INSERT INTO sqlite_sequence (name, seq)
            SELECT 'notification_outbox', coalesce(max(id), 0) FROM notification_outbox
            WHERE NOT EXISTS (SELECT 1 FROM sqlite_sequence WHERE name = 'notification_outbox');
        """

    /// Migration 8: a changeset edit may record focus sessions (`EditEntity.focus`), so an
    /// import's focus minutes are undone and redone with it. The entity's CHECK gains
    /// `'focus'`, by the same edit of the stored schema text as migration 3 (either form of
    /// the check, as migration 1 wrote it or as migration 3 rewrote it): every stored row passes
    /// the wider check, so no row is read or rebuilt.
    static let focusEdits = Migration(version: 8, name: "focus session edits") { (db) throws(StoreError) in
        let table = "changeset_edits"
        guard
            let original = try db.queryFirst(
                "SELECT sql FROM sqlite_schema WHERE type = 'table' AND name = ?", [.text(table)], { $0.text(0) })
        else { return }
        let sql =
            original
            .replacingOccurrences(of: "entity = 'statistic')", with: "entity = 'statistic' OR entity = 'focus')")
            .replacingOccurrences(of: "'slide', 'statistic'))", with: "'slide', 'statistic', 'focus'))")
        guard sql != original else { return }
        let schemaVersion = try db.queryFirst("PRAGMA schema_version") { $0.int(0) } ?? 0
        try db.execute("PRAGMA writable_schema = ON")
        try db.execute(
            "UPDATE sqlite_schema SET sql = ? WHERE type = 'table' AND name = ?", [.text(sql), .text(table)])
        try db.execute("PRAGMA schema_version = \(schemaVersion + 1)")
        try db.execute("PRAGMA writable_schema = OFF")
        // Parsed again before the next statement: a text SQLite cannot read fails here, and the
        // migration's transaction is rolled back.
        _ = try db.query("SELECT 1 FROM \(table) LIMIT 0") { _ in 0 }
    }

    /// Migration 9 ("import changesets record the student"): an import's changeset records the
    /// student's profile and settings as a `user` edit (`EditEntity.user`), so undo takes them
    /// back and redo brings them again; and a changeset no longer goes with its user
    /// (`changesets.user_id` loses its `REFERENCES users(id) ON DELETE CASCADE`): undoing the
    /// import that created a student removes the student, and the undone changeset stays for
    /// `redo`. `UserRepository.remove` deletes a removed user's changesets itself.
    ///
    /// Both are edits of the stored schema text, as in migrations 3 and 8: a wider CHECK and a
    /// dropped foreign key are among the changes SQLite documents as safe that way, since every
    /// stored row satisfies the new schema exactly as it satisfied the old.
    static let importedStudents = Migration(version: 9, name: "import changesets record the student") {
        (db) throws(StoreError) in
        let edits: [(table: String, from: [String], to: [String])] = [
            (
                "changeset_edits",
                ["entity = 'focus')", "'statistic', 'focus'))"],
                ["entity = 'focus' OR entity = 'user')", "'statistic', 'focus', 'user'))"]
            ),
            (
                "changesets",
                ["user_id TEXT NOT NULL REFERENCES users(id) ON DELETE CASCADE,"],
                ["user_id TEXT NOT NULL,"]
            ),
        ]
        var rewritten: [(table: String, sql: String)] = []
        for edit in edits {
            guard
                let original = try db.queryFirst(
                    "SELECT sql FROM sqlite_schema WHERE type = 'table' AND name = ?", [.text(edit.table)],
                    { $0.text(0) })
            else { continue }
            var sql = original
            for (from, to) in zip(edit.from, edit.to) { sql = sql.replacingOccurrences(of: from, with: to) }
            if sql != original { rewritten.append((edit.table, sql)) }
        }
        guard !rewritten.isEmpty else { return }
        let schemaVersion = try db.queryFirst("PRAGMA schema_version") { $0.int(0) } ?? 0
        try db.execute("PRAGMA writable_schema = ON")
        for (table, sql) in rewritten {
            try db.execute(
                "UPDATE sqlite_schema SET sql = ? WHERE type = 'table' AND name = ?", [.text(sql), .text(table)])
        }
        try db.execute("PRAGMA schema_version = \(schemaVersion + 1)")
        try db.execute("PRAGMA writable_schema = OFF")
        // Parsed again before the next statement: a text SQLite cannot read fails here, and the
        // migration's transaction is rolled back.
        for (table, _) in rewritten { _ = try db.query("SELECT 1 FROM \(table) LIMIT 0") { _ in 0 } }
    }

    /// Migration 4 (planning rules version 2): what a series does with a missed session
    /// (docs/planning.md §4). NULL takes the default for the series' kind. Slide rows written by the
    /// version-1 rules stay valid data: they are read and honoured as before, and the rules
    /// write no new ones.
    static let seriesMissedPolicy = """
        ALTER TABLE tasks ADD COLUMN repeat_missed TEXT
            CHECK (repeat_missed IS NULL OR repeat_missed = 'shift' OR repeat_missed = 'skip' OR repeat_missed = 'make-up');
        """

    /// What the model last reviewed per student (the call policy of docs/model.md §1: the
    /// instruction, settings, plan and the flags it was shown), and per
    /// user run why the model was or was not asked, the `finish_reason` of each request and the
    /// estimated cost. Tokens by kind were already columns of `user_runs`.
    static let modelMemory = """
        CREATE TABLE model_memory (
            user_id TEXT PRIMARY KEY REFERENCES users(id) ON DELETE CASCADE,
            instruction_digest TEXT,
            settings_digest TEXT,
            reviewed_on TEXT,
            plan_from TEXT NOT NULL,
            plan_through TEXT NOT NULL,
            plan_digest TEXT NOT NULL,
            reviewed_flags TEXT NOT NULL DEFAULT ''
        ) WITHOUT ROWID;
        ALTER TABLE user_runs ADD COLUMN model_decision TEXT;
        ALTER TABLE user_runs ADD COLUMN finish_reasons TEXT;
        ALTER TABLE user_runs ADD COLUMN cost_usd REAL NOT NULL DEFAULT 0;
        """

    /// The CHECK constraints of migration 1 that test a column against a list of three or more
    /// values. SQLite evaluates `x IN (a, b, c)` by building a temporary b-tree of the list on
    /// every evaluation, so each write of these rows paid for one or two of them (the nightly
    /// writer about 19 per student); `x = a OR x = b OR x = c` means the same and costs a few
    /// comparisons. Lists of two values are compared directly by SQLite already.
    static let listChecks: [(table: String, column: String, values: [String])] = [
        ("tasks", "color", ["'red'", "'yellow'", "'green'", "'blue'"]),
        ("tasks", "repeat_every", ["'daily'", "'weekly'", "'monthly'"]),
        ("occurrence_overrides", "state", ["'open'", "'completed'", "'skipped'"]),
        ("changesets", "origin", ["'nightly'", "'manual'", "'import'"]),
        ("changeset_edits", "entity", ["'task'", "'override'", "'slide'", "'statistic'"]),
        ("user_runs", "status", ["'changed'", "'unchanged'", "'skipped'", "'failed'"]),
    ]

    /// Migration 3: rewrites `listChecks` as comparisons joined by OR, without rebuilding a
    /// table. A CHECK constraint is not part of the stored rows, so this is the edit of the
    /// stored schema text that SQLite documents for such changes ("Making Other Kinds Of Table
    /// Schema Changes": `writable_schema` and a raised `schema_version`), which costs the same
    /// on a database of any size. A NULL passes both forms alike
    /// (`repeat_every`). A table whose text does not hold the expected list is left as it is.
    static let checksWithoutLists = Migration(version: 3, name: "CHECK constraints without IN lists") {
        (db) throws(StoreError) in
        let schemaVersion = try db.queryFirst("PRAGMA schema_version") { $0.int(0) } ?? 0
        var rewritten: [(table: String, sql: String)] = []
        for table in Set(listChecks.map(\.table)).sorted() {
            guard
                var sql = try db.queryFirst(
                    "SELECT sql FROM sqlite_schema WHERE type = 'table' AND name = ?", [.text(table)], { $0.text(0) })
            else { continue }
            let original = sql
            for check in listChecks where check.table == table {
                let list = "CHECK (\(check.column) IN (\(check.values.joined(separator: ", "))))"
                let comparisons = "CHECK (\(check.values.map { "\(check.column) = \($0)" }.joined(separator: " OR ")))"
                sql = sql.replacingOccurrences(of: list, with: comparisons)
            }
            if sql != original { rewritten.append((table, sql)) }
        }
        guard !rewritten.isEmpty else { return }
        try db.execute("PRAGMA writable_schema = ON")
        for (table, sql) in rewritten {
            try db.execute(
                "UPDATE sqlite_schema SET sql = ? WHERE type = 'table' AND name = ?", [.text(sql), .text(table)])
        }
        try db.execute("PRAGMA schema_version = \(schemaVersion + 1)")
        try db.execute("PRAGMA writable_schema = OFF")
        // The raised version makes SQLite parse the new text before the next statement; a text
        // it could not parse fails here, and the migration's transaction is rolled back.
        // Decision: no integrity check, which would read the whole database: the rows are not
        // touched and satisfy the new constraints exactly when they satisfied the old ones.
        for (table, _) in rewritten { _ = try db.query("SELECT 1 FROM \(table) LIMIT 0") { _ in 0 } }
    }

    /// The settled part of each student's statistics (see `StatisticsBaseRepository`): counts
    /// through a past date, so the nightly recount reads only the days after it. `serial` is
    /// raised by every write of the user's plan; `through` and `counts` are NULL when no base
    /// is valid. Derived data: deleting rows only makes the next night count from scratch.
    static let statisticsBase = """
        CREATE TABLE statistics_base (
            user_id TEXT PRIMARY KEY NOT NULL REFERENCES users(id) ON DELETE CASCADE,
            serial INTEGER NOT NULL,
            through TEXT,
            counts TEXT,
            CHECK ((through IS NULL) = (counts IS NULL))
        ) WITHOUT ROWID;
        """

    static let initial = """
        CREATE TABLE users (
            id TEXT PRIMARY KEY NOT NULL,
            time_zone TEXT NOT NULL,
            language TEXT NOT NULL DEFAULT 'en',
            display_name TEXT,
            created_at TEXT NOT NULL,
            updated_at TEXT NOT NULL,
            version INTEGER NOT NULL DEFAULT 1
        );

        CREATE TABLE settings (
            user_id TEXT PRIMARY KEY NOT NULL REFERENCES users(id) ON DELETE CASCADE,
            windows TEXT NOT NULL,
            windows_enabled INTEGER NOT NULL CHECK (windows_enabled IN (0, 1)),
            session_minutes INTEGER NOT NULL,
            session_minutes_enabled INTEGER NOT NULL CHECK (session_minutes_enabled IN (0, 1)),
            tone TEXT NOT NULL,
            instruction TEXT NOT NULL,
            auto_update INTEGER NOT NULL CHECK (auto_update IN (0, 1)),
            notifications_enabled INTEGER NOT NULL CHECK (notifications_enabled IN (0, 1)),
            reminder_minutes INTEGER NOT NULL,
            delete_after_days INTEGER NOT NULL,
            horizon_days INTEGER NOT NULL,
            keep_categories TEXT NOT NULL DEFAULT '[]',
            split_sessions INTEGER NOT NULL CHECK (split_sessions IN (0, 1)),
            version INTEGER NOT NULL DEFAULT 1
        );

        CREATE TABLE tasks (
            id TEXT PRIMARY KEY NOT NULL,
            user_id TEXT NOT NULL REFERENCES users(id) ON DELETE CASCADE,
            title TEXT NOT NULL,
            note TEXT NOT NULL DEFAULT '',
            category TEXT NOT NULL,
            color TEXT NOT NULL CHECK (color IN ('red', 'yellow', 'green', 'blue')),
            start TEXT NOT NULL,
            "end" TEXT NOT NULL,
            all_day INTEGER NOT NULL CHECK (all_day IN (0, 1)),
            completed INTEGER NOT NULL CHECK (completed IN (0, 1)),
            subtasks TEXT NOT NULL DEFAULT '[]',
            repeat_every TEXT CHECK (repeat_every IN ('daily', 'weekly', 'monthly')),
            repeat_until TEXT,
            created_at TEXT NOT NULL,
            updated_at TEXT NOT NULL,
            version INTEGER NOT NULL,
            CHECK (repeat_until IS NULL OR repeat_every IS NOT NULL)
        );
        CREATE INDEX tasks_by_user_kind_end ON tasks (user_id, repeat_every, "end");

        CREATE TABLE occurrence_overrides (
            task_id TEXT NOT NULL REFERENCES tasks(id) ON DELETE CASCADE,
            original_date TEXT NOT NULL,
            state TEXT NOT NULL CHECK (state IN ('open', 'completed', 'skipped')),
            start TEXT,
            "end" TEXT,
            version INTEGER NOT NULL,
            PRIMARY KEY (task_id, original_date),
            CHECK ((start IS NULL) = ("end" IS NULL))
        ) WITHOUT ROWID;
        CREATE INDEX occurrence_overrides_moved ON occurrence_overrides (task_id, "end") WHERE start IS NOT NULL;

        CREATE TABLE series_slides (
            task_id TEXT NOT NULL REFERENCES tasks(id) ON DELETE CASCADE,
            from_date TEXT NOT NULL,
            days INTEGER NOT NULL,
            version INTEGER NOT NULL,
            PRIMARY KEY (task_id, from_date)
        ) WITHOUT ROWID;

        CREATE TABLE statistics (
            user_id TEXT NOT NULL REFERENCES users(id) ON DELETE CASCADE,
            category TEXT NOT NULL,
            task_count INTEGER NOT NULL DEFAULT 0,
            completed_count INTEGER NOT NULL DEFAULT 0,
            completion_rate REAL NOT NULL DEFAULT 0,
            focus_minutes INTEGER NOT NULL DEFAULT 0,
            PRIMARY KEY (user_id, category)
        ) WITHOUT ROWID;

        CREATE TABLE focus_sessions (
            id INTEGER PRIMARY KEY,
            user_id TEXT NOT NULL REFERENCES users(id) ON DELETE CASCADE,
            category TEXT NOT NULL,
            start TEXT NOT NULL,
            minutes INTEGER NOT NULL CHECK (minutes > 0)
        );
        CREATE INDEX focus_sessions_by_user ON focus_sessions (user_id, start);

        CREATE TABLE changesets (
            id TEXT PRIMARY KEY NOT NULL,
            user_id TEXT NOT NULL REFERENCES users(id) ON DELETE CASCADE,
            created_at TEXT NOT NULL,
            origin TEXT NOT NULL CHECK (origin IN ('nightly', 'manual', 'import')),
            plan_date TEXT,
            state TEXT NOT NULL CHECK (state IN ('applied', 'undone')),
            summary TEXT NOT NULL DEFAULT '{}',
            report TEXT NOT NULL DEFAULT '{}'
        );
        CREATE INDEX changesets_by_user ON changesets (user_id, created_at);
        CREATE INDEX changesets_by_time ON changesets (created_at);

        CREATE TABLE changeset_edits (
            changeset_id TEXT NOT NULL REFERENCES changesets(id) ON DELETE CASCADE,
            seq INTEGER NOT NULL,
            entity TEXT NOT NULL CHECK (entity IN ('task', 'override', 'slide', 'statistic')),
            entity_key TEXT NOT NULL,
            before TEXT,
            after TEXT,
            reason TEXT NOT NULL DEFAULT '',
            PRIMARY KEY (changeset_id, seq)
        ) WITHOUT ROWID;

        CREATE TABLE runs (
            id INTEGER PRIMARY KEY,
            started_at TEXT NOT NULL,
            finished_at TEXT,
            options TEXT NOT NULL DEFAULT '{}'
        );

        CREATE TABLE user_runs (
            id INTEGER PRIMARY KEY,
            run_id INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
            user_id TEXT NOT NULL REFERENCES users(id) ON DELETE CASCADE,
            plan_date TEXT NOT NULL,
            status TEXT NOT NULL CHECK (status IN ('changed', 'unchanged', 'skipped', 'failed')),
            changeset_id TEXT REFERENCES changesets(id) ON DELETE SET NULL,
            model_calls INTEGER NOT NULL DEFAULT 0,
            turns INTEGER NOT NULL DEFAULT 0,
            prompt_tokens INTEGER NOT NULL DEFAULT 0,
            completion_tokens INTEGER NOT NULL DEFAULT 0,
            reasoning_tokens INTEGER NOT NULL DEFAULT 0,
            cached_tokens INTEGER NOT NULL DEFAULT 0,
            duration_ms INTEGER NOT NULL DEFAULT 0,
            error TEXT,
            finished_at TEXT NOT NULL
        );
        CREATE INDEX user_runs_by_user_date ON user_runs (user_id, plan_date, status);
        CREATE INDEX user_runs_by_run ON user_runs (run_id);
        CREATE INDEX user_runs_by_changeset ON user_runs (changeset_id);

        CREATE TABLE transcripts (
            user_run_id INTEGER PRIMARY KEY REFERENCES user_runs(id) ON DELETE CASCADE,
            messages TEXT NOT NULL
        );

        CREATE TABLE notification_outbox (
            id INTEGER PRIMARY KEY,
            user_id TEXT NOT NULL REFERENCES users(id) ON DELETE CASCADE,
            occurrence_id TEXT NOT NULL,
            fire_at TEXT NOT NULL,
            action TEXT NOT NULL CHECK (action IN ('schedule', 'cancel')),
            created_at TEXT NOT NULL,
            changeset_id TEXT REFERENCES changesets(id) ON DELETE CASCADE
        );
        CREATE INDEX notification_outbox_by_user ON notification_outbox (user_id, fire_at);
        CREATE INDEX notification_outbox_by_changeset ON notification_outbox (changeset_id);
        """
}
