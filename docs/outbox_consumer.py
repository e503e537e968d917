#!/usr/bin/env python3
"""A notification-outbox consumer for replan, to copy into a push service.

    outbox_consumer.py [--replan CMD] [--state FILE] [--batch N] [--once] [--interval SECONDS]

Loop: read the rows after the saved cursor (`replan outbox --since CURSOR --json`), deliver
each, then acknowledge the batch (`replan outbox ack NEXT`) and save NEXT. A crash between
delivering and acknowledging delivers those rows again on the next start (at least once), so
`deliver` must be idempotent: key a reminder on (occurrenceId, action, fireAt), a note on its id.

Two kinds of rows: `reminder` (schedule or cancel a session's reminder) and `note` (the
student's morning note, or the word that a night was taken back: show `title` and `body` at
`fireAt`, which may already have passed; then deliver it now).

Replace `deliver` with your push call. As shipped it prints one JSON line per row. --replan
takes the command as words (e.g. "sudo -u replan replan" or "replan --db /path/replan.db").
"""
import argparse
import json
import os
import shlex
import subprocess
import sys
import time


def deliver(row):
    """Schedule or withdraw one reminder, or send one note. Here: print it; in a push service:
    call the API."""
    if row.get("kind", "reminder") == "note":
        fields = ("kind", "id", "action", "user", "fireAt", "title", "body")
    else:
        fields = ("action", "user", "occurrenceId", "fireAt")
    print(json.dumps({k: row[k] for k in fields}, sort_keys=True, ensure_ascii=False), flush=True)


def replan(command, *args):
    result = subprocess.run(command + list(args), capture_output=True, text=True)
    if result.returncode != 0:
        raise RuntimeError(f"{' '.join(command + list(args))} exited {result.returncode}: {result.stderr.strip()}")
    return json.loads(result.stdout)


def load_cursor(path):
    try:
        with open(path) as f:
            return int(f.read().strip() or 0)
    except FileNotFoundError:
        return 0


def save_cursor(path, cursor):
    # Written beside and renamed over, so a crash never leaves a half-written cursor.
    tmp = f"{path}.tmp"
    with open(tmp, "w") as f:
        f.write(f"{cursor}\n")
        f.flush()
        os.fsync(f.fileno())
    os.replace(tmp, path)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--replan", default="replan", help="how to run replan (words)")
    parser.add_argument("--state", default="outbox.cursor", help="file keeping the last acknowledged cursor")
    parser.add_argument("--batch", type=int, default=500)
    parser.add_argument("--once", action="store_true", help="stop when the outbox is empty")
    parser.add_argument("--interval", type=float, default=30, help="seconds to wait when the outbox is empty")
    options = parser.parse_args()
    command = shlex.split(options.replan)

    cursor = load_cursor(options.state)
    while True:
        batch = replan(command, "outbox", "--since", str(cursor), "--limit", str(options.batch), "--json")
        for row in batch["entries"]:
            deliver(row)
        if batch["entries"]:
            replan(command, "outbox", "ack", str(batch["next"]), "--json")
            cursor = batch["next"]
            save_cursor(options.state, cursor)
            continue  # there may be more
        if options.once:
            return 0
        time.sleep(options.interval)


if __name__ == "__main__":
    sys.exit(main())
