#!/usr/bin/env python3
"""Generates a Firestore export of the original app for the import benchmark (issue 14).

    bench/firestore_export.py --users 10000 --seed 42 --out bench/out/firestore-10000.json
    bench/firestore_export.py --users 10000 --seed 42 --layout per-user --out DIR

One collection-tree JSON file (`__collections__`, as the usual export tools write it), or
with --layout per-user a directory of one document per student (`{"uid", "userTasks",
"studySettings", "settings", "userStatistics"}`, subcollections under `__collections__`), whose
students each have what the original app writes: 12-20 one-off tasks over four weeks (a few
all-day, a few 未分類, some completed, one in a hundred with an unreadable startDate), three series (a daily course of 30 days, a weekly
lesson for 12 weeks, a monthly review) with the app's instance copies (the daily and weekly
ones completed for the past, the monthly one on the 31st), study settings, notification
settings and statistics. Dates are mostly the app's ISO strings in UTC with milliseconds, a
fifth of them Firestore timestamps in either shape. Every student comes from an RNG seeded
with (seed, index), so the same arguments write the same bytes.
"""
import argparse
import datetime as dt
import json
import random

UTC = dt.timezone.utc
EPOCH = dt.datetime(2025, 1, 6, tzinfo=UTC)  # a Monday; times below are Taipei-ish wall clocks
TITLES = [("英文閱讀", "英文"), ("數學練習", "數學"), ("物理實驗報告", "物理"), ("化學小考", "化學"),
          ("國文作文", "國文"), ("歷史筆記", "歷史"), ("程式作業", "資訊"), ("日文單字", "日文"),
          ("Essay draft", "English"), ("Linear algebra", "Math")]
COLORS = [(0.7, 0.16, 0.13), (0.85, 0.65, 0.13), (0.2, 0.6, 0.3), (0.2, 0.4, 0.75)]


