#!/usr/bin/env python3
"""Seeded student populations for the replan benchmark, and the sqlite3 "floor" script.

    population.py generate --db OUT.db --users N --replan BIN [--seed S] [--now ISO]
                           [--instruction-all] [--history]
    population.py floor --before POP.db --after RUN.db --now ISO --out FLOOR.sql
    population.py fingerprint     (hash of the generator, for caching populations)

`generate` lets replan create the schema (`replan --db OUT.db user list` on a fresh file), then
inserts rows that match Sources/Store/Schema/Schema.swift and the encodings replan itself writes
(settings windows as JSON text, subtasks as sorted-key JSON, civil `YYYY-MM-DDTHH:MM` times,
UTC `...Z` stamps) in one transaction with executemany. Every user is drawn from its own RNG
seeded with (seed, index), so the first 1,000 students of the 100,000 population are the
1,000 population.

Each student (see README in docs/benchmark.md for the numbers this gives):
  - a zone east of UTC-1 (so a run at a Tuesday 04:00 UTC finds everyone past 03:00 local),
  - one of five study-window profiles (10 % with windows off),
  - 3-6 series (daily 45 %, weekly 40 %, monthly 15 %) that started 1-8 weeks ago, with a
    `completed` override for about 90 % of their past occurrences (the rest were missed;
    daily series miss in runs of 1-3 days, so series chains appear), a few moved future
    occurrences and, for one series in ten, a slide left by an earlier night,
  - 20-60 one-off tasks over today -21 ... today +21 days, past ones 90 % completed, and for
    40 % of students a chain of 3-6 consecutive-day sessions of one course ("Math drill
    [2/5]") whose first one or two days were missed,
  - statistics rows for its categories and one user run of the previous night.

`--instruction-all` gives every student a standing instruction (so the model is asked for
everyone); `--history` makes three extra students `hist-1m`, `hist-1y`, `hist-10y` whose
daily series and weekly one-offs go back one month, one year and ten years.

`floor` writes the SQL that the sqlite3 shell alone would run for the same night: see
docs/benchmark.md ("The floor") for exactly what it contains and why.
"""

import argparse
import datetime as dt
import json
import os
import random
import sqlite3
import subprocess
import sys
import time
from zoneinfo import ZoneInfo

DEFAULT_NOW = "2025-01-14T04:00:00Z"  # a Tuesday

# (zone, weight): all east of UTC-1, so 04:00 UTC is past 03:00 local everywhere and the
# local date is the same Tuesday.
ZONES = [
    ("Europe/London", 20), ("Europe/Berlin", 20), ("Europe/Madrid", 8), ("Europe/Moscow", 5),
    ("Asia/Kolkata", 10), ("Asia/Taipei", 15), ("Asia/Tokyo", 10), ("Asia/Singapore", 5),
    ("Australia/Sydney", 5), ("Pacific/Auckland", 2),
]

WINDOW_PROFILES = [
    # the default of docs/data-format.md §2.2
    (30, {d: ["09:00-17:00"] for d in ("mon", "tue", "wed", "thu", "fri")}),
    (25, {**{d: ["08:00-12:00", "13:00-21:00"] for d in ("mon", "tue", "wed", "thu", "fri")}, "sat": ["10:00-16:00"]}),
    (15, {d: ["18:00-22:00"] for d in ("mon", "tue", "wed", "thu", "fri", "sat", "sun")}),
    (20, {**{d: ["09:00-12:00", "14:00-18:00", "19:00-22:00"] for d in ("mon", "tue", "wed", "thu", "fri")},
          "sat": ["09:00-12:00"], "sun": ["14:00-18:00"]}),
    (10, {d: ["07:00-09:00", "17:00-23:00"] for d in ("mon", "tue", "wed", "thu", "fri", "sat", "sun")}),
]
WEEKDAYS = ["mon", "tue", "wed", "thu", "fri", "sat", "sun"]

COURSES = [
    ("Vocabulary", "English", "green"), ("English reading", "English", "green"), ("Essay draft", "English", "red"),
    ("Calculus problems", "Math", "red"), ("Math drill", "Math", "yellow"), ("Linear algebra", "Math", "yellow"),
    ("Physics reading", "Physics", "yellow"), ("Mechanics exercises", "Physics", "red"), ("Lab report", "Chemistry", "yellow"),
    ("Organic chemistry", "Chemistry", "green"), ("History notes", "History", "blue"), ("Piano practice", "Music", "green"),
    ("Coding exercises", "Computer Science", "green"), ("Algorithms", "Computer Science", "red"),
    ("Spanish listening", "Spanish", "green"), ("Biology flashcards", "Biology", "blue"), ("Geography quiz", "Geography", "blue"),
    ("英文單字", "英文", "green"), ("數學練習", "數學", "red"), ("物理複習", "物理", "yellow"),
]
NOTES = ["", "", "", "Chapter 3", "Unit 5, exercises 1-12", "bring the workbook", "review yesterday's notes first",
         "past paper 2019", "with the study group"]
