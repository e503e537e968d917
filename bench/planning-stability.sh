#!/bin/sh
# Stability of the planning rules on the bench population (docs/benchmark.md, "Planning rules
# version 3: stability"): generates the seeded population with bench/population.py, exports it
# (one replan/1 document per student), compiles bench/PlanningStability/main.swift against optimised JSON,
# Planning and Exchange modules and runs five consecutive nights.
# Usage: bench/planning-stability.sh REPLAN-BINARY [users] [seed] [now]
# SOURCES=DIR takes the JSON, Planning and Exchange sources from DIR/Sources instead (e.g. an
# older tree from `git archive`, to compare rules); STABILITY_FLAGS="-D NO_STABILITY_CHECK"
# for rules that have no `GuaranteeChecker.stability`. STUDENTS=FILE keeps the exported
# population there, and reuses it when it exists (to run several trees on the same students).
set -eu
root=$(cd "$(dirname "$0")/.." && pwd)
src=${SOURCES:-$root}
bin=$1
users=${2:-1000}
seed=${3:-42}
now=${4:-2025-01-14T04:00:00Z}
work=$(mktemp -d "${TMPDIR:-/tmp}/planning-stability.XXXXXX")
trap 'rm -rf "$work"' EXIT INT TERM
students=${STUDENTS:-$work/students.jsonl}
if [ ! -s "$students" ]; then
    python3 "$root/bench/population.py" generate --db "$work/pop.db" --users "$users" --replan "$bin" --seed "$seed" --now "$now" > /dev/null
    python3 - "$bin" "$work/pop.db" "$students" <<'PY'
import json, sqlite3, subprocess, sys
bin, db, out = sys.argv[1:4]
ids = [r[0] for r in sqlite3.connect(db).execute("SELECT id FROM users ORDER BY id")]
with open(out, "w") as f:  # one replan/1 document a line, one student each
    for i in ids:
        doc = json.loads(subprocess.run([bin, "--db", db, "export", "--user", i], check=True, capture_output=True).stdout)
        f.write(json.dumps(doc) + "\n")
PY
fi
lib() { # module name, sources...
    name=$1; shift
    swiftc -O -package-name replan -parse-as-library -module-name "$name" -I "$work" -L "$work" \
        -emit-module -emit-module-path "$work/$name.swiftmodule" -emit-library -static -o "$work/lib$name.a" "$@"
}
lib JSON $(find "$src"/Sources/JSON -name "*.swift" | sort)
lib Planning -lJSON $(find "$src"/Sources/Planning -name "*.swift" | sort)
lib Exchange -lJSON -lPlanning $(find "$src"/Sources/Exchange -name "*.swift" | sort)
# shellcheck disable=SC2086 # the flags are meant to split
swiftc -O -package-name replan -module-name PlanningStability ${STABILITY_FLAGS:-} -I "$work" -L "$work" -lExchange -lPlanning -lJSON \
    -o "$work/planning-stability" "$root/bench/PlanningStability/main.swift"
"$work/planning-stability" "$students" "$now" 5