def instant(rng, t):
    """The app's ISO string, or (a fifth of the time) a Firestore timestamp in one of its shapes."""
    r = rng.random()
    if r < 0.1:
        return {"_seconds": int(t.timestamp()), "_nanoseconds": 0}
    if r < 0.2:
        return {"__time__": t.strftime("%Y-%m-%dT%H:%M:%S.000Z")}
    return t.strftime("%Y-%m-%dT%H:%M:%S.") + "%03dZ" % (t.microsecond // 1000)


def task(rng, uid, title, category, start, minutes, all_day=False, repeat="none", until=None, completed=False):
    c = rng.choice(COLORS)
    doc = {
        "title": title, "note": rng.choice(["", "", "第三章", "review notes"]),
        "color": {"red": c[0], "green": c[1], "blue": c[2], "opacity": rng.choice([1, 0.4])},
        "focusTime": rng.choice([0, 0, 25, 50]), "category": category, "isAllDay": all_day,
        "isCompleted": completed, "repeatType": {"type": repeat},
        "startDate": instant(rng, start), "endDate": instant(rng, start + dt.timedelta(minutes=minutes)),
        "createdAt": instant(rng, start - dt.timedelta(days=3, seconds=rng.randrange(86400))),
        "userId": uid, "notificationEnabled": rng.random() < 0.3, "notificationOffset": 10,
        "__collections__": {},
    }
    if until is not None:
        doc["repeatEndDate"] = instant(rng, until)
    return doc


def user(seed, index):
    rng = random.Random(seed * 1_000_003 + index)
    uid = "u%07d%s" % (index, "".join(rng.choice("abcdefghijkmnpqrstuvwxyzABCDEFGHJKLMNPQRSTUVWXYZ23456789") for _ in range(20)))
    tasks = {}
    for k in range(rng.randint(12, 20)):
        title, category = rng.choice(TITLES)
        if rng.random() < 0.15:
            category = "未分類"
        day = rng.randrange(28)
        if rng.random() < 0.1:
            # All-day: the app wrote the student's midnight as a UTC instant (16:00Z the day before).
            start = EPOCH + dt.timedelta(days=day - 1, hours=16)
            tasks["t%02d%s" % (k, uid)] = task(rng, uid, title, category, start, 1439, all_day=True)
        else:
            start = EPOCH + dt.timedelta(days=day, hours=rng.choice([0, 1, 2, 6, 7, 8, 11, 12, 13]))
            doc = task(rng, uid, title, category, start, rng.choice([30, 50, 60, 90, 120]), completed=day < 8 and rng.random() < 0.8)
            if rng.random() < 0.01:
                # What the app dropped silently: a task whose required field does not decode.
                doc["startDate"] = "not a date"
            tasks["t%02d%s" % (k, uid)] = doc
    for name, repeat, count, step, title, category in [("d", "daily", 30, 1, "英文單字", "英文"),
                                                      ("w", "weekly", 12, 7, "鋼琴課", "音樂"),
                                                      ("m", "monthly", 6, None, "數學複習", "數學")]:
        tid = "s%s%s" % (name, uid)
        start = EPOCH + dt.timedelta(hours=12) if repeat != "monthly" else dt.datetime(2025, 1, 31, 6, tzinfo=UTC)
        until = start + dt.timedelta(days=(count - 1) * step) if step else None
        doc = task(rng, uid, title, category, start, 30 if repeat == "daily" else 60, repeat=repeat, until=until)
        instances = {}
        for i in range(count):
            if step:
                t = start + dt.timedelta(days=i * step)
            else:
                # The app's month-end bug: only months with a 31st got an instance.
                month = [1, 3, 5, 7, 8, 10][i]
                t = dt.datetime(2025, month, 31, 6, tzinfo=UTC)
            instances["i%03d" % i] = {"date": instant(rng, t), "isCompleted": t < EPOCH + dt.timedelta(days=8) and rng.random() < 0.9,
                                      "parentTaskId": tid, "__collections__": {}}
        doc["__collections__"] = {"instances": instances}
        tasks[tid] = doc
    days = sorted(rng.sample(range(1, 8), rng.randint(3, 7)))
    study = {
        "userId": uid, "studyDuration": float(rng.choice([30, 45, 50, 60, 90])), "selectedDays": days,
        "dailyStartHours": {str(d): rng.choice([8, 9, 14, 19]) for d in days},
        "dailyStartMinutes": {str(d): rng.choice([0, 30]) for d in days},
        "dailyEndHours": {str(d): 22 for d in days}, "dailyEndMinutes": {str(d): 0 for d in days},
        "tone": rng.choice(["沉著穩重的專家", "溫柔的學姊", "a calm, professional tutor"]),
        "isStudyDatePreferenceEnabled": rng.random() < 0.9, "isStudyTimePreferenceEnabled": True,
        "updatedAt": instant(rng, EPOCH), "__collections__": {},
    }
    settings = {"notificationEnabled": rng.random() < 0.3, "notificationOffset": rng.choice([0, 5, 10, 15, 30, 60]), "__collections__": {}}
    stats = {c: {"category": c, "taskCount": rng.randint(1, 9), "completedCount": rng.randint(0, 5), "focusTime": rng.randint(0, 900)}
             for c in sorted({t["category"] for t in tasks.values()})}
    statistics = {"totalTokens": rng.randint(0, 200000), "__collections__": {"statistics": stats}}
    return uid, tasks, study, settings, statistics


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--users", type=int, default=10000)
    p.add_argument("--seed", type=int, default=42)
    p.add_argument("--out", required=True)
    p.add_argument("--layout", choices=["tree", "per-user"], default="tree")
    a = p.parse_args()
    if a.layout == "per-user":
        import os
        os.makedirs(a.out, exist_ok=True)
        for i in range(a.users):
            uid, t, s, n, st = user(a.seed, i)
            with open(os.path.join(a.out, uid + ".json"), "w", encoding="utf-8") as f:
                json.dump({"uid": uid, "userTasks": t, "studySettings": s, "settings": n, "userStatistics": st},
                          f, ensure_ascii=False, separators=(",", ":"))
        return
    tasks, study, settings, stats = {}, {}, {}, {}
    for i in range(a.users):
        uid, t, s, n, st = user(a.seed, i)
        tasks[uid] = {"__collections__": {"userTasks": t}}
        study[uid], settings[uid], stats[uid] = s, n, st
    with open(a.out, "w", encoding="utf-8") as f:
        json.dump({"__collections__": {"tasks": tasks, "studySettings": study, "settings": settings, "userStatistics": stats}},
                  f, ensure_ascii=False, separators=(",", ":"))


if __name__ == "__main__":
    main()
