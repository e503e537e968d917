#!/usr/bin/env python3
"""Reads a Prometheus text file with prometheus_client's own parser and prints its samples as
JSON ({"name{label=value,...}": value}), so a test checks the file as the collector reads it.
Exits 1 with the parser's error when the file does not parse."""
import json
import sys

from prometheus_client.parser import text_string_to_metric_families

text = open(sys.argv[1], encoding="utf-8").read()
samples = {}
types = {}
try:
    for family in text_string_to_metric_families(text):
        types[family.name] = family.type
        for s in family.samples:
            labels = ",".join(f"{k}={v}" for k, v in sorted(s.labels.items()))
            samples[f"{s.name}{{{labels}}}" if labels else s.name] = s.value
except Exception as e:  # the parser raises ValueError and friends
    print(f"unparseable: {e}", file=sys.stderr)
    sys.exit(1)
print(json.dumps({"samples": samples, "types": types}, sort_keys=True))
