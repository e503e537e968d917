#!/usr/bin/env bash
# The two engines side by side (issue 21). Not part of the test command.
#
#   bench/postgres.sh [--sizes 1000,10000] [--concurrency N] [--seed S] [--bin PATH]
#
# Per size: generates (or reuses) the seeded population of bench/population.py as a SQLite
# database, copies it into a throwaway PostgreSQL server on this machine (started as the tests
# start theirs: scripts/test-postgres, fsync off) with `replan copy-database`, then times the
# catch-up night `replan run --no-model` on each engine with /usr/bin/time -v and reports:
# students per second, the worker's CPU per student (user + system of replan), the server's
# CPU per student (the postmaster's own and its reaped children's time, i.e. every backend
# that served the run), commits per second (pg_stat_database.xact_commit) and peak memory.
# fsync off makes the server's figures a lower bound of a durable server's.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
sizes=1000,10000 concurrency="" seed=42 bin="" now=2025-01-14T04:00:00Z out=$root/bench/out
while [ $# -gt 0 ]; do
  case $1 in
    --sizes) sizes=$2; shift 2 ;;
    --concurrency) concurrency=$2; shift 2 ;;
    --seed) seed=$2; shift 2 ;;
    --bin) bin=$2; shift 2 ;;
    -h|--help) sed -n '2,/^set -euo/p' "$0" | grep '^#' | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "unknown option $1" >&2; exit 64 ;;
  esac
done
mkdir -p "$out"
if [ -z "$bin" ]; then
  swift build -c release >/dev/null
  bin=$(swift build -c release --show-bin-path)/replan
fi
# Always a server of its own: the server CPU it reports is that server's postmaster's.
unset REPLAN_TEST_POSTGRES_URL
# shellcheck source=scripts/test-postgres
source "$root/scripts/test-postgres"
start_test_postgres
[ -n "${REPLAN_TEST_POSTGRES_URL:-}" ] || { echo "bench/postgres.sh: no PostgreSQL server" >&2; exit 1; }
# The throwaway server's password goes in PGPASSWORD (libpq reads it), never on a command line.
PGPASSWORD=$(python3 -c "import sys, urllib.parse as u; print(u.urlsplit(sys.argv[1]).password or '')" "$REPLAN_TEST_POSTGRES_URL")
export PGPASSWORD
server=$(python3 -c "import sys, urllib.parse as u; p = u.urlsplit(sys.argv[1]); print(u.urlunsplit(p._replace(netloc=f'{p.username}@{p.hostname}:{p.port}')))" "$REPLAN_TEST_POSTGRES_URL")
gen_hash=$(python3 bench/population.py fingerprint)
conc_flag=()
[ -n "$concurrency" ] && conc_flag=(--concurrency "$concurrency")

psql_value() { python3 - "$1" "$2" <<'PY'
import sys, subprocess, urllib.parse
url, sql = sys.argv[1], sys.argv[2]
print(subprocess.run(["psql", "-At", "-c", sql, url], capture_output=True, text=True, check=True).stdout.strip())
PY
}
measure() { # LABEL DB → one result line
  local label=$1 db=$2
  local log=$out/pg-bench-${label// /-}.time
  local before_cpu=0 before_commits=0
  if [[ $db == postgresql://* ]]; then
    before_cpu=$(test_postgres_cpu); before_commits=$(psql_value "$db" "SELECT xact_commit FROM pg_stat_database WHERE datname = current_database()")
  fi
  /usr/bin/time -v "$bin" --db "$db" --now "$now" run --no-model "${conc_flag[@]}" --quiet >"$log.out" 2>"$log" || true
  local wall user sys rss students
  wall=$(awk -F': ' '/Elapsed \(wall clock\)/ { n = split($2, p, ":"); s = 0; for (i = 1; i <= n; i++) s = s * 60 + p[i]; print s }' "$log")
  user=$(awk -F': ' '/User time/ { print $2 }' "$log"); sys=$(awk -F': ' '/System time/ { print $2 }' "$log")
  rss=$(awk -F': ' '/Maximum resident/ { printf "%.0f", $2 / 1024 }' "$log")
  students=$("$bin" --db "$db" log --json | python3 -c 'import json,sys; t=json.load(sys.stdin)["runs"][0]["totals"]; print(t["changed"] + t["unchanged"])')
  local server_cpu=0 commits=0
  if [[ $db == postgresql://* ]]; then
    sleep 1
    server_cpu=$(python3 -c "print($(test_postgres_cpu) - $before_cpu)")
    commits=$(python3 -c "print($(psql_value "$db" "SELECT xact_commit FROM pg_stat_database WHERE datname = current_database()") - $before_commits)")
  fi
  python3 - "$label" "$students" "$wall" "$user" "$sys" "$server_cpu" "$commits" "$rss" <<'PY'
import sys
label, n, wall, user, sys_, server, commits, rss = sys.argv[1], int(sys.argv[2]), *map(float, sys.argv[3:8]), sys.argv[8]
print(f"| {label} | {n:,} | {wall:.1f} s | {n / wall:,.0f} | {1e3 * (user + sys_) / n:.2f} ms | "
      f"{'-' if server == 0 else f'{1e3 * server / n:.2f} ms'} | {'-' if commits == 0 else f'{commits / wall:,.0f}'} | {rss} MiB |")
PY
}

echo "| night | students | wall | students/s | replan CPU/student | server CPU/student | commits/s | peak RSS |"
echo "|---|---|---|---|---|---|---|---|"
IFS=, read -r -a list <<<"$sizes"
for n in "${list[@]}"; do
  pop=$out/pop-$n-s$seed-$gen_hash.db
  if [ ! -s "$pop" ]; then
    python3 bench/population.py generate --db "$pop.tmp" --users "$n" --replan "$bin" --seed "$seed" --now "$now" >"$pop.gen.json"
    mv "$pop.tmp" "$pop"
  fi
  copy=$out/pg-bench-$n.db
  rm -f "$copy" "$copy-wal" "$copy-shm"; cp "$pop" "$copy"
  name=bench_$n
  psql -q -c "DROP DATABASE IF EXISTS $name" -c "CREATE DATABASE $name" "$server" >/dev/null
  target=$(python3 -c "import sys, urllib.parse as u; p = u.urlsplit(sys.argv[1]); print(u.urlunsplit(p._replace(path='/$name')))" "$server")
  start=$(date +%s.%N)
  "$bin" --db "$copy" copy-database --to "$target" >/dev/null
  copied=$(python3 -c "print(f'{$(date +%s.%N) - $start:.1f}')")
  echo "<!-- $n students: copy-database took $copied s -->"
  measure "SQLite catch-up $n" "$copy"
  measure "PostgreSQL catch-up $n" "$target"
  rm -f "$copy" "$copy-wal" "$copy-shm"
  psql -q -c "DROP DATABASE $name" "$server" >/dev/null
done
