#!/usr/bin/env python3
"""Between a catch-up night and the steady night after it (bench/model.sh):

    steady.py DB --date 2025-01-14 [--done 0.9] [--change 0.02] [--seed 42]

- marks `--done` (90 %) of the open sessions of DATE completed, as students ticking off the
  day's sessions in the app would: one-off tasks starting on DATE, series occurrences of DATE
  (an override `completed`; moved occurrences landing on DATE too). Slides are ignored;
- changes the instruction of `--change` (2 %) of the students who have one, and gives one to
  as many who have none, so the steady night has new and changed instructions to handle.

Prints JSON: how many sessions were marked and the ids of the students whose instruction
changed or is new (the night must ask the model for every one of them).
"""
import argparse
import calendar
import datetime as dt
import json
import random
import sqlite3
import sys


def occurs(every, start, until, day):
    if start > day or (until is not None and day > until):
        return False
    if every == "daily":
        return True
    if every == "weekly":
        return (day - start).days % 7 == 0
    if every == "monthly":
        last = calendar.monthrange(day.year, day.month)[1]
        return day.day == min(start.day, last)
    return False


def main(argv):
    p = argparse.ArgumentParser()
    p.add_argument("db")
    p.add_argument("--date", required=True)
    p.add_argument("--done", type=float, default=0.9)
    p.add_argument("--change", type=float, default=0.02)
    p.add_argument("--seed", type=int, default=42)
    a = p.parse_args(argv[1:])
    day = dt.date.fromisoformat(a.date)
    rng = random.Random(a.seed)
    con = sqlite3.connect(a.db, isolation_level=None)
    con.execute("BEGIN")
    done = 0
    one_offs = con.execute("SELECT id FROM tasks WHERE repeat_every IS NULL AND completed = 0 AND substr(start, 1, 10) = ?",
                           (a.date,)).fetchall()
    for (tid,) in one_offs:
        if rng.random() < a.done:
            con.execute("UPDATE tasks SET completed = 1, version = version + 1 WHERE id = ?", (tid,))
            done += 1
    overrides = {(t, d): (s, st) for t, d, s, st in con.execute(
        "SELECT task_id, original_date, state, start FROM occurrence_overrides")}
    for tid, every, start, until in con.execute(
            "SELECT id, repeat_every, start, repeat_until FROM tasks WHERE repeat_every IS NOT NULL").fetchall():
        s = dt.date.fromisoformat(start[:10])
        u = dt.date.fromisoformat(until[:10]) if until else None
        if not occurs(every, s, u, day):
            continue
        key = (tid, a.date)
        if key in overrides:
            state, moved = overrides[key]
            if state != "open" or (moved and moved[:10] != a.date):
                continue
            if rng.random() < a.done:
                con.execute("UPDATE occurrence_overrides SET state = 'completed', version = version + 1 "
                            "WHERE task_id = ? AND original_date = ?", key)
                done += 1
        elif rng.random() < a.done:
            con.execute("INSERT INTO occurrence_overrides (task_id, original_date, state, start, \"end\", version) "
                        "VALUES (?, ?, 'completed', NULL, NULL, 1)", key)
            done += 1
    for tid, original in con.execute("SELECT task_id, original_date FROM occurrence_overrides WHERE state = 'open' "
                                     "AND start IS NOT NULL AND substr(start, 1, 10) = ? AND original_date != ?",
                                     (a.date, a.date)).fetchall():
        if rng.random() < a.done:
            con.execute("UPDATE occurrence_overrides SET state = 'completed', version = version + 1 "
                        "WHERE task_id = ? AND original_date = ?", (tid, original))
            done += 1
    changed, new = [], []
    users = con.execute("SELECT user_id, instruction FROM settings ORDER BY user_id").fetchall()
    with_instruction = [u for u, i in users if i.strip()]
    without = [u for u, i in users if not i.strip()]
    for u in rng.sample(with_instruction, int(round(a.change * len(with_instruction)))):
        con.execute("UPDATE settings SET instruction = instruction || ' (and keep Fridays light)', version = version + 1 "
                    "WHERE user_id = ?", (u,))
        changed.append(u)
    for u in rng.sample(without, min(len(without), len(changed))):
        con.execute("UPDATE settings SET instruction = 'one 30-minute review session every evening', version = version + 1 "
                    "WHERE user_id = ?", (u,))
        new.append(u)
    con.execute("COMMIT")
    json.dump({"done": done, "changed": changed, "new": new}, sys.stdout)
    print()


if __name__ == "__main__":
    main(sys.argv)
