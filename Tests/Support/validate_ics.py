#!/usr/bin/env python3
"""Reads iCalendar files with two independent parsers, Python's `icalendar` and `vobject`,
and prints one JSON summary per file, so the Swift tests can check what a calendar app would
see. Exits non-zero (with the reason on stderr) when a file does not parse or breaks the
line rules of RFC 5545 that parsers disagree on (bare LF or CR, control characters, lines
over 75 octets)."""
import json
import sys

import icalendar
import vobject


def check_bytes(path, data):
    lines = data.split(b"\r\n")
    if lines[-1] != b"":
        raise ValueError(f"{path}: does not end with CRLF")
    for number, line in enumerate(lines[:-1], 1):
        if b"\n" in line or b"\r" in line:
            raise ValueError(f"{path}:{number}: bare LF or CR")
        if len(line) > 75:
            raise ValueError(f"{path}:{number}: {len(line)} octets")
        for byte in line:
            if (byte < 0x20 and byte != 0x09) or byte == 0x7F:
                raise ValueError(f"{path}:{number}: control character 0x{byte:02x}")


def summary(path):
    with open(path, "rb") as f:
        data = f.read()
    check_bytes(path, data)
    calendar = icalendar.Calendar.from_ical(data)
    events = []
    for event in calendar.walk("VEVENT"):
        alarms = [str(a.get("TRIGGER").to_ical(), "ascii") for a in event.walk("VALARM")]
        events.append({
            "uid": str(event.get("UID")),
            "summary": str(event.get("SUMMARY")),
            "description": str(event.get("DESCRIPTION")) if event.get("DESCRIPTION") is not None else None,
            "status": str(event.get("STATUS")) if event.get("STATUS") is not None else None,
            "sequence": int(event.get("SEQUENCE")) if event.get("SEQUENCE") is not None else None,
            "lastModified": event.decoded("LAST-MODIFIED").isoformat() if event.get("LAST-MODIFIED") is not None else None,
            "start": event.decoded("DTSTART").isoformat(),
            "alarms": alarms,
        })
    # The second parser must agree on the events and their titles.
    other = vobject.readOne(data.decode("utf-8"))
    other_events = [(c.uid.value, c.summary.value) for c in other.components() if c.name == "VEVENT"]
    mine = [(e["uid"], e["summary"]) for e in events]
    if sorted(other_events) != sorted(mine):
        raise ValueError(f"{path}: vobject reads {other_events}, icalendar {mine}")
    return {
        "file": path,
        "name": str(calendar.get("X-WR-CALNAME")),
        "refresh": str(calendar.get("REFRESH-INTERVAL").to_ical(), "ascii") if calendar.get("REFRESH-INTERVAL") is not None else None,
        "ttl": str(calendar.get("X-PUBLISHED-TTL")),
        "events": events,
    }


def main():
    try:
        print(json.dumps([summary(p) for p in sys.argv[1:]], ensure_ascii=False))
    except Exception as error:  # any parser's complaint is the test's failure message
        print(f"{type(error).__name__}: {error}", file=sys.stderr)
        sys.exit(1)


if __name__ == "__main__":
    main()