SUBTASK_TITLES = ["read", "summarise", "exercises", "flashcards", "check answers", "outline"]
INSTRUCTIONS = ["two hours of English every weekday", "keep Sunday free", "每天安排兩小時英文",
                "put the hardest course first in the day", "no sessions after 21:00"]


def q(v):
    """An SQL literal."""
    if v is None:
        return "NULL"
    if isinstance(v, bool):
        return "1" if v else "0"
    if isinstance(v, (int, float)):
        return repr(v)
    return "'" + str(v).replace("'", "''") + "'"


def stamp(d):
    return d.strftime("%Y-%m-%dT%H:%M:%SZ")


def civil(d):
    return d.strftime("%Y-%m-%dT%H:%M")


def parse_now(text):
    return dt.datetime.strptime(text, "%Y-%m-%dT%H:%M:%SZ").replace(tzinfo=dt.timezone.utc)


def minutes(hhmm):
    h, m = hhmm.split(":")
    return int(h) * 60 + int(m)


def window_ranges(profile, date, enabled):
    """Study windows of a date as (start, end) minutes."""
    if not enabled:
        return [(8 * 60, 22 * 60)]
    return [(minutes(r.split("-")[0]), minutes(r.split("-")[1])) for r in profile.get(WEEKDAYS[date.weekday()], [])]


class Student:
    """One student's rows."""

    def __init__(self):
        self.user = None
        self.settings = None
        self.tasks = []       # tuples in TaskTable column order
        self.overrides = []   # (task_id, original_date, state, start, end, version)
        self.slides = []      # (task_id, from_date, days, version)
        self.categories = {}  # category -> [count, completed]


