/// The schema history of a replan database on PostgreSQL, numbered on its own (the SQLite
/// history's steps 1 to 8 are step 1 here; SQLite's 9 is step 3, its 10 step 4, its 11 step 5 and its 12 step 6, step 2 has no SQLite twin).
///
/// The same tables and columns as on SQLite, so the repositories' SQL serves both, with what
/// differs in kind:
/// - Every text column is `COLLATE "C"`: ids, dates and instants sort bytewise, as SQLite
///   sorts them, whatever the server's locale. JSON (images, summaries, transcripts) is stored
///   as TEXT, so it comes back byte for byte as written.
/// - SQLite's 0/1 booleans stay BIGINT with the same CHECKs, so one set of bindings fits both.
/// - Row ids are identities `BY DEFAULT`: `copy-database` keeps every id it copies. The
///   outbox's identity never hands out an id twice, whatever is deleted.
/// - The version clock is a SEQUENCE (`pg_dump` keeps its position); a trigger stamps the
///   `version` of every row written by a connection that is not replan's own (the app's
///   backend), so a night or an undo that read the row before refuses to overwrite it. replan's
///   connections set `replan.writer = on` and write versions they take from the same sequence
///   and record in their changesets (undo and redo put back recorded versions).
/// - Changesets carry `seq`, the order they were written in (SQLite's rowid), which orders
///   changesets of the same second.
/// - Outbox rows are written under a transaction-scoped advisory lock (`OutboxRepository`), so
///   they commit in the order of their ids.
package enum PostgresSchema {
    package static let migrations: [PostgresMigration] = [
        PostgresMigration(version: 1, name: "initial schema", sql: initial),
        PostgresMigration(version: 2, name: "night claims", sql: nightClaims),
        // Issue 29: SQLite's migration 9.
        PostgresMigration(version: 3, name: "import changesets record the student", sql: importedStudents),
        PostgresMigration(
            version: 4, name: "morning notes in the outbox; the student's morning time", sql: morningNotes),
        PostgresMigration(
            version: 5, name: "what a night without a changeset tells the student", sql: nightsWithoutChangeset),
        PostgresMigration(version: 6, name: "the goal of the instruction", sql: instructionGoals),
    ]

    /// Step 6, SQLite's migration 12 (`Schema.instructionGoals`): the instruction's goal and
    /// the shortfalls the model left, on the student's model memory.
    static let instructionGoals = """
        ALTER TABLE model_memory ADD COLUMN goal TEXT COLLATE "C";
        ALTER TABLE model_memory ADD COLUMN goal_unmended TEXT COLLATE "C" NOT NULL DEFAULT '';
        """

    /// Step 5, SQLite's migration 11 (`Schema.nightsWithoutChangeset`): the report of a night
    /// that needs the student without a changeset, on its user run.
    static let nightsWithoutChangeset = """
        ALTER TABLE user_runs ADD COLUMN report TEXT COLLATE "C";
        """

    /// Migration 2: a night shared by several workers (`NightClaims`): the workers with their
    /// leases, and a claim per due student and plan date.
    static let nightClaims = """
        CREATE TABLE night_workers (
            worker TEXT COLLATE "C" PRIMARY KEY,
            run_id BIGINT REFERENCES runs(id) ON DELETE SET NULL,
            started_at TIMESTAMPTZ NOT NULL DEFAULT now(),
            lease_until TIMESTAMPTZ NOT NULL,
            stopped_at TIMESTAMPTZ
        );
        CREATE TABLE night_claims (
            user_id TEXT COLLATE "C" NOT NULL REFERENCES users(id) ON DELETE CASCADE,
            plan_date TEXT COLLATE "C" NOT NULL,
            state TEXT COLLATE "C" NOT NULL CHECK (state IN ('pending', 'claimed', 'done', 'failed')),
            worker TEXT COLLATE "C",
            attempt BIGINT NOT NULL DEFAULT 0,
            claimed_at TIMESTAMPTZ,
            finished_at TIMESTAMPTZ,
            PRIMARY KEY (user_id, plan_date)
        );
        -- Claims stay small to look up however many of the night are done.
        CREATE INDEX night_claims_open ON night_claims (plan_date, user_id) WHERE state IN ('pending', 'claimed');
        CREATE INDEX night_claims_by_worker ON night_claims (worker) WHERE state = 'claimed';
        """

    /// Step 3 (SQLite's migration 9, "import changesets record the student"): a changeset edit
    /// may record the student's profile and settings (`EditEntity.user`), and a changeset no
    /// longer goes with its user, so the undone import of a student it created stays for `redo`.
    /// The wider check is added `NOT VALID`: every stored row passed the narrower one, so the
    /// table is not read (new rows are checked all the same).
    static let importedStudents = """
        ALTER TABLE changeset_edits DROP CONSTRAINT changeset_edits_entity_check;
        ALTER TABLE changeset_edits ADD CONSTRAINT changeset_edits_entity_check
            CHECK (entity IN ('task', 'override', 'slide', 'statistic', 'focus', 'user')) NOT VALID;
        ALTER TABLE changesets DROP CONSTRAINT changesets_user_id_fkey;
        """

    /// Step 4, SQLite's migration 10 (`Schema.morningNotes`): the outbox's `note` rows and
    /// the student's `morning_time`.
    static let morningNotes = """
        ALTER TABLE notification_outbox ADD COLUMN kind TEXT COLLATE "C" NOT NULL DEFAULT 'reminder'
            CHECK (kind IN ('reminder', 'note'));
        ALTER TABLE notification_outbox ADD COLUMN title TEXT COLLATE "C";
        ALTER TABLE notification_outbox ADD COLUMN body TEXT COLLATE "C";
        ALTER TABLE settings ADD COLUMN morning_time TEXT COLLATE "C" NOT NULL DEFAULT '07:30';
        """

    /// How long the server lets one of replan's connections sit idle inside a transaction
    /// before ending it (`PostgresConnection.open`).
    static let idleInTransactionSeconds = 30

    /// The session setting that marks replan's own connections for the version trigger.
    static let writerSetting = "replan.writer"

    static let initial = """
        CREATE TABLE users (
            id TEXT COLLATE "C" PRIMARY KEY NOT NULL,
            time_zone TEXT COLLATE "C" NOT NULL,
            language TEXT COLLATE "C" NOT NULL DEFAULT 'en',
            display_name TEXT COLLATE "C",
            created_at TEXT COLLATE "C" NOT NULL,
            updated_at TEXT COLLATE "C" NOT NULL,
            version BIGINT NOT NULL DEFAULT 1
        );

        CREATE TABLE settings (
            user_id TEXT COLLATE "C" PRIMARY KEY NOT NULL REFERENCES users(id) ON DELETE CASCADE,
            windows TEXT COLLATE "C" NOT NULL,
            windows_enabled BIGINT NOT NULL CHECK (windows_enabled IN (0, 1)),
            session_minutes BIGINT NOT NULL,
            session_minutes_enabled BIGINT NOT NULL CHECK (session_minutes_enabled IN (0, 1)),
            tone TEXT COLLATE "C" NOT NULL,
            instruction TEXT COLLATE "C" NOT NULL,
            auto_update BIGINT NOT NULL CHECK (auto_update IN (0, 1)),
            notifications_enabled BIGINT NOT NULL CHECK (notifications_enabled IN (0, 1)),
            reminder_minutes BIGINT NOT NULL,
            delete_after_days BIGINT NOT NULL,
            horizon_days BIGINT NOT NULL,
            keep_categories TEXT COLLATE "C" NOT NULL DEFAULT '[]',
            split_sessions BIGINT NOT NULL CHECK (split_sessions IN (0, 1)),
            version BIGINT NOT NULL DEFAULT 1
        );

        CREATE TABLE tasks (
            id TEXT COLLATE "C" PRIMARY KEY NOT NULL,
            user_id TEXT COLLATE "C" NOT NULL REFERENCES users(id) ON DELETE CASCADE,
            title TEXT COLLATE "C" NOT NULL,
            note TEXT COLLATE "C" NOT NULL DEFAULT '',
            category TEXT COLLATE "C" NOT NULL,
            color TEXT COLLATE "C" NOT NULL CHECK (color IN ('red', 'yellow', 'green', 'blue')),
            start TEXT COLLATE "C" NOT NULL,
            "end" TEXT COLLATE "C" NOT NULL,
            all_day BIGINT NOT NULL CHECK (all_day IN (0, 1)),
            completed BIGINT NOT NULL CHECK (completed IN (0, 1)),
            subtasks TEXT COLLATE "C" NOT NULL DEFAULT '[]',
            repeat_every TEXT COLLATE "C" CHECK (repeat_every IN ('daily', 'weekly', 'monthly')),
            repeat_until TEXT COLLATE "C",
            repeat_missed TEXT COLLATE "C" CHECK (repeat_missed IN ('shift', 'skip', 'make-up')),
            created_at TEXT COLLATE "C" NOT NULL,
            updated_at TEXT COLLATE "C" NOT NULL,
            version BIGINT NOT NULL,
            CHECK (repeat_until IS NULL OR repeat_every IS NOT NULL)
        );
        CREATE INDEX tasks_by_user_kind_end ON tasks (user_id, repeat_every, "end");

        CREATE TABLE occurrence_overrides (
            task_id TEXT COLLATE "C" NOT NULL REFERENCES tasks(id) ON DELETE CASCADE,
            original_date TEXT COLLATE "C" NOT NULL,
            state TEXT COLLATE "C" NOT NULL CHECK (state IN ('open', 'completed', 'skipped')),
            start TEXT COLLATE "C",
            "end" TEXT COLLATE "C",
            version BIGINT NOT NULL,
            PRIMARY KEY (task_id, original_date),
            CHECK ((start IS NULL) = ("end" IS NULL))
        );
        CREATE INDEX occurrence_overrides_moved ON occurrence_overrides (task_id, "end") WHERE start IS NOT NULL;

        CREATE TABLE series_slides (
            task_id TEXT COLLATE "C" NOT NULL REFERENCES tasks(id) ON DELETE CASCADE,
            from_date TEXT COLLATE "C" NOT NULL,
            days BIGINT NOT NULL,
            version BIGINT NOT NULL,
            PRIMARY KEY (task_id, from_date)
        );

        CREATE TABLE statistics (
            user_id TEXT COLLATE "C" NOT NULL REFERENCES users(id) ON DELETE CASCADE,
            category TEXT COLLATE "C" NOT NULL,
            task_count BIGINT NOT NULL DEFAULT 0,
            completed_count BIGINT NOT NULL DEFAULT 0,
            completion_rate DOUBLE PRECISION NOT NULL DEFAULT 0,
            focus_minutes BIGINT NOT NULL DEFAULT 0,
            PRIMARY KEY (user_id, category)
        );

        CREATE TABLE statistics_base (
            user_id TEXT COLLATE "C" PRIMARY KEY NOT NULL REFERENCES users(id) ON DELETE CASCADE,
            serial BIGINT NOT NULL,
            through TEXT COLLATE "C",
            counts TEXT COLLATE "C",
            CHECK ((through IS NULL) = (counts IS NULL))
        );

        CREATE TABLE focus_sessions (
            id BIGINT GENERATED BY DEFAULT AS IDENTITY PRIMARY KEY,
            user_id TEXT COLLATE "C" NOT NULL REFERENCES users(id) ON DELETE CASCADE,
            category TEXT COLLATE "C" NOT NULL,
            start TEXT COLLATE "C" NOT NULL,
            minutes BIGINT NOT NULL CHECK (minutes > 0)
        );
        CREATE INDEX focus_sessions_by_user ON focus_sessions (user_id, start);

        CREATE TABLE changesets (
            id TEXT COLLATE "C" PRIMARY KEY NOT NULL,
            user_id TEXT COLLATE "C" NOT NULL REFERENCES users(id) ON DELETE CASCADE,
            created_at TEXT COLLATE "C" NOT NULL,
            origin TEXT COLLATE "C" NOT NULL CHECK (origin IN ('nightly', 'manual', 'import')),
            plan_date TEXT COLLATE "C",
            state TEXT COLLATE "C" NOT NULL CHECK (state IN ('applied', 'undone')),
            summary TEXT COLLATE "C" NOT NULL DEFAULT '{}',
            report TEXT COLLATE "C" NOT NULL DEFAULT '{}',
            seq BIGINT GENERATED BY DEFAULT AS IDENTITY UNIQUE
        );
        CREATE INDEX changesets_by_user ON changesets (user_id, created_at);
        CREATE INDEX changesets_by_time ON changesets (created_at);

        CREATE TABLE changeset_edits (
            changeset_id TEXT COLLATE "C" NOT NULL REFERENCES changesets(id) ON DELETE CASCADE,
            seq BIGINT NOT NULL,
            entity TEXT COLLATE "C" NOT NULL CHECK (entity IN ('task', 'override', 'slide', 'statistic', 'focus')),
            entity_key TEXT COLLATE "C" NOT NULL,
            before TEXT COLLATE "C",
            after TEXT COLLATE "C",
            reason TEXT COLLATE "C" NOT NULL DEFAULT '',
            PRIMARY KEY (changeset_id, seq)
        );

        CREATE TABLE runs (
            id BIGINT GENERATED BY DEFAULT AS IDENTITY PRIMARY KEY,
            started_at TEXT COLLATE "C" NOT NULL,
            finished_at TEXT COLLATE "C",
            options TEXT COLLATE "C" NOT NULL DEFAULT '{}'
        );

        CREATE TABLE user_runs (
            id BIGINT GENERATED BY DEFAULT AS IDENTITY PRIMARY KEY,
            run_id BIGINT NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
            user_id TEXT COLLATE "C" NOT NULL REFERENCES users(id) ON DELETE CASCADE,
            plan_date TEXT COLLATE "C" NOT NULL,
            status TEXT COLLATE "C" NOT NULL CHECK (status IN ('changed', 'unchanged', 'skipped', 'failed')),
            changeset_id TEXT COLLATE "C" REFERENCES changesets(id) ON DELETE SET NULL,
            model_calls BIGINT NOT NULL DEFAULT 0,
            turns BIGINT NOT NULL DEFAULT 0,
            prompt_tokens BIGINT NOT NULL DEFAULT 0,
            completion_tokens BIGINT NOT NULL DEFAULT 0,
            reasoning_tokens BIGINT NOT NULL DEFAULT 0,
            cached_tokens BIGINT NOT NULL DEFAULT 0,
            duration_ms BIGINT NOT NULL DEFAULT 0,
            error TEXT COLLATE "C",
            finished_at TEXT COLLATE "C" NOT NULL,
            model_decision TEXT COLLATE "C",
            finish_reasons TEXT COLLATE "C",
            cost_usd DOUBLE PRECISION NOT NULL DEFAULT 0
        );
        CREATE INDEX user_runs_by_user_date ON user_runs (user_id, plan_date, status);
        CREATE INDEX user_runs_by_run ON user_runs (run_id);
        CREATE INDEX user_runs_by_changeset ON user_runs (changeset_id);

        CREATE TABLE transcripts (
            user_run_id BIGINT PRIMARY KEY REFERENCES user_runs(id) ON DELETE CASCADE,
            messages TEXT COLLATE "C" NOT NULL
        );

        CREATE TABLE notification_outbox (
            id BIGINT GENERATED BY DEFAULT AS IDENTITY PRIMARY KEY,
            user_id TEXT COLLATE "C" NOT NULL REFERENCES users(id) ON DELETE CASCADE,
            occurrence_id TEXT COLLATE "C" NOT NULL,
            fire_at TEXT COLLATE "C" NOT NULL,
            action TEXT COLLATE "C" NOT NULL CHECK (action IN ('schedule', 'cancel')),
            created_at TEXT COLLATE "C" NOT NULL,
            changeset_id TEXT COLLATE "C" REFERENCES changesets(id) ON DELETE SET NULL
        );
        CREATE INDEX notification_outbox_by_user ON notification_outbox (user_id, fire_at);
        CREATE INDEX notification_outbox_by_changeset ON notification_outbox (changeset_id);
        CREATE INDEX notification_outbox_by_fire_at ON notification_outbox (fire_at);

        CREATE TABLE model_memory (
            user_id TEXT COLLATE "C" PRIMARY KEY REFERENCES users(id) ON DELETE CASCADE,
            instruction_digest TEXT COLLATE "C",
            settings_digest TEXT COLLATE "C",
            reviewed_on TEXT COLLATE "C",
            plan_from TEXT COLLATE "C" NOT NULL,
            plan_through TEXT COLLATE "C" NOT NULL,
            plan_digest TEXT COLLATE "C" NOT NULL,
            reviewed_flags TEXT COLLATE "C" NOT NULL DEFAULT ''
        );

        CREATE SEQUENCE version_clock AS BIGINT;

        CREATE FUNCTION replan_stamp_version() RETURNS trigger LANGUAGE plpgsql AS $$
        BEGIN
            IF coalesce(current_setting('replan.writer', true), '') <> 'on' THEN
                NEW.version := nextval('version_clock');
            END IF;
            RETURN NEW;
        END
        $$;
        CREATE TRIGGER tasks_version BEFORE INSERT OR UPDATE ON tasks
            FOR EACH ROW EXECUTE FUNCTION replan_stamp_version();
        CREATE TRIGGER occurrence_overrides_version BEFORE INSERT OR UPDATE ON occurrence_overrides
            FOR EACH ROW EXECUTE FUNCTION replan_stamp_version();
        CREATE TRIGGER series_slides_version BEFORE INSERT OR UPDATE ON series_slides
            FOR EACH ROW EXECUTE FUNCTION replan_stamp_version();
        """
}

/// One numbered step of the PostgreSQL schema's history: applied once, in its own
/// transaction, recorded in `schema_migrations`; never edited after release.
package struct PostgresMigration: Sendable {
    package let version: Int
    package let name: String
    package let sql: String

    package init(version: Int, name: String, sql: String) {
        self.version = version
        self.name = name
        self.sql = sql
    }
}