def pick_slot(rng, ranges, length, busy):
    """A start minute inside one of `ranges` on a 15-minute grid, not overlapping `busy`."""
    for _ in range(6):
        lo, hi = rng.choice(ranges)
        if hi - lo < length:
            continue
        start = lo + 15 * rng.randrange(0, (hi - lo - length) // 15 + 1)
        if all(start + length <= b or start >= e for b, e in busy):
            return start
    return None


def make_student(seed, index, now, instruction_all=False, uid=None, history_days=None):
    rng = random.Random(f"{seed}:{index}")
    s = Student()
    uid = uid or f"s{index:06d}"
    zone = rng.choices([z for z, _ in ZONES], weights=[w for _, w in ZONES])[0]
    local_now = now.astimezone(ZoneInfo(zone))
    today = local_now.date()
    now_minute = local_now.hour * 60 + local_now.minute
    profile = rng.choices([p for _, p in WINDOW_PROFILES], weights=[w for w, _ in WINDOW_PROFILES])[0]
    windows_enabled = rng.random() >= 0.10
    session = rng.choice([45, 60, 60, 60, 90])
    created = now - dt.timedelta(days=200 + rng.randrange(300))
    language = "zh-TW" if rng.random() < 0.2 else "en"
    s.user = (uid, zone, language, f"Student {index}", stamp(created), stamp(created), 1)
    instruction = rng.choice(INSTRUCTIONS) if (instruction_all or rng.random() < 0.25) else ""
    notifications = 1 if rng.random() < 0.3 else 0
    windows_json = json.dumps({d: profile[d] for d in WEEKDAYS if d in profile}, separators=(",", ":"), ensure_ascii=False)
    s.settings = (uid, windows_json, 1 if windows_enabled else 0, session, 1, "a calm, professional tutor", instruction,
                  1, notifications, 10, 7, 14, "[]", 0, 1)
    busy = {}  # date -> [(start, end)] of one-offs and series, to keep overlaps rare
    stamp_created = stamp(created)

    def task_row(tid, title, note, cat, color, start, end, completed, subtasks, every, until, version=1):
        c = s.categories.setdefault(cat, [0, 0])
        c[0] += 1
        c[1] += 1 if completed else 0
        return (tid, uid, title, note, cat, color, start, end, 0, 1 if completed else 0, subtasks, every, until,
                stamp_created, stamp_created, version)

    def subtasks_json():
        if rng.random() >= 0.2:
            return "[]"
        items = [{"done": rng.random() < 0.3, "title": t} for t in rng.sample(SUBTASK_TITLES, rng.randint(1, 3))]
        return json.dumps(items, separators=(",", ":"))

    # Series.
    n_series = rng.randint(3, 6)
    courses = rng.sample(COURSES, min(len(COURSES), n_series + 3))
    for k in range(n_series):
        title, cat, color = courses[k]
        every = rng.choices(["daily", "weekly", "monthly"], weights=[45, 40, 15])[0]
        if history_days is not None:
            every = "daily" if k == 0 else every
            first = today - dt.timedelta(days=history_days)
        else:
            first = today - dt.timedelta(days=rng.randint(7, 56))
        if every == "monthly" and first.day > 28:
            first = first.replace(day=28)
        length = rng.choice([30, 45, 60, 90])
        ranges = window_ranges(profile, first, windows_enabled) or [(8 * 60, 22 * 60)]
        if every == "daily" and rng.random() < 0.3:
            start_min = rng.choice([7 * 60, 20 * 60, 21 * 60])  # a habit outside the windows
        else:
            start_min = pick_slot(rng, ranges, length, []) or 10 * 60
        start = dt.datetime.combine(first, dt.time(start_min // 60, start_min % 60))
        until = None
        if rng.random() < 0.3:
            until = (today + dt.timedelta(days=rng.randint(20, 120))).isoformat()
        tid = f"{uid}-s{k}"
        s.tasks.append(task_row(tid, title, rng.choice(NOTES), cat, color, civil(start), civil(start + dt.timedelta(minutes=length)),
                                False, subtasks_json(), every, until))
        # Occurrences before today: ~90 % completed; daily series miss in runs.
        dates = []
        d = first
        month_step = 0
        while d < today:
            dates.append(d)
            if every == "daily":
                d = d + dt.timedelta(days=1)
            elif every == "weekly":
                d = d + dt.timedelta(days=7)
            else:
                month_step += 1
                y, m = divmod(first.month - 1 + month_step, 12)
                d = dt.date(first.year + y, m + 1, first.day)
        missed_run = 0
        force_chain = every == "daily" and rng.random() < 0.3
        for d in dates:
            if missed_run == 0 and rng.random() < (0.045 if every == "daily" else 0.1):
                missed_run = rng.randint(1, 3) if every == "daily" else 1
            missed = missed_run > 0
            if missed_run:
                missed_run -= 1
            if force_chain and (today - d).days <= 2:
                missed = True
            if not missed:
                s.overrides.append((tid, d.isoformat(), "completed", None, None, 1))
                s.categories[cat][1] += 1
            busy.setdefault(d, []).append((start_min, start_min + length))
        # A few future occurrences were moved by the student.
        if every != "monthly" and rng.random() < 0.3:
            step = 1 if every == "daily" else 7
            d = today + dt.timedelta(days=step * rng.randint(1, 3) + (0 if every == "daily" else (first - today).days % 7))
            moved = start_min + 60 if start_min + 60 + length <= 23 * 60 else start_min - 60
            ms = dt.datetime.combine(d, dt.time(moved // 60, moved % 60))
            s.overrides.append((tid, d.isoformat(), "open", civil(ms), civil(ms + dt.timedelta(minutes=length)), 1))
        # One series in ten carries a slide an earlier night left.
        if rng.random() < 0.1 and len(dates) > 3:
            s.slides.append((tid, dates[len(dates) // 2].isoformat(), 1, 1))

    # One-off tasks.
    n_oneoff = rng.randint(20, 60)
    tasks = []  # (start datetime, end datetime, title, cat, color, completed)
    if rng.random() < 0.4 and history_days is None:
        title, cat, color = courses[n_series] if n_series < len(courses) else courses[0]
        parts = rng.randint(3, 6)
        missed_days = rng.randint(1, 2)
        first = today - dt.timedelta(days=missed_days)
        ranges = window_ranges(profile, first, windows_enabled) or [(9 * 60, 17 * 60)]
        length = session
        start_min = pick_slot(rng, ranges, length, busy.get(first, [])) or 10 * 60
        for p in range(parts):
            d = first + dt.timedelta(days=p)
            st = dt.datetime.combine(d, dt.time(start_min // 60, start_min % 60))
            tasks.append((st, st + dt.timedelta(minutes=length), f"{title} [{p + 1}/{parts}]", cat, color, False))
            busy.setdefault(d, []).append((start_min, start_min + length))
    # A history student has one weekly one-off session all the way back, plus the usual spread.
    history_offsets = [-7 * (j + 1) for j in range(history_days // 7)] if history_days else []
    n_oneoff += len(history_offsets)
    attempts = 0
    while len(tasks) < n_oneoff and attempts < n_oneoff * 4:
        attempts += 1
        offset = history_offsets.pop() if history_offsets else rng.randint(-21, 21)
        d = today + dt.timedelta(days=offset)
        ranges = window_ranges(profile, d, windows_enabled)
        title, cat, color = rng.choice(courses)
        length = rng.choice([session, session, 30, 120])
        if not ranges:
            if rng.random() < 0.7:
                continue
            ranges = [(10 * 60, 16 * 60)]  # placed outside the windows by the student
        start_min = pick_slot(rng, ranges, length, busy.get(d, []))
        if start_min is None:
            continue
        st = dt.datetime.combine(d, dt.time(start_min // 60, start_min % 60))
        past = d < today or (d == today and start_min + length <= now_minute)
        completed = past and rng.random() < 0.9
        tasks.append((st, st + dt.timedelta(minutes=length), title, cat, color, completed))
        busy.setdefault(d, []).append((start_min, start_min + length))
    for i, (st, en, title, cat, color, completed) in enumerate(tasks):
        s.tasks.append(task_row(f"{uid}-t{i:04d}", title, rng.choice(NOTES), cat, color, civil(st), civil(en), completed,
                                subtasks_json(), None, None))
    s.tasks.sort(key=lambda t: t[0])
    s.overrides.sort(key=lambda o: (o[0], o[1]))
    s.slides.sort(key=lambda x: (x[0], x[1]))
    return s, today


def create_schema(replan, path, now):
    if os.path.exists(path):
        os.remove(path)
    for suffix in ("-wal", "-shm"):
        if os.path.exists(path + suffix):
            os.remove(path + suffix)
    # Importing an empty document creates the schema (its migrations) and nothing else; `user
    # list` no longer creates a missing database (issue 13).
    empty = path + ".empty.json"
    with open(empty, "w", encoding="utf-8") as f:
        f.write('{"format": "replan/1", "users": []}')
    try:
        subprocess.run([replan, "--db", path, "--now", now, "import", empty], check=True, stdout=subprocess.DEVNULL)
    finally:
        os.remove(empty)


def generate(args):
    now_text = args.now
    now = parse_now(now_text)
    started = time.time()
    create_schema(args.replan, args.db, now_text)
    con = sqlite3.connect(args.db, isolation_level=None)
    # Nothing else uses the file while it is filled: no journal, no fsync, a big cache.
    con.execute("PRAGMA journal_mode=OFF")
    con.execute("PRAGMA synchronous=OFF")
    con.execute("PRAGMA cache_size=-1000000")
    con.execute("PRAGMA foreign_keys=OFF")
    con.execute("BEGIN")
    task_cols = "id, user_id, title, note, category, color, start, \"end\", all_day, completed, subtasks, repeat_every, " \
                "repeat_until, created_at, updated_at, version"
    settings_cols = "user_id, windows, windows_enabled, session_minutes, session_minutes_enabled, tone, instruction, " \
                    "auto_update, notifications_enabled, reminder_minutes, delete_after_days, horizon_days, keep_categories, " \
                    "split_sessions, version"
    yesterday_stamp = stamp(now - dt.timedelta(days=1))
    con.execute("INSERT INTO runs (id, started_at, finished_at, options) VALUES (1, ?, ?, '{}')",
                (yesterday_stamp, stamp(now - dt.timedelta(days=1) + dt.timedelta(minutes=1))))
    totals = {"users": 0, "tasks": 0, "overrides": 0, "slides": 0}
    batch = {"users": [], "settings": [], "tasks": [], "overrides": [], "slides": [], "stats": [], "runs": []}

    def flush():
        con.executemany("INSERT INTO users (id, time_zone, language, display_name, created_at, updated_at, version) "
                        "VALUES (?, ?, ?, ?, ?, ?, ?)", batch["users"])
        con.executemany(f"INSERT INTO settings ({settings_cols}) VALUES ({', '.join('?' * 15)})", batch["settings"])
        con.executemany(f"INSERT INTO tasks ({task_cols}) VALUES ({', '.join('?' * 16)})", batch["tasks"])
        con.executemany("INSERT INTO occurrence_overrides (task_id, original_date, state, start, \"end\", version) "
                        "VALUES (?, ?, ?, ?, ?, ?)", batch["overrides"])
        con.executemany("INSERT INTO series_slides (task_id, from_date, days, version) VALUES (?, ?, ?, ?)", batch["slides"])
        con.executemany("INSERT INTO statistics (user_id, category, task_count, completed_count, completion_rate, focus_minutes) "
                        "VALUES (?, ?, ?, ?, ?, 0)", batch["stats"])
        con.executemany("INSERT INTO user_runs (run_id, user_id, plan_date, status, duration_ms, finished_at) "
                        "VALUES (1, ?, ?, 'unchanged', 3, ?)", batch["runs"])
        for v in batch.values():
            v.clear()

    def add(student, today):
        batch["users"].append(student.user)
        batch["settings"].append(student.settings)
        batch["tasks"].extend(student.tasks)
        batch["overrides"].extend(student.overrides)
        batch["slides"].extend(student.slides)
        uid = student.user[0]
        for cat, (count, done) in sorted(student.categories.items()):
            batch["stats"].append((uid, cat, count, done, round(done / count, 4) if count else 0))
        batch["runs"].append((uid, (today - dt.timedelta(days=1)).isoformat(), yesterday_stamp))
        totals["users"] += 1
        totals["tasks"] += len(student.tasks)
        totals["overrides"] += len(student.overrides)
        totals["slides"] += len(student.slides)
        if len(batch["users"]) >= 2000:
            flush()

    for i in range(args.users):
        student, today = make_student(args.seed, i, now, instruction_all=args.instruction_all)
        add(student, today)
    if args.history:
        for name, days in (("hist-1m", 30), ("hist-1y", 365), ("hist-10y", 3650)):
            student, today = make_student(args.seed, 10_000_000 + days, now, instruction_all=True, uid=name, history_days=days)
            add(student, today)
    flush()
    con.execute("COMMIT")
    con.execute("PRAGMA journal_mode=WAL")  # as replan left it
    con.close()
    elapsed = time.time() - started
    print(json.dumps({**totals, "seconds": round(elapsed, 1), "bytes": os.path.getsize(args.db)}))


# ----------------------------------------------------------------------------------------------
# The floor.

SELECT_USER = ("SELECT u.id, u.time_zone, u.language, u.display_name, s.windows, s.windows_enabled, s.session_minutes, "
               "s.session_minutes_enabled, s.tone, s.instruction, s.auto_update, s.notifications_enabled, s.reminder_minutes, "
               "s.delete_after_days, s.horizon_days, s.keep_categories, s.split_sessions FROM users u LEFT JOIN settings s ON s.user_id = u.id")
TASK_COLS = 'id, user_id, title, note, category, color, start, "end", all_day, completed, subtasks, repeat_every, repeat_until, created_at, updated_at, version'
TASK_NAMES = ["id", "user_id", "title", "note", "category", "color", "start", '"end"', "all_day", "completed", "subtasks",
              "repeat_every", "repeat_until", "created_at", "updated_at", "version"]
SERIES = "repeat_every IN ('daily', 'weekly', 'monthly')"
OV_COLS = 'o.task_id, o.original_date, o.state, o.start, o."end", o.version'


def task_values(img):
    rep = img.get("repeat") or {}
    return [img["id"], img["user"], img["title"], img["note"], img["category"], img["color"], img["start"], img["end"],
            img["allDay"], img["completed"],
            json.dumps(img["subtasks"], separators=(",", ":"), sort_keys=True, ensure_ascii=False),
            rep.get("every"), rep.get("until"), img["createdAt"], img["updatedAt"], img["version"]]


def edit_statements(entity, key, before, after, user):
    """(version check, write) for one edited row, as replan's applier does them."""
    if entity == "statistic":
        if after is not None:
            return [f"SELECT 0 FROM statistics WHERE user_id = {q(user)} AND category = {q(key)};",
                    f"INSERT OR IGNORE INTO statistics (user_id, category) VALUES ({q(user)}, {q(key)});"]
        return [f"DELETE FROM statistics WHERE user_id = {q(user)} AND category = {q(key)};"]
    if entity == "task":
        check = f"SELECT user_id, version FROM tasks WHERE id = {q(key)};"
        if after is None:
            return [check, f"DELETE FROM tasks WHERE id = {q(key)};"]
        vals = ", ".join(q(v) for v in task_values(after))
        sets = ", ".join(f"{n} = excluded.{n}" for n in TASK_NAMES[1:])
        return [check, f"INSERT INTO tasks ({TASK_COLS}) VALUES ({vals}) ON CONFLICT (id) DO UPDATE SET {sets};"]
    task_id, date = key.rsplit("@", 1)
    if entity == "override":
        check = f"SELECT version FROM occurrence_overrides WHERE task_id = {q(task_id)} AND original_date = {q(date)};"
        if after is None:
            return [check, f"DELETE FROM occurrence_overrides WHERE task_id = {q(task_id)} AND original_date = {q(date)};"]
        return [check, "INSERT INTO occurrence_overrides (task_id, original_date, state, start, \"end\", version) VALUES "
                f"({q(task_id)}, {q(date)}, {q(after['state'])}, {q(after['start'])}, {q(after['end'])}, {q(after['version'])}) "
                "ON CONFLICT (task_id, original_date) DO UPDATE SET state = excluded.state, start = excluded.start, "
                "\"end\" = excluded.\"end\", version = excluded.version;"]
    check = f"SELECT version FROM series_slides WHERE task_id = {q(task_id)} AND from_date = {q(date)};"
    if after is None:
        return [check, f"DELETE FROM series_slides WHERE task_id = {q(task_id)} AND from_date = {q(date)};"]
    return [check, f"INSERT INTO series_slides (task_id, from_date, days, version) VALUES ({q(task_id)}, {q(date)}, "
            f"{q(after['days'])}, {q(after['version'])}) ON CONFLICT (task_id, from_date) DO UPDATE SET days = excluded.days, "
            "version = excluded.version;"]


def floor(args):
    """Per user: the done check (and one user page of 500 per 500 users); user+settings, the
    series, their slides, the overrides in the window (replan's UNION query) and the one-offs
    in the window; then, in a savepoint: per edited row one version SELECT and one write; the
    changesets row, one changeset_edits row per edited row with the same JSON images, the
    outbox rows, the user_runs row, the statistics base and the statistics rows. Writes are
    batched like replan's writer: one transaction per 64 users. The rows are the ones replan's
    own run wrote (read from RUN.db), so the floor writes the same rows with the same bytes."""
    now = parse_now(args.now)
    before = sqlite3.connect(f"file:{args.before}?immutable=1", uri=True)  # the cached population: no -wal/-shm
    after = sqlite3.connect(f"file:{args.after}?mode=ro", uri=True)
    run_id = after.execute("SELECT max(id) FROM runs").fetchone()[0]
    run_row = after.execute("SELECT started_at, finished_at, options FROM runs WHERE id = ?", (run_id,)).fetchone()
    user_runs = {}
    for row in after.execute("SELECT user_id, plan_date, status, changeset_id, model_calls, turns, prompt_tokens, "
                             "completion_tokens, reasoning_tokens, cached_tokens, duration_ms, error, finished_at "
                             "FROM user_runs WHERE run_id = ?", (run_id,)):
        user_runs[row[0]] = row
    changesets = {}
    for row in after.execute("SELECT c.id, c.user_id, c.created_at, c.origin, c.plan_date, c.state, c.summary, c.report "
                             "FROM changesets c JOIN user_runs r ON r.changeset_id = c.id WHERE r.run_id = ?", (run_id,)):
        changesets[row[0]] = row
    def grouped(rows):
        """Rows by their first column, in query order."""
        groups = {}
        for row in rows:
            groups.setdefault(row[0], []).append(row)
        return groups

    edits = grouped(after.execute("SELECT e.changeset_id, e.seq, e.entity, e.entity_key, e.before, e.after, e.reason "
                                  "FROM changeset_edits e JOIN user_runs r ON r.changeset_id = e.changeset_id WHERE r.run_id = ? "
                                  "ORDER BY e.changeset_id, e.seq", (run_id,)))
    stats = grouped(after.execute("SELECT user_id, category, task_count, completed_count, completion_rate, focus_minutes "
                                  "FROM statistics ORDER BY user_id, category"))
    bases = {}
    has_bases = after.execute("SELECT 1 FROM sqlite_master WHERE name = 'statistics_base'").fetchone() is not None
    if has_bases:
        for row in after.execute("SELECT user_id, serial, through, counts FROM statistics_base"):
            bases[row[0]] = row
    outbox = grouped(after.execute("SELECT o.changeset_id, o.user_id, o.occurrence_id, o.fire_at, o.action, o.created_at "
                                   "FROM notification_outbox o JOIN user_runs r ON r.changeset_id = o.changeset_id WHERE r.run_id = ? "
                                   "ORDER BY o.id", (run_id,)))
    series = {}
    for uid, tid, start, end in before.execute(f"SELECT user_id, id, start, \"end\" FROM tasks WHERE {SERIES}"):
        series.setdefault(uid, []).append((tid, start, end))
    slides = {}
    for tid, days in before.execute("SELECT task_id, days FROM series_slides"):
        slides.setdefault(tid, []).append(days)

    counts = {"users": 0, "statements": 0, "transactions": 0, "edited_rows": 0, "changed": 0}
    out = open(args.out, "w", encoding="utf-8")
    w = out.write

    def stmt(text):
        counts["statements"] += 1
        w(text + "\n")

    w("PRAGMA journal_mode = WAL;\nPRAGMA synchronous = NORMAL;\nPRAGMA foreign_keys = ON;\n.output /dev/null\n")
    stmt(f"INSERT INTO runs (started_at, options) VALUES ({q(run_row[0])}, {q(run_row[2])});")
    users = before.execute("SELECT u.id, u.time_zone, s.delete_after_days, s.horizon_days FROM users u JOIN settings s ON s.user_id = u.id "
                           "ORDER BY u.id").fetchall()
    zones = {}
    last = None
    BATCH = 64
    batch_open = 0
    for n, (uid, zone, delete_after, horizon) in enumerate(users):
        if uid not in user_runs:
            continue  # not due (auto-update off, or not past 03:00): replan did not touch them either
        if n % 500 == 0:
            where = "" if last is None else f" WHERE u.id > {q(last)}"
            stmt(f"{SELECT_USER}{where} ORDER BY u.id LIMIT 500;")
        last = uid
        counts["users"] += 1
        tz = zones.setdefault(zone, ZoneInfo(zone))
        today = now.astimezone(tz).date()
        lookback = today - dt.timedelta(days=delete_after + 1)
        through = today + dt.timedelta(days=2 * horizon)
        low, high = lookback, through
        for tid, start, end in series.get(uid, []):
            s_date = dt.date.fromisoformat(start[:10])
            e_date = (dt.datetime.fromisoformat(end) - dt.timedelta(minutes=1)).date()
            span = (e_date - s_date).days + 1
            days = slides.get(tid, [])
            fwd = sum(max(d, 0) for d in days)
            back = sum(min(d, 0) for d in days)
            low = min(low, lookback - dt.timedelta(days=span + fwd))
            high = max(high, through - dt.timedelta(days=back))
        ur = user_runs[uid]
        plan_date = ur[1]
        stmt(f"SELECT 1 FROM user_runs WHERE user_id = {q(uid)} AND plan_date = {q(plan_date)} "
             "AND status IN ('changed', 'unchanged') LIMIT 1;")
        # Writes are batched as replan's writer does: one transaction per BATCH students, a
        # savepoint each. The shell has one connection, so a student's reads run inside the
        # open batch rather than in their own read transaction.
        if batch_open == 0:
            w("BEGIN IMMEDIATE;\n")
            counts["transactions"] += 1
        stmt(f"{SELECT_USER} WHERE u.id = {q(uid)};")
        stmt(f"SELECT {TASK_COLS} FROM tasks WHERE user_id = {q(uid)} AND {SERIES} ORDER BY id;")
        stmt("SELECT s.task_id, s.from_date, s.days, s.version FROM series_slides s JOIN tasks t ON t.id = s.task_id "
             f"WHERE t.user_id = {q(uid)} AND t.{SERIES} ORDER BY s.task_id, s.from_date;")
        if series.get(uid):
            m = 7
            stmt(f"SELECT {OV_COLS} FROM occurrence_overrides o JOIN tasks t ON t.id = o.task_id WHERE t.user_id = {q(uid)} "
                 f"AND t.{SERIES} AND o.original_date BETWEEN {q((low - dt.timedelta(days=m)).isoformat())} "
                 f"AND {q((high + dt.timedelta(days=m)).isoformat())} UNION SELECT {OV_COLS} FROM occurrence_overrides o "
                 f"JOIN tasks t ON t.id = o.task_id WHERE t.user_id = {q(uid)} AND t.{SERIES} AND o.start IS NOT NULL "
                 f"AND o.\"end\" >= {q((lookback - dt.timedelta(days=m)).isoformat())} "
                 f"AND o.start < {q((through + dt.timedelta(days=m + 1)).isoformat())} ORDER BY 1, 2;")
        stmt(f"SELECT {TASK_COLS} FROM tasks WHERE user_id = {q(uid)} AND repeat_every IS NULL AND (\"end\" >= {q(lookback.isoformat())} "
             f"OR completed = 0) AND start < {q((through + dt.timedelta(days=1)).isoformat())} ORDER BY id;")
        w("SAVEPOINT student;\n")
        cs_id = ur[3]
        if cs_id is not None and cs_id in changesets:
            counts["changed"] += 1
            stmt(f"SELECT 1 FROM users WHERE id = {q(uid)};")
            rows = edits.get(cs_id, [])
            for (_, _, entity, key, b, a, _) in rows:
                for t in edit_statements(entity, key, json.loads(b) if b else None, json.loads(a) if a else None, uid):
                    stmt(t)
                counts["edited_rows"] += 1
            c = changesets[cs_id]
            stmt(f"SELECT 1 FROM changesets WHERE id = {q(cs_id)};")
            stmt("INSERT INTO changesets (id, user_id, created_at, origin, plan_date, state, summary, report) VALUES "
                 f"({', '.join(q(v) for v in c)});")
            for (cid, seq, entity, key, b, a, reason) in rows:
                stmt("INSERT INTO changeset_edits (changeset_id, seq, entity, entity_key, before, after, reason) VALUES "
                     f"({q(cid)}, {seq}, {q(entity)}, {q(key)}, {q(b)}, {q(a)}, {q(reason)});")
            for (cid, ouid, occ, fire, action, created) in outbox.get(cs_id, []):
                stmt("INSERT INTO notification_outbox (user_id, occurrence_id, fire_at, action, created_at, changeset_id) VALUES "
                     f"({q(ouid)}, {q(occ)}, {q(fire)}, {q(action)}, {q(created)}, {q(cid)});")
        else:
            cs_id = None
        stmt("INSERT INTO user_runs (run_id, user_id, plan_date, status, changeset_id, model_calls, turns, prompt_tokens, "
             "completion_tokens, reasoning_tokens, cached_tokens, duration_ms, error, finished_at) VALUES "
             f"((SELECT max(id) FROM runs), {q(uid)}, {q(plan_date)}, {q(ur[2])}, {q(cs_id)}, {', '.join(q(v) for v in ur[4:13])});")
        # The nightly statistics: the counts replan stored, and its statistics base.
        if uid in bases:
            b = bases[uid]
            stmt(f"SELECT serial FROM statistics_base WHERE user_id = {q(uid)};")
            stmt(f"INSERT INTO statistics_base (user_id, serial, through, counts) VALUES ({q(uid)}, 1, {q(b[2])}, {q(b[3])}) "
                 f"ON CONFLICT (user_id) DO UPDATE SET serial = serial + 1, through = excluded.through, counts = excluded.counts;")
        if uid in stats:
            stmt(f"DELETE FROM statistics WHERE user_id = {q(uid)};")
            for row in stats[uid]:
                stmt("INSERT INTO statistics (user_id, category, task_count, completed_count, completion_rate, focus_minutes) "
                     f"VALUES ({', '.join(q(v) for v in row)});")
        w("RELEASE student;\n")
        batch_open += 1
        if batch_open == BATCH:
            w("COMMIT;\n")
            batch_open = 0
    if batch_open:
        w("COMMIT;\n")
    stmt(f"UPDATE runs SET finished_at = {q(run_row[1])} WHERE id = (SELECT max(id) FROM runs);")
    out.close()
    print(json.dumps(counts))


def fingerprint():
    """A hash of everything that decides the generated rows (not of the floor code), so the
    harness's cache of populations survives edits of the floor."""
    import hashlib
    import inspect
    parts = [inspect.getsource(f) for f in (make_student, generate, create_schema, pick_slot, window_ranges, Student)]
    parts += [repr(v) for v in (DEFAULT_NOW, ZONES, WINDOW_PROFILES, WEEKDAYS, COURSES, NOTES, SUBTASK_TITLES, INSTRUCTIONS)]
    return hashlib.sha1("\n".join(parts).encode()).hexdigest()[:10]


def main(argv):
    if argv[:1] == ["fingerprint"]:
        print(fingerprint())
        return
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = p.add_subparsers(dest="cmd", required=True)
    g = sub.add_parser("generate")
    g.add_argument("--db", required=True)
    g.add_argument("--users", type=int, required=True)
    g.add_argument("--replan", required=True, help="the replan binary (creates the schema)")
    g.add_argument("--seed", type=int, default=42)
    g.add_argument("--now", default=DEFAULT_NOW)
    g.add_argument("--instruction-all", action="store_true")
    g.add_argument("--history", action="store_true", help="add hist-1m, hist-1y, hist-10y")
    f = sub.add_parser("floor")
    f.add_argument("--before", required=True)
    f.add_argument("--after", required=True)
    f.add_argument("--now", default=DEFAULT_NOW)
    f.add_argument("--out", required=True)
    a = p.parse_args(argv)
    if a.cmd == "generate":
        generate(a)
    else:
        floor(a)


if __name__ == "__main__":
    main(sys.argv[1:])
